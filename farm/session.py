"""One `farm run`: load suites, serve their apps, schedule, execute, write results and report."""

from __future__ import annotations

import logging
import os
import re
import secrets as _random
import signal
import sys
import threading
import time
import traceback
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Sequence

from farm import __version__, metrics
from farm.appserver import AppServer
from farm.config import Settings
from farm.errors import ConfigError, UserError
from farm.history import DurationHistory
from farm.results_history import remember_run
from farm.journal import JOURNAL, JournalEvents, conclude
from farm.report.paths import check_outputs, writable_dir as _writable_dir
from farm.attempts import RetryPolicy, synthetic
from farm.devices.specs import DeviceSpec, parse_device_specs
from farm.executors.base import Executor, RunOutcome
from farm.results import (ArtifactStore, CaseResult, DeselectedCase, RunSummary, devices_of,
                          exit_code_for, now_iso, run_usage, write_json)
from farm.runner import Services, skipped_before_start
from farm.schedule import Job, expected_duration
from farm.shared_context import build_units, expand
from farm.select import (Choice, Selection, SelectOptions, parse_shard, read_timings,
                         select_cases)
from farm.suite.loader import display_path, load_suites
from farm.suite.model import AppSpec, Batch, Case
from farm.suite.vars import Variables
from farm.text import first_line, printable

log = logging.getLogger("farm")


def _since_process_start() -> float:
    import psutil
    return time.time() - psutil.Process().create_time()


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + _random.token_hex(2)


class _MaskFilter(logging.Filter):
    def __init__(self, mask) -> None:
        super().__init__()
        self.mask = mask

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info:      # tracebacks carry page text and values too: mask them as well
            text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            text += "\n" + record.exc_text
        record.msg = self.mask(text)
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True


class _LogFile(logging.FileHandler):
    """farm.log. A disk that fills up (or a run dir gone) stops it with one line on stderr,
    not a logging traceback on the console for every line after, nor an error at its close
    that would turn the run's verdict into an internal error."""

    failed = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)     # a bug in a log call: as logging says it
            return
        if not self.failed:
            self.failed = True
            print(f"farm: warning: cannot write {self.baseFilename} "
                  f"({exc.strerror or exc}): farm.log stops here", file=sys.stderr, flush=True)

    def close(self) -> None:
        try:
            super().close()
        except OSError:                     # its last flush, on the same full disk
            self.failed = True


def _setup_logging(run_dir: Path, mask) -> logging.Handler:
    handler = _LogFile(run_dir / "farm.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_MaskFilter(mask))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for noisy in ("asyncio", "PIL", "LiteLLM", "LiteLLM Router", "httpx", "httpcore", "openai"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return handler


def _mobile_app_urls(suites: list, served: dict[Path, str], env: dict[str, str]
                     ) -> tuple[dict[str, str], dict[str, str]]:
    """(package → URL, bundle id → URL) for the suites' apps, for simulators to launch."""
    android: dict[str, str] = {}
    ios: dict[str, str] = {}
    for suite in suites:
        for app in suite.defaults.apps:
            url = served.get(Path(app.serve).resolve()) if app.serve else None
            url = url or (env.get(app.env) if app.env else None)
            if not url:
                continue
            if app.android:
                android[app.android] = url.rstrip("/") + "/"
            if app.ios:
                ios[app.ios] = url.rstrip("/") + "/"
    return android, ios


def _upfront_result(case: Case, run_id: str, reason: str) -> CaseResult:
    return CaseResult(run_id=run_id, case_id=case.id, name=case.name, file=display_path(case.file),
                      line=case.first_line, platform=case.platform, status="skipped", reason=reason,
                      started=now_iso(), tags=case.tags,
                      description=case.description, report_file=case.report_file)


def run(paths: Sequence[str | Path], devices: str, settings: Settings,
        junit_xml: Path | None = None, progress: bool = True,
        out: IO[str] | None = None, matrix: bool = False, overwrite: bool = False,
        verbose: bool = False, choice: Choice | None = None,
        alluredir: Path | None = None, own_process: bool = False) -> int:
    """Run suites under ``paths`` on ``devices`` (e.g. "browser:2"); return the exit code.
    ``choice``: -k, tags, --last-failed, --shard, --maxfail, --collect-only. ``own_process``:
    `farm run`'s process, which ends with the run: a signal while it ends is still one that
    waits for the results to be written, not one that kills it."""
    with _signals_kept(restore=not own_process):
        return _run(paths, devices, settings, junit_xml, progress, out, matrix, overwrite,
                    verbose, choice, alluredir)


def _run(paths: Sequence[str | Path], devices: str, settings: Settings,
         junit_xml: Path | None, progress: bool, out: IO[str] | None, matrix: bool,
         overwrite: bool, verbose: bool, choice: Choice | None, alluredir: Path | None) -> int:
    out, choice, t_start = out or sys.stdout, choice or Choice(), time.monotonic()
    suites, cases, batches = _collect(paths, settings, verbose, out)
    devices, choice = _batch_settings(batches, cases, devices, choice, settings, out)
    specs = parse_device_specs(devices, settings)
    if not cases:
        print("farm: no cases found under " + ", ".join(map(str, paths)), file=out)
        return 5
    remembered = (history := DurationHistory(settings.state_dir)).load()
    chosen = _select(cases, specs, settings, choice, devices, out)
    if choice.collect_only:
        return _print_collection(chosen, out, lambda c: expected_duration(
            remembered, c.id, c.platform, settings.default_case_seconds),
            lambda c: f"{c.platform}:{c.id}" in remembered, settings.default_case_seconds)
    cases = chosen.selected
    _check_models(settings)
    _check_devices(settings, specs, cases)
    _check_case_outputs(cases, batches)
    run_id = new_run_id()
    run_dir = _output_dirs(settings, run_id, overwrite, junit_xml, alluredir)
    server, tally = _metrics_server(settings, {s.platform for s in specs})
    with AppServer(settings.serve_host, settings.serve_url_host) as apps, ExitStack() as stack:
        apps.serve([a for s in suites for a in s.defaults.apps] + _served_folders(cases))
        env = {**_dotenv_credentials(), **os.environ, **apps.env}
        every_secret = Variables.from_sources(
            defaults={k: v for c in cases for k, v in c.vars.items()}, env=env,
            secrets_dir=settings.secrets_dir, secrets={n for c in cases for n in c.secrets})
        handler = _setup_logging(run_dir, every_secret.mask)
        services = Services(settings, ArtifactStore(run_dir), run_id, env, app_dirs=apps.urls,
                            cache_mode=settings.cache, mask=every_secret.mask)
        upfront, jobs, units = _plan(cases, settings, run_id, remembered)
        outcome = RunOutcome(results=[])
        if jobs:
            planned = [u for u in units if u.id in {j.case_id for j in jobs}]
            try:
                executor = _executor(settings, specs, units, services, matrix, suites,
                                     apps.urls, env, jobs, stack)
            except UserError as exc:    # e.g. no broker there: say so, and that nothing ran
                outcome.refused = exc
                outcome.results = [synthetic(c, run_id, 1, "error", reason="not run", error=exc)
                                   for c in planned]
            else:
                journal = _journal(run_dir, run_id, planned)
                outcome = _execute(executor, jobs, upfront, journal, progress, out, tally, choice)
    services.artifacts.flush()
    summary = _summary(run_id, t_start, upfront + outcome.results, outcome, chosen, units)
    _remember(settings, summary, run_dir, refused=outcome.refused is not None)
    unwritten = write_outputs(summary, run_dir, junit_xml, alluredir, not_written=(
        _files_after_run(settings, cases, batches, summary, env)))
    if not summary.interrupted:
        history.record(outcome.results)
    _drop_handler(handler)
    _report(summary, run_dir, out, outcome.refused)
    _export_metrics(settings, run_dir, tally, [] if outcome.refused else summary.cases, server)
    return _exit_code(summary, outcome.refused, unwritten)


def _check_models(settings: Settings) -> None:
    """Model settings that cannot work (a provider litellm cannot tell, no API key) stop the
    run before any device starts (exit 4); nothing is sent. A cluster run's cases use each
    worker's model, not this one."""
    if settings.model and not settings.broker_url:
        from farm.llm.models import check_models
        check_models(settings)


def _check_devices(settings: Settings, specs: list[DeviceSpec], cases: list[Case]) -> None:
    """Devices that cannot start whatever the cases do (no Chromium where a browser is to run,
    a FARM_CHROMIUM_PATH that is none) stop the run before it starts anything (exit 4), the
    problem said first. A cluster run's devices are the workers'."""
    if settings.broker_url:
        return
    from farm.devices.specs import check_browser
    runnable = {c.platform for c in build_units(cases)
                if settings.model or skipped_before_start(c) is None}
    check_browser([s for s in specs if s.platform in runnable], settings)


def _exit_code(summary: RunSummary, refused: Exception | None, unwritten: list[str]) -> int:
    """The run's code, after saying on stderr what went wrong beyond its cases: an output not
    written (3, infrastructure, unless the cases already made the run's code nonzero), an
    executor refused up front (nothing ran: its code)."""
    for what in unwritten:
        print(f"farm: error: not written: {what}", file=sys.stderr)
    if refused is not None:     # summary.exit_code is its code already
        print(f"farm: error: {refused}", file=sys.stderr)
    return summary.exit_code or (3 if unwritten else 0)


def _collect(paths: Sequence[str | Path], settings: Settings, verbose: bool,
             out: IO[str]) -> tuple[list, list[Case], list[Batch]]:
    """(suites, their cases with the command line's overrides, Midscene batch files);
    -v lists what was skipped."""
    skipped: list[str] = []
    warnings: list[str] = []
    batches: list[Batch] = []
    suites = load_suites([Path(p) for p in paths], env=os.environ,
                         secrets_dir=settings.secrets_dir, skipped=skipped, warnings=warnings,
                         batches=batches)
    for what in skipped if verbose else ():
        print(f"farm: skipped {what}", file=out)
    for warning in warnings:
        print(f"farm: warning: {warning}", file=out)
    return suites, _with_overrides([c for s in suites for c in s.cases], settings), batches


_DEVICE_KIND = {"web": "browser", "android": "android", "ios": "ios"}


def _batch_settings(batches: list[Batch], cases: list[Case], devices: str, choice: Choice,
                    settings: Settings, out: IO[str]) -> tuple[str, Choice]:
    """A Midscene batch file's ``concurrent`` (devices per platform: the count without
    --devices, a cap with it) and ``continueOnError: false`` (= --maxfail 1)."""
    if not batches:
        return devices, choice
    concurrent = min(b.concurrent for b in batches)
    if choice.devices_given:
        specs = parse_device_specs(devices, settings)
        devices = ",".join(f"{s.kind}:{min(s.count, concurrent)}" for s in specs)
    else:
        listed = {cid for b in batches for cid in b.case_ids}
        platforms = sorted({c.platform for c in cases if c.id in listed})
        devices = ",".join(f"{_DEVICE_KIND[p]}:{concurrent}" for p in platforms) or devices
    if not all(b.continue_on_error for b in batches) and choice.maxfail is None:
        choice = replace(choice, maxfail=1)
    names = ", ".join(b.file for b in batches)
    print(f"farm: {names}: concurrent {concurrent} (--devices {devices})"
          + ("" if choice.maxfail != 1 else ", continueOnError false: no file starts after "
             "a failure"), file=out)
    for b in batches:
        shared = [c for c in cases if c.shared and c.shared.unit_id == b.unit_id]
        if shared:
            print(f"farm: {b.file}: shareBrowserContext: its {len(shared)} web file(s) run as "
                  f"one unit ({b.unit_id}): on one device, in order"
                  + (f" ({Path(b.setup).name}, the setup, first)" if b.setup else "")
                  + ", in one browser context", file=out)
    return devices, choice


def _batch_summaries(batches: list[Batch], summary: RunSummary) -> list[str]:
    """A batch's ``summary:`` file: each listed file's outcome, as Midscene's index.json.
    Returns the ones not written, as `write_outputs` does."""
    import json
    by_id = {c.case_id: c for c in summary.cases}
    failed = []
    for batch in batches:
        if not batch.summary:
            continue
        files = [{"file": r.file, "case": r.case_id, "status": r.status,
                  "duration": r.duration, "error": r.error.message if r.error else None,
                  "data": r.data}
                 for r in (by_id.get(cid) for cid in batch.case_ids) if r is not None]
        counts = {s: sum(1 for f in files if f["status"] == s)
                  for s in ("passed", "failed", "error", "flaky", "skipped", "interrupted")}
        data = {"batch": batch.file, "run": summary.run_id, "total": len(files),
                **counts, "files": files}
        failed += _written(f"{batch.file}: summary:", batch.summary,
                           json.dumps(data, indent=2, ensure_ascii=False))
    return failed


def _written(what: str, path: str, text: str) -> list[str]:
    """Write ``text`` to ``path`` (its folders made); [] when done, else the one line
    `_exit_code` says: ``<what> <path>: <why>``."""
    from farm.report.paths import why_not_written
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write %s %s: %s", what, path, exc)
        return [f"{what} {path}: {why_not_written(Path(path), exc)}"]
    return []


def _dotenv_credentials() -> dict[str, str]:
    """The credential-named values of the working directory's ``.env`` (API_TOKEN=...), also
    those no case refers to: a page, a script or a model can still show one, and it is masked
    like the same variable set in the environment (a case gets only the ``.env`` values it
    refers to: farm.suite.dotenv)."""
    from farm.config import is_credential
    from farm.suite.dotenv import DOTENV, read_dotenv
    return {name: value for name, value in read_dotenv(DOTENV).items()
            if is_credential(name, value)}


def _files_after_run(settings: Settings, cases: list[Case], batches: list[Batch],
                     summary: RunSummary, env: dict[str, str]) -> list[str]:
    """The cases' output: / unstableLogContent: files and the batch files' summaries; the
    ones not written (an output of the run: exit 3, each named on stderr)."""
    return _case_outputs(cases, summary.cases, lambda c: Variables.from_sources(
        defaults=c.vars, env=env, secrets_dir=settings.secrets_dir, secrets=c.secrets)) + \
        _batch_summaries(batches, summary)


def _check_case_outputs(cases: list[Case], batches: list[Batch]) -> None:
    """The cases' output: / unstableLogContent: and the batches' summary: paths, checked as
    --junit-xml is before any device starts (ConfigError, exit 4); one holding ${NAME} is
    only known at the end of the run, and checked then."""
    from farm.report.paths import writable_file
    for case in cases:
        for key, path in (("output:", case.output), ("unstableLogContent:", case.log_content)):
            if path and "${" not in path:
                writable_file(Path(path), f"{display_path(case.file)}: {key}")
    for batch in batches:
        if batch.summary:
            writable_file(Path(batch.summary), f"{batch.file}: summary:")


def _served_folders(cases: list[Case]) -> list[AppSpec]:
    """``web.serve`` folders: each served on its own loopback port for the run."""
    folders = {c.web.serve for c in cases if c.web is not None and c.web.serve is not None}
    return [AppSpec(name=f"serve-{f.name}", serve=f) for f in sorted(folders)]


def _case_outputs(cases: list[Case], results: list[CaseResult],
                  variables: Callable[[Case], Variables]) -> list[str]:
    """Midscene's ``output:`` (the JSON of the case's named results) and
    ``unstableLogContent:`` (its step log), relative to the working directory; the ones not
    written (secrets in a path masked)."""
    import json
    by_id = {r.case_id: r for r in results}
    failed = []
    for case in cases:
        result = by_id.get(case.id)
        if result is None:
            continue
        values = variables(case)
        for key, path, data in (
                ("output:", case.output, result.data),
                ("unstableLogContent:", case.log_content,
                 [s.model_dump(mode="json") for s in result.steps])):
            what = f"{display_path(case.file)}: {key}"
            try:
                path = values.resolve(path) if path else path   # ${NAME}, as in any template
            except UserError as exc:
                failed.append(f"{what} {path}: {exc}")
                continue
            if path:
                failed += [values.mask(line) for line in _written(
                    what, path, json.dumps(data, indent=2, ensure_ascii=False))]
    return failed


def _output_dirs(settings: Settings, run_id: str, overwrite: bool,
                 junit_xml: Path | None = None, alluredir: Path | None = None) -> Path:
    """The run's directory, checked before any device starts: state and report directories
    must be writable directories, and a report directory holding a run is only reused with
    ``overwrite`` (its old results are removed, so nothing stale mixes in); --junit-xml and
    --alluredir must be writable too (not found out after the run)."""
    check_outputs(junit_xml, alluredir)
    state = Path(settings.state_dir)
    set_by = settings.named("state_dir") if settings.source("state_dir") else "FARM_STATE_DIR"
    _writable_dir(state, f"the state directory ({set_by})")
    if not settings.report_dir:
        run_dir = state / "runs" / run_id
        _writable_dir(run_dir, "the run directory")
        return run_dir
    run_dir = Path(settings.report_dir)
    _writable_dir(run_dir, settings.named("report_dir"))
    old = [n for n in ("results.json", "results.jsonl") if (run_dir / n).exists()]
    if old and not overwrite:
        raise ConfigError(f"{settings.named('report_dir')} {run_dir} already holds a run "
                          f"({old[0]}): use "
                          f"--overwrite to replace it, or another directory")
    if old:
        import shutil
        for name in ("results.json", "results.jsonl", "junit.xml", "report.html", "farm.log",
                     "metrics.prom"):
            (run_dir / name).unlink(missing_ok=True)
        shutil.rmtree(run_dir / "artifacts", ignore_errors=True)
    return run_dir


def _with_overrides(cases: list[Case], settings: Settings) -> list[Case]:
    """Command-line / settings timeout and retries win over the suites' own."""
    return [c.model_copy(update={
        "timeout": settings.default_timeout or c.timeout,
        "retries": c.retries if settings.retries is None else settings.retries}) for c in cases]


def _drop_handler(handler: logging.Handler) -> None:
    logging.getLogger().removeHandler(handler)
    handler.close()


def _plan(cases: list[Case], settings: Settings, run_id: str, remembered: dict[str, list[float]]
          ) -> tuple[list[CaseResult], list[Job], list[Case]]:
    """(results decided before any device starts, jobs to run, the cases they are for) for
    the selected cases; a shared-context batch's files are one unit, so one job
    (farm.shared_context). A case whose very first step needs a model is skipped here when
    this process would run it without one (a later such step: the case runs up to it, and
    farm.runner skips the rest); in a cluster run each worker's own model settings decide."""
    upfront: list[CaseResult] = []
    jobs: list[Job] = []
    cases = build_units(cases)
    for case in cases:
        step = skipped_before_start(case)
        if step is not None and not settings.model and not settings.broker_url:
            upfront.append(_upfront_result(
                case, run_id, f"needs a model (set FARM_MODEL): {step.kind} at line "
                              f"{step.line}"))
        else:
            order = case.in_order       # a concurrent: 1 batch's files run in its order
            jobs.append(Job(case.id, case.platform, expected_duration(
                remembered, case.id, case.platform, settings.default_case_seconds),
                test_retries=case.retries, pin=case.pin,
                sequence=order.batch if order else None, place=order.place if order else 0))
    return upfront, jobs, cases


LAST_FAILED = "lastfailed.json"


def _select(cases: list[Case], specs: list[DeviceSpec], settings: Settings, choice: Choice,
            devices: str, out: IO[str]) -> Selection:
    """The run's cases after -k, tags, platforms without a device, --shard and --last-failed
    (farm/select.py); cases for a platform with no device get one line per platform.
    A run without --devices runs on the default devices (browser:1) and deselects the rest
    as --devices browser:1 would; only --collect-only lists every platform then."""
    state = Path(settings.state_dir)
    shard = parse_shard(choice.shard) if choice.shard else None
    if choice.shard_timings is not None and shard is None:
        raise ConfigError("--shard-timings is for sharded runs: give --shard I/N too")
    # a shard is planned on the cases left after the platforms: --collect-only previews that
    by_devices = choice.devices_given or not choice.collect_only or shard is not None
    opts = SelectOptions(
        keyword=choice.keyword, tags=choice.tags, exclude_tags=choice.exclude_tags,
        last_failed=_load_failures(state) if choice.last_failed else None,
        platforms={s.platform for s in specs} if by_devices else None,
        devices=devices, shard=shard,
        shard_timings=read_timings(choice.shard_timings) if choice.shard_timings else None)
    # shards are planned on the suite (or the timings every job is given), never on this
    # machine's remembered durations
    chosen = select_cases(cases, opts, lambda c: display_path(c.file))
    by_platform: dict[str, int] = {}
    for d in chosen.deselected:
        if d.reason.startswith("no ") and d.reason.endswith(f"--devices {devices}"):
            by_platform[d.case.platform] = by_platform.get(d.case.platform, 0) + 1
    for platform, n in sorted(by_platform.items()):
        chosen.notes.append(f"deselected {n} {platform} case(s): no {platform} device in "
                            f"--devices {devices}")
    for note in chosen.notes:
        print(f"farm: {note}", file=out)
    return chosen


def _print_collection(chosen: Selection, out: IO[str], expected: Callable[[Case], float],
                      ran_here: Callable[[Case], bool], default: float) -> int:
    """--collect-only: the cases a run would take (and their expected seconds, from the
    duration history; ``default`` for a case that never ran here, which the total says), and
    the ones it would leave out.  Exit 5 when none is left, as the run itself (and pytest
    --collect-only) would."""
    in_order = sorted(chosen.selected, key=lambda c: (c.shared.unit_id, c.shared.order)
                      if c.shared else (c.id, 0))     # a shared-context unit's files as they run
    for case in in_order:
        shared = (f"  [one unit: {case.shared.unit_id} {case.shared.order + 1}"
                  f"{', setup' if case.shared.setup else ''}]" if case.shared else "")
        print(f"{case.id}  [{case.platform}]  {case.name}  ({display_path(case.file)}){shared}",
              file=out)
    for d in chosen.deselected:
        print(f"deselected: {d.case.id}  [{d.case.platform}]  {d.reason}", file=out)
    total = sum(expected(c) for c in chosen.selected)
    new = sum(not ran_here(c) for c in chosen.selected)
    guessed = f"; {new} never ran here, {default:g}s each assumed" if new else ""
    print(f"farm: {len(chosen.selected)} case(s) collected (expected {total:.1f}s of device "
          f"time, summed over the cases{guessed}), "
          f"{len(chosen.deselected)} deselected", file=out, flush=True)
    return 0 if chosen.selected else 5


def _deselected(case: Case, reason: str) -> DeselectedCase:
    return DeselectedCase(case_id=case.id, name=case.name, file=display_path(case.file),
                          platform=case.platform, reason=reason, tags=case.tags)


def _load_failures(state_dir: Path) -> list[str]:
    import json
    try:
        data = json.loads((state_dir / LAST_FAILED).read_text())
        return [str(c) for c in data.get("failed", [])]
    except (OSError, ValueError, AttributeError):
        return []


def _remember_failures(state_dir: Path, results: list[CaseResult]) -> None:
    """Keep failing cases for --last-failed, as pytest's cache does."""
    import json
    from farm.select import update_last_failed
    failed = update_last_failed(_load_failures(state_dir),
                                {r.case_id: r.status for r in results})
    from farm.report.paths import replace_file      # a full disk keeps the last good one
    try:
        replace_file(state_dir / LAST_FAILED, json.dumps({"failed": failed}).encode())
    except OSError as exc:
        log.warning("cannot record failed cases: %s", exc)


def _executor(settings: Settings, specs: list[DeviceSpec], cases: list[Case],
              services: Services, matrix: bool, suites: list, served: dict[Path, str],
              env: dict[str, str], jobs: list[Job], stack: ExitStack) -> Executor:
    """The cluster executor when a broker is configured, else local devices (simulators
    started for the run as needed)."""
    policy = RetryPolicy(infra_retries=settings.infra_retries)
    by_id = {c.id: c for c in cases}
    if settings.broker_url:     # cluster: the same outputs, from `farm worker`s
        pinned = next((c for c in cases if c.pin), None)
        if pinned is not None:
            raise ConfigError(f"{display_path(pinned.file)}: pins device {pinned.pin} "
                              "(deviceId / wdaHost / wdaPort): pinned cases run with local "
                              "devices only, not on a cluster")
        from farm.cluster.store import check
        from farm.executors.celery import CeleryExecutor
        check(settings.broker_url.get_secret_value())
        if settings.model:
            print("farm: warning: the model of this run (--model / FARM_MODEL) is not sent to "
                  "the workers: in a cluster run ai steps use each `farm worker`'s own model "
                  "settings (FARM_MODEL, FARM_MODEL_BASE_URL and its key where it runs)",
                  file=sys.stderr)
        return CeleryExecutor(settings, by_id, services, policy, specs, matrix=matrix)
    from farm.devices.specs import SIM_KINDS, check_pins, make_devices
    from farm.executors.local import LocalExecutor
    used = {j.platform for j in jobs}
    specs = [s for s in specs if s.platform in used]
    sims = None
    if any(s.kind in SIM_KINDS for s in specs):
        from farm.devices.sim.fleet import SimFleet      # not imported by other runs
        sims = SimFleet(*_mobile_app_urls(suites, served, env),
                        chromium_path=str(settings.chromium_path or "") or None)
        stack.callback(sims.stop)
    devices = make_devices(specs, settings, sims=sims)
    check_pins({display_path(by_id[j.case_id].file): (j.platform, j.pin)
                for j in jobs if j.pin is not None}, devices)
    return LocalExecutor(devices, by_id, services, policy)


@contextmanager
def _signals_kept(restore: bool = True) -> Iterator[None]:
    """The SIGINT / SIGTERM handlers as they were before the run, back when it ends."""
    main = restore and threading.current_thread() is threading.main_thread()
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)} if main \
        else {}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


class StopSignals:
    """Ctrl-C and SIGTERM during a run, as pytest treats them: the first stops the run (in-flight
    cases end *interrupted*, devices are killed, results and the report are still written); a
    second stops waiting for devices to wind down. Handlers only hand the work to a thread:
    nothing runs inside the signal handler that could deadlock or tear Playwright down mid-call.
    """

    def __init__(self, executor: Executor, out: IO[str]) -> None:
        self.executor = executor
        self.out = out
        self.count = 0
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        # the cases are over, their results are being written: a signal now (a CI runner's
        # second SIGTERM) must not cut results.json, the report or metrics.prom in half; the
        # handlers of before come back when the run ends (`_signals_kept`)
        for sig in self._previous:
            signal.signal(sig, self._while_writing)

    def _while_writing(self, signum: int, _frame: object) -> None:
        print(f"farm: {signal.Signals(signum).name}: writing the results; farm ends once "
              "they are written", file=sys.stderr, flush=True)

    def _handle(self, signum: int, _frame: object) -> None:
        self.count += 1
        name = signal.Signals(signum).name
        if self.count == 1:
            print(f"farm: {name}: stopping; in-flight cases end interrupted "
                  f"(again to stop at once)", file=sys.stderr, flush=True)
            threading.Thread(target=self.executor.interrupt, name="interrupt",
                             daemon=True).start()
        else:
            print(f"farm: {name} again: not waiting for devices", file=sys.stderr, flush=True)
            self.executor.hurry()


class _MaxFail:
    """RunEvents around another: after ``limit`` cases ended failed or in error, the executor
    starts no more (-x / --maxfail)."""

    def __init__(self, inner: Any, executor: Executor, limit: int) -> None:
        self.inner, self.executor, self.limit = inner, executor, limit
        self.failures = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        self.inner.case_finished(device, result, final)
        if final and result.status in ("failed", "error"):
            self.failures += 1
            if self.failures == self.limit:
                self.executor.stop_taking(f"not run: --maxfail {self.limit} reached")


def _journal(run_dir: Path, run_id: str, planned: list[Case]) -> JournalEvents:
    """The run's journal, opened with the cases it plans to run (`farm.journal`)."""
    return JournalEvents(None, run_dir, run_id, [
        (c.id, c.name, display_path(c.file), c.platform) for c in planned])


def _execute(executor: Executor, jobs: list[Job], upfront: list[CaseResult],
             journal: JournalEvents, progress: bool, out: IO[str], tally: metrics.CaseMetrics,
             choice: Choice | None = None) -> RunOutcome:
    maxfail = choice.maxfail if choice else None
    from farm.progress import make_progress
    view = make_progress(len(upfront), len(jobs), progress)
    journal.inner = view
    tally.inner = journal
    events: Any = tally     # every final result is counted once, then journaled and shown
    if maxfail:
        events = _MaxFail(events, executor, maxfail)
    metrics.watch_queue(executor.queued)
    view.start()
    try:
        for r in upfront:
            events.case_finished("-", r, final=True)
        log.info("TIMING startup=%.3f", _since_process_start())
        with StopSignals(executor, out):
            outcome = executor.run(jobs, events)
    finally:
        metrics.watch_queue(None)
        view.stop()
        journal.close()
    if outcome.launch_seconds:
        log.info("TIMING launch=%.3f", max(outcome.launch_seconds.values()))
    if outcome.first_start is not None and outcome.last_end is not None:
        log.info("TIMING cases=%.3f", outcome.last_end - outcome.first_start)
    return outcome


def _summary(run_id: str, t_start: float, results: list[CaseResult], outcome: RunOutcome,
             chosen: Selection | None = None, units: list[Case] = ()) -> RunSummary:
    """The run's summary, one result per case file (a shared-context unit's split up)."""
    results = sorted(expand(results, {u.id: u for u in units}), key=lambda r: r.case_id)
    devices, info = devices_of(outcome.results)
    summary = RunSummary(run_id=run_id, started=datetime.fromtimestamp(
        time.time() - (time.monotonic() - t_start)).astimezone().isoformat(timespec="seconds"),
        finished=now_iso(), duration=round(time.monotonic() - t_start, 3),
        devices=devices, device_info=info, cases=results,
        interrupted=outcome.interrupted, farm_version=__version__,
        quarantined=sorted(outcome.quarantined), lost=dict(sorted(outcome.lost.items())),
        deselected=[_deselected(d.case, d.reason) for d in chosen.deselected] if chosen else [])
    summary.recount()
    summary.exit_code = (getattr(outcome.refused, "exit_code", 4) if outcome.refused else
                         exit_code_for(results, outcome.interrupted))
    return summary


def _report(summary: RunSummary, run_dir: Path, out: IO[str],
            refused: Exception | None = None) -> None:
    """The end of a run on the terminal. Cases not run because the executor refused (no
    broker there) are not listed one by one: `_exit_code` says why once."""
    for line in failure_lines(summary, not_run=str(refused) if refused else None):
        print(line, file=out)
    print(summary_line(summary), file=out)
    flaky = [c.case_id for c in summary.cases if c.status == "flaky"]
    if flaky:
        print(f"farm: warning: {len(flaky)} flaky case(s) passed only after failing: "
              + ", ".join(flaky), file=out)
    for line in continued_lines(summary):
        print(line, file=out)
    if (run_dir / "report.html").is_file():      # (one not written is named on stderr)
        print(str((run_dir / "report.html").resolve()), file=out, flush=True)


def _metrics_server(settings: Settings, platforms: set[str]
                    ) -> tuple["metrics.MetricsServer | None", metrics.CaseMetrics]:
    """/metrics of this run while it runs (``--metrics-port``), and the tally of its final
    results; the case series start at 0 so a scrape before the first result has a base (at
    the Pushgateway too: `_push_baseline`)."""
    metrics.build_info("run")
    metrics.run_started(platforms)
    tally = metrics.CaseMetrics(None)
    _push_baseline(settings)
    if not settings.metrics_port:
        return None, tally
    server = metrics.MetricsServer(settings.metrics_port, settings.metrics_host)
    try:
        server.start()
    except OSError as exc:
        raise ConfigError(f"--metrics-port {settings.metrics_port}: cannot listen there "
                          f"({exc.strerror or exc})") from None
    return server, tally


PUSHED_TOTALS = "pushed-metrics.json"     # in the state dir: see pushgateway.push


def _push_baseline(settings: Settings) -> None:
    """With ``--pushgateway``: push the totals so far (0 for a host's first run) before any
    case ends, so that Prometheus, scraping the gateway while the run lasts, sees each case
    series rise from it (`increase()` counts from a series' second sample: a host's first
    run, pushed only at its end, was not counted). A failure here is logged; the push at the
    end says it on stderr."""
    if not settings.pushgateway_url:
        return
    from farm.pushgateway import push
    try:
        push(settings.pushgateway_url, totals=Path(settings.state_dir) / PUSHED_TOTALS)
    except Exception as exc:    # noqa: BLE001 - the end of the run tries again, and says so
        log.debug("could not push the metrics baseline: %s", exc)


def _export_metrics(settings: Settings, run_dir: Path, tally: metrics.CaseMetrics,
                    cases: list[CaseResult], server: "metrics.MetricsServer | None") -> None:
    """Count the results no executor reported (decided up front; a run refused before it
    started passes none: its cases ran nowhere, no alert may count them as errors); write
    metrics.prom into the run directory (node_exporter's textfile collector can read it),
    push to ``--pushgateway`` when given, and with ``--metrics-port`` wait for the final values
    to be scraped. Problems are warnings on stderr (the report's path stays the last line on
    stdout), never the run's exit code."""
    for result in cases:
        tally.count(result, settling=True)
    try:
        metrics.write_textfile(run_dir / "metrics.prom")
    except OSError as exc:
        print(f"farm: warning: cannot write {run_dir / 'metrics.prom'}: {exc}", file=sys.stderr)
    if settings.pushgateway_url:
        from farm.config import mask_url
        from farm.pushgateway import push
        try:
            push(settings.pushgateway_url,
                 totals=Path(settings.state_dir) / PUSHED_TOTALS)
        except Exception as exc:
            print(f"farm: warning: could not push metrics to "
                  f"{mask_url(settings.pushgateway_url)}: {_url_failure(exc)}", file=sys.stderr)
    _last_scrape(server, settings)


def _url_failure(exc: BaseException) -> str:
    """What a failed HTTP request met, in words: "connection refused", "HTTP 401
    Unauthorized" (urllib's own text is "<urlopen error [Errno 111] Connection refused>")."""
    import urllib.error
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        said = getattr(reason, "strerror", None) or str(reason)
        return said[:1].lower() + said[1:]
    return first_line(exc)


def _last_scrape(server: "metrics.MetricsServer | None", settings: Settings) -> None:
    """A batch job's final values are lost unless scraped before it exits: wait (at most
    FARM_METRICS_LINGER_SECONDS) for one scrape of them."""
    if server is None:
        return
    if not server.wait_for_scrape(settings.metrics_linger_seconds):
        print(f"farm: warning: nothing scraped :{server.port}/metrics in "
              f"{settings.metrics_linger_seconds:g}s after the run; metrics.prom has the "
              f"final values", file=sys.stderr)
    server.stop()


def write_outputs(summary: RunSummary, run_dir: Path, junit_xml: Path | None = None,
                  alluredir: Path | None = None,
                  not_written: list[str] | None = None) -> list[str]:
    """results.json, junit.xml, report.html (and --junit-xml, --alluredir), each on its own:
    one that cannot be written costs only itself. Returns what was not written, one line
    each (``<output>: <why>``); the paths were checked up front, so this is the disk's doing
    (full, gone read-only) or a bug (its traceback in farm.log).

    At the end of a run, ``not_written`` lists what it could not write before (its cases'
    ``output:`` files): with those or any of these failed, the run's code becomes 3 (unless
    its cases made it nonzero already); the journal's end and results.json, written last,
    say so."""
    from farm.report.allure import write_allure
    from farm.report.html import write_html
    from farm.report.junit import write_junit
    own = run_dir / "results.json", run_dir / "junit.xml", run_dir / "report.html"
    outputs: list[tuple[str, Path, Callable[[], object]]] = [
        (str(own[1]), own[1], lambda: write_junit(summary, own[1]))]
    if junit_xml:
        outputs.append((f"--junit-xml {junit_xml}", Path(junit_xml),
                        lambda: write_junit(summary, Path(junit_xml), run_dir)))
    if alluredir:
        outputs.append((f"--alluredir {alluredir}", Path(alluredir),
                        lambda: write_allure(summary, run_dir, Path(alluredir))))
    outputs.append((str(own[2]), own[2], lambda: write_html(summary, run_dir)))
    failed = _write_each(outputs)
    if not_written is not None:
        failed = not_written + failed
        if failed and not summary.exit_code:
            summary.exit_code = 3       # an infrastructure error (`_exit_code`)
    return failed + _write_each([
        (f"{run_dir / JOURNAL}", run_dir / JOURNAL, lambda: conclude(run_dir, summary)),
        (str(own[0]), own[0], lambda: write_json(own[0], summary))])


def _write_each(outputs: list[tuple[str, Path, Callable[[], object]]]) -> list[str]:
    """Run each writer; what was not written, one ``<output>: <why>`` line each."""
    from farm.report.paths import why_not_written
    failed = []
    for what, path, write in outputs:
        try:
            write()
        except Exception as exc:        # OSError mostly; a bug must not cost the rest either
            log.warning("cannot write %s", what, exc_info=not isinstance(exc, OSError))
            failed.append(f"{what}: {why_not_written(path, exc)}")
    return failed


def _remember(settings: Settings, summary: RunSummary, run_dir: Path,
              refused: bool = False) -> None:
    """What later runs and commands use: quarantined devices, the failed cases
    (--last-failed), every verdict (results history; marks new / still failing / flaky),
    the cache store the run used (`farm cache export RUN_DIR` reads it from anywhere). A run
    refused before it started (no broker, a deviceId pin) ran no case: it is not a run of
    the history, and --last-failed keeps the failures of the run before it."""
    from farm.cache.run_store import record_store
    _prune_runs(Path(settings.state_dir) / "runs", settings.keep_runs, run_dir)
    _remember_quarantine(Path(settings.state_dir), summary.run_id, summary.quarantined)
    if not refused:
        _remember_failures(Path(settings.state_dir), summary.cases)
        remember_run(settings, summary, run_dir / "report.html")
    record_store(run_dir, settings)


_RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}\Z")      # `new_run_id`


def _prune_runs(runs: Path, keep: int, current: Path) -> None:
    """The oldest run directories under ``<state dir>/runs`` beyond the newest ``keep``
    (FARM_KEEP_RUNS; 0 keeps all): a nightly suite's screenshots filled the disk there run
    after run. Only folders named as farm names a run; never a --report-dir, nor this run."""
    if keep <= 0 or not runs.is_dir():
        return
    import shutil
    try:
        names = sorted(p.name for p in runs.iterdir() if _RUN_ID.match(p.name) and p.is_dir()
                       and not p.is_symlink())
    except OSError:
        return
    for name in names[:-keep]:
        if runs / name != current:
            shutil.rmtree(runs / name, ignore_errors=True)


def remember_rebuilt(settings: Settings, summary: RunSummary, run_dir: Path) -> bool:
    """A run rebuilt from its journal (farm was killed before its end): what its end would
    have remembered, once — the results history (each red case marked new / still failing)
    and, unless a later run is already there, the failed cases for --last-failed. False
    when the history already has it (or cannot be read: nothing is remembered then)."""
    from farm.results_history import CONTEXT_RUNS, open_results
    try:
        recent = open_results(settings).recent(CONTEXT_RUNS)
    except Exception as exc:      # remember_run would say the same: say it once, here
        print(f"farm: warning: results history not updated: {exc}", file=sys.stderr)
        return False
    if any(r.run_id == summary.run_id for r in recent):
        return False
    started = datetime.fromisoformat(summary.started).timestamp() if summary.started else 0.0
    remember_run(settings, summary, run_dir / "report.html")
    if not any(r.at > started for r in recent):
        _remember_failures(Path(settings.state_dir), summary.cases)
    return True


def _remember_quarantine(state_dir: Path, run_id: str, names: list[str]) -> None:
    """Keep the last run's quarantined devices for `farm devices`."""
    import json
    try:
        from farm.report.paths import replace_file
        state_dir.mkdir(parents=True, exist_ok=True)
        replace_file(state_dir / "quarantine.json",
                     json.dumps({"run": run_id, "devices": names}).encode())
    except OSError as exc:
        log.warning("cannot record quarantined devices: %s", exc)


def failure_lines(summary: RunSummary, limit: int = 20, not_run: str | None = None
                  ) -> list[str]:
    """What did not pass, one line a case at the end of the run (as pytest's short summary):
    where (the failing step's file:line) and why (the error's first line); at most ``limit``
    lines, then how many more there are. Nothing when every case passed or was skipped.
    ``not_run``: the error of cases the run could not start (said once elsewhere), left out."""
    bad = [c for c in summary.cases if c.status in ("failed", "error", "interrupted")
           and not (not_run and c.reason == "not run" and c.error
                    and c.error.message == not_run)]
    lines = []
    for case in bad[:limit]:
        error, why = case.error, case.reason or ""
        step = error.step if error else next(     # interrupted: the step it was in
            (s.index for s in reversed(case.steps) if s.status == case.status), None)
        line = next((s.line for s in case.steps if s.index == step and s.line), case.line)
        if error is not None:
            why = (f"step {step}: " if step else "") + error.message
        first = why.strip().splitlines()[0] if why.strip() else ""
        where = f"{case.file}:{line}" if line else case.file
        lines.append(printable(f"{case.status.upper()} {case.case_id} ({where})"
                               + (f" — {clipped(first)}" if first else "")))
    if len(bad) > limit:
        lines.append(f"... and {len(bad) - limit} more: see the report")
    return lines


def continued_lines(summary: RunSummary, limit: int = 20) -> list[str]:
    """The passed cases with a failed step in a continueOnError task (Midscene's optional
    tasks: the case passes, as there), one warning line each, so a green run does not hide
    them: where (the first such step's file:line) and what failed (the case's reason)."""
    lines = []
    passed = [c for c in summary.cases
              if c.status == "passed" and any(s.status == "failed" for s in c.steps)]
    for case in passed[:limit]:
        line = next(s.line for s in case.steps if s.status == "failed")
        where = f"{case.file}:{line}" if line else case.file
        lines.append(printable(f"farm: warning: PASSED {case.case_id} ({where}) — "
                               + clipped(case.reason or "continued after a failed step")))
    if len(passed) > limit:
        lines.append(f"farm: warning: ... and {len(passed) - limit} more passed with failed "
                     f"continueOnError steps: see the report")
    return lines


FAILURE_CHARS = 240     # of an error's first line on the console (the report has it all)


def clipped(text: str, limit: int = FAILURE_CHARS) -> str:
    """``text`` cut to about ``limit`` characters at a word boundary, ending "…" when cut (a
    hint cut mid-word reads as a different word: "choose them with AN")."""
    if len(text) <= limit:
        return text
    head = text[:limit + 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > limit // 2 else text[:limit]).rstrip(" ,;:—-") + "…"


def summary_line(summary: RunSummary) -> str:
    parts = [f"{n} {s}{'s' * (s == 'error' and n > 1)}" for s in   # pytest: "2 errors"
             ("passed", "failed", "error", "flaky", "skipped", "interrupted")
             if (n := summary.counts.get(s))]
    text = ", ".join(parts) or "nothing ran"
    if summary.quarantined:
        text += f"; quarantined: {', '.join(summary.quarantined)}"
    if summary.lost:
        text += f"; lost: {', '.join(summary.lost)}"
    spent = run_usage(summary)
    if spent.spent:
        text += f"; model: {spent.summary()}"
    return f"farm: {text} in {summary.duration:.1f}s (run {summary.run_id})"
