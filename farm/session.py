"""One `farm run`: load suites, serve their apps, schedule, execute, write results and report.

The run's flow is here; its parts are modules of their own: what it writes and remembers
(`farm.run_outputs`), what it prints at its end (`farm.run_console`), its metrics
(`farm.run_metrics`), farm.log (`farm.run_log`) and its signal handling (`farm.stop_signals`).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import Counter
from contextlib import ExitStack, nullcontext
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import IO, Any, Mapping, Sequence

from farm import metrics
from farm.appserver import AppServer
from farm.config import Settings, flag_of, model_keys
from farm.errors import BrokerLost, ConfigError, UserError
from farm.evidence import flush_images
from farm.history import DurationHistory
from farm.journal import JournalEvents
from farm.attempts import RetryPolicy, synthetic
from farm.budget import ModelBudget, not_run
from farm.devices.specs import DeviceSpec, parse_device_specs
from farm.executors.base import Executor, RunOutcome
from farm.results import (ArtifactStore, CaseResult, DeselectedCase, RunSummary, devices_of,
                          NOT_RUN_INTERRUPTED, exit_code_for, now_iso, run_group_from_env)
from farm.run_console import MAXFAIL_REASON, print_end, summary_line
from farm.run_log import CaseLog, drop_handler, setup_logging, skips_failed_text
from farm.run_metrics import export_metrics, start_metrics
from farm.run_outputs import (check_case_outputs, files_after_run, load_failures, load_skipped,
                              new_run_id, output_dirs, remember, unfinished_runs,
                              write_outputs)
from farm.runner import Services, plan_cached_up_front, skipped_before_start
from farm.schedule import Job, expected_duration
from farm.shared_context import (BatchScope, BatchStop, batch_scope, batch_stops, build_units,
                                 expand)
from farm.select import (Choice, Selection, SelectOptions, matrix_note, matrix_runs,
                         parse_shard, read_timings, select_cases)
from farm.stop_signals import EarlyStop, StopSignals, signals_kept
from farm.suite.loader import display_path, load_suites
from farm.suite.model import AppSpec, Batch, Case
from farm.suite.vars import Variables
from farm.text import printable

log = logging.getLogger("farm")


def _since_process_start() -> float:
    """Seconds since this process started, the interpreter's own start included. On Linux:
    the process' start (clock ticks since boot, /proc/self/stat) against the clock since
    boot, to a tick (10 ms). Not psutil's create_time there: it adds the boot time as
    /proc/stat gives it, in whole seconds, which made a process up to a second older than it
    was (0.94 s on one machine). Other systems: psutil's create_time."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf(
            "SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        import psutil
        return time.time() - psutil.Process().create_time()


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


def _suite_urls(suites: list, served: dict[Path, str]) -> dict[Path, dict[str, str]]:
    """Suite root → {its apps' URL variables → the served URL} (`farm.runner.case_env`)."""
    return {suite.root: {app.env: served[Path(app.serve).resolve()]
                         for app in suite.defaults.apps if app.env and app.serve is not None
                         and Path(app.serve).resolve() in served}
            for suite in suites}


def _upfront_result(case: Case, run_id: str, reason: str, line: int | None = None
                    ) -> CaseResult:
    """A case decided before it starts; ``line``: the step that decided it (one that needs a
    model), else its first step's."""
    return CaseResult(run_id=run_id, case_id=case.id, name=case.name, file=display_path(case.file),
                      line=line or case.first_line, platform=case.platform, status="skipped",
                      reason=reason, started=now_iso(), tags=case.tags,
                      description=case.description, report_file=case.report_file)


def run(paths: Sequence[str | Path] | str | Path, devices: str, settings: Settings,
        junit_xml: Path | None = None, progress: bool = True,
        out: IO[str] | None = None, matrix: bool = False, overwrite: bool = False,
        verbose: bool = False, choice: Choice | None = None,
        alluredir: Path | None = None, own_process: bool = False) -> int:
    """Run suites under ``paths`` on ``devices`` (e.g. "browser:2"); return the exit code.
    ``choice``: -k, tags, --last-failed, --shard, --maxfail, --collect-only. ``own_process``:
    `farm run`'s process, which ends with the run: a signal while it ends is still one that
    waits for the results to be written, not one that kills it."""
    if isinstance(paths, (str, os.PathLike)):   # one path, not its characters ("/" of
        paths = [paths]                         # "suites/demo" walked the whole disk)
    with signals_kept(restore=not own_process):
        return _run(paths, devices, settings, junit_xml, progress, out, matrix, overwrite,
                    verbose, choice, alluredir)


def _no_cases(paths: Sequence[str | Path], path: Path | None, out: IO[str]) -> int:
    """A run that found no case: said, exit 5, and --junit-xml a document with no test (as
    pytest writes when it collects none), so CI publishes this run's nothing, not an earlier
    run's file."""
    print("farm: no cases found under " + ", ".join(map(str, paths)), file=out)
    print("farm: nothing to run: no report written", file=out)   # (as a -k of none says)
    return _nothing_to_run(path)


def _none_selected(path: Path | None, out: IO[str], code: int = 5,
                   shard: str | None = None) -> int:
    """A selection that left no case (a -k that matches nothing, a suite whose platforms have
    no device): exit 5 before any output is set up, so a --report-dir keeps the run it holds
    (with --overwrite it was wiped for a run of nothing); --junit-xml as `_no_cases`. A shard
    past the cases (`Selection.empty_shard`: a CI matrix wider than the selection) exits 0,
    its JUnit saying the ``shard`` had no case."""
    print("farm: nothing to run: no report written", file=out)
    return _nothing_to_run(path, code, shard)


def _nothing_to_run(path: Path | None, code: int = 5, shard: str | None = None) -> int:
    """Exit ``code`` (5), and --junit-xml (when given) a document with no test; an empty
    ``shard``'s names no run (none was made: its "farm run <id>" pointed at nothing)."""
    if path is None:
        return code
    from datetime import datetime

    from farm.report.junit import write_junit
    from farm.report.paths import check_outputs
    check_outputs(path, None)
    started = datetime.now().astimezone().isoformat(timespec="seconds")
    summary = RunSummary(run_id="" if shard else new_run_id(), cases=[], exit_code=code,
                         shard=shard, started=started)
    summary.recount()
    write_junit(summary, path)
    return code


def _every_secret(cases: Sequence[Case], env: dict[str, str], keys: dict[str, str],
                  settings: Settings) -> Variables:
    """Every secret value of the run, for its mask: each case's values (suites may give one
    name values of their own), a name any suite declares secret being secret in all."""
    declared = {*(name for c in cases for name in c.secrets), *keys}
    return Variables.joined(Variables.from_sources(
        defaults=dict(own), env=env, provided=keys, secrets_dir=settings.secrets_dir,
        secrets=declared) for own in {tuple(sorted(c.vars.items())) for c in cases})


def _preflight(settings: Settings, specs: list[DeviceSpec], cases: list[Case],
               batches: list[Batch], out: IO[str]) -> None:
    """What stops a run before anything starts (models, devices, outputs: exit 4), then the
    masking a user would not expect, said (`_say_secret_warnings`)."""
    _check_models(settings, out)
    _check_devices(settings, specs, cases)
    check_case_outputs(cases, batches)
    env = {**_dotenv_credentials(), **os.environ}
    _say_secret_warnings(cases, env, model_keys(settings), settings, out)


def _say_secret_warnings(cases: Sequence[Case], env: dict[str, str], keys: dict[str, str],
                         settings: Settings, out: IO[str]) -> None:
    """Masking that would surprise: a credential-named value the steps use that is too short
    to be masked everywhere, a secret whose value the steps' own text holds or that is short
    (`farm.suite.vars.secret_warnings`, for each set of cases that share their variables;
    names and places only, never a value)."""
    from farm.suite.vars import secret_warnings
    groups: dict[tuple, list[Case]] = {}
    for case in cases:
        groups.setdefault((tuple(sorted(case.vars.items())), tuple(sorted(case.secrets))),
                          []).append(case)
    said: dict[str, None] = {}
    for (own, secrets), members in groups.items():
        variables = Variables.from_sources(defaults=dict(own), env=env, provided=keys,
                                           secrets_dir=settings.secrets_dir,
                                           secrets={*secrets, *keys})
        written = {f"{display_path(c.file)}:{s.line}": " ".join(filter(None, (s.target,
                                                                                s.value)))
                   for c in members for s in c.steps}
        said.update(dict.fromkeys(secret_warnings(variables, written)))
    for warning in said:
        print(printable(f"farm: warning: {warning}"), file=out)


def _run(paths: Sequence[str | Path], devices: str, settings: Settings,
         junit_xml: Path | None, progress: bool, out: IO[str] | None, matrix: bool,
         overwrite: bool, verbose: bool, choice: Choice | None, alluredir: Path | None) -> int:
    out, choice, t_start = out or sys.stdout, choice or Choice(), time.monotonic()
    suites, cases, batches = _collect(paths, settings, verbose, notes := _notes(choice, out))
    devices, choice, scope = _batch_settings(batches, cases, devices, choice, settings, notes)
    specs = parse_device_specs(devices, settings)
    if not cases:
        return _no_cases(paths, junit_xml, notes)
    remembered = (history := DurationHistory(settings.state_dir)).load()
    chosen = _select(cases, specs, settings, choice, devices, notes)
    if choice.collect_only:
        return _collect_only(chosen, specs, devices, choice, settings, remembered, verbose, out)
    if not chosen.selected:
        return _none_selected(junit_xml, out, 0 if chosen.empty_shard else 5,
                              chosen.shard if chosen.empty_shard else None)
    cases = chosen.selected
    _preflight(settings, specs, cases, batches, out)
    run_id = new_run_id()
    # a port that is taken, a serve host that is no address here: exit 4 before any output
    # is touched (a --report-dir given with --overwrite keeps its earlier run whole)
    server, tally = start_metrics(settings, {s.platform for s in specs})
    with _app_server(settings) as apps, ExitStack() as stack:
        suite_apps, own = [a for s in suites for a in s.defaults.apps], _served_folders(cases)
        apps.serve(suite_apps + own)
        run_dir = output_dirs(settings, run_id, overwrite, junit_xml, alluredir, len(cases))
        early = EarlyStop().install()       # from here a Ctrl-C still leaves the run's outputs
        env = {**_dotenv_credentials(), **os.environ}   # (each case adds its suite's apps)
        every_secret = _every_secret(cases, env, model_keys(settings), settings)
        handler = setup_logging(run_dir, every_secret.mask)
        services = Services(settings, ArtifactStore(run_dir), run_id, env, app_dirs=apps.urls,
                            suite_urls=_suite_urls(suites, apps.urls),
                            cache_mode=settings.cache, mask=every_secret.mask,
                            hides=every_secret.hides,
                            serve_only=_serve_only(own, suite_apps))
        stack.callback(services.close_cache)   # once the executor (pushed later) is done
        upfront, jobs, units = _plan(cases, settings, run_id, remembered, services, scope.lanes)
        outcome = RunOutcome(results=[])
        if jobs:
            planned = [u for u in units if u.id in {j.case_id for j in jobs}]
            try:    # (no executor, or no outcome: a stop signal came before a case started)
                executor = None if early.name else _executor(settings, specs, units, services,
                    matrix, suites, apps.urls, env, jobs, stack, upfront)
                outcome = executor and _execute(
                    executor, jobs, upfront, _journal(run_dir, run_id, planned, chosen),
                    progress, out, tally, choice, settings, early, remembered, scope)
            except (UserError, BrokerLost) as exc:  # no broker (waited for: exit 3), its ACL
                outcome = _not_run(planned, run_id, exc)    # refusing us: said, nothing ran
            outcome = outcome or _not_run(planned, run_id)
    flush_images(upfront + outcome.results, services.artifacts)   # (and say what it lost)
    summary = _summary(run_id, t_start, upfront + outcome.results, outcome, chosen, units,
                       settings.fail_on_skip, services.cache_note)
    remember(settings, summary, run_dir, refused=outcome.refused is not None)
    unwritten = write_outputs(summary, run_dir, junit_xml, alluredir, files_after_run(
        settings, cases, batches, summary, env, run_dir), state_dir=settings.state_dir)
    history.record(outcome.results)     # (the cases a Ctrl-C cut short are not recorded)
    _end_log(handler, summary, outcome.refused, unwritten)
    print_end(summary, run_dir, out, outcome.refused, outcome.warnings, settings.fail_on_skip)
    export_metrics(settings, run_dir, tally, [] if outcome.refused else summary.cases, server)
    return _exit_code(summary, unwritten)


def _end_log(handler: logging.Handler, summary: RunSummary | None = None,
             refused: Exception | None = None, unwritten: Sequence[str] = ()) -> None:
    """farm.log ends: a model request given up at its timeout whose late answer (counted for
    its spend while the run lasts) has not come is not waited for: the log says which; then
    how the ``summary``'s run ended, as the console's tally says it, and its exit code (its
    last lines were TIMING ones: nothing there said whether the run passed)."""
    watch = sys.modules.get("farm.llm.request_watch")   # (a run that asked no model never
    if watch is not None:                               # loaded it: it loads no more now)
        watch.run_ended()
    if summary is not None:
        log.info("RUN ENDED %s; exit code %d",
                 summary_line(summary, str(refused) if refused else None).removeprefix("farm: "),
                 summary.exit_code or (3 if unwritten else 0))
    drop_handler(handler)


def _app_server(settings: Settings) -> AppServer:
    """The run's server of suite apps; a serve host it cannot use named where it was set
    (farm.toml:3 serve_host, FARM_SERVE_HOST)."""
    return AppServer(settings.serve_host, settings.serve_url_host, settings.named("serve_host"))


def _start_model_import(settings: Settings) -> None:
    """A run with a model (not a cluster's: its workers' models serve) begins importing
    litellm in the background as it starts: seconds it would otherwise wait for at
    `_check_models` overlap reading the suites."""
    if settings.model and not settings.broker_url:
        from farm.llm.litellm_client import start_import
        start_import()


def _check_models(settings: Settings, out: IO[str]) -> None:
    """Model settings that cannot work (a provider litellm cannot tell, no API key) stop the
    run before any device starts (exit 4); nothing is sent. A cluster run's cases use each
    worker's model, not this one. A wait for litellm's import is said on ``out``, once."""
    if settings.model and not settings.broker_url:
        from farm.llm.models import check_models
        check_models(settings, lambda said: print(f"farm: {said}", file=out, flush=True))


def _check_devices(settings: Settings, specs: list[DeviceSpec], cases: list[Case]) -> None:
    """Devices that cannot start whatever the cases do (no Chromium where a browser is to run,
    a FARM_CHROMIUM_PATH that is none) stop the run before it starts anything (exit 4), the
    problem said first. A cluster run's devices are the workers'."""
    if settings.broker_url:
        return
    from farm.report.paths import check_tmpdir
    check_tmpdir()      # (a TMPDIR that is no folder: every browser failed to launch)
    from farm.devices.specs import check_browser
    # (a first `ai` step may replay a cached plan with no model: its device may be needed)
    runnable = {c.platform for c in build_units(cases)
                if settings.model or skipped_before_start(c, lambda _step: True) is None}
    check_browser([s for s in specs if s.platform in runnable], settings)
    if any(s.kind == "browser" and s.platform in runnable for s in specs):
        from farm.devices.browser import no_display     # FARM_HEADLESS=false, no $DISPLAY
        if (problem := no_display(settings)) is not None:
            raise ConfigError(problem)


def _exit_code(summary: RunSummary, unwritten: list[str]) -> int:
    """The run's code, after saying on stderr what went wrong beyond its cases: an output not
    written (3, infrastructure, unless the cases already made the run's code nonzero). An
    executor refused up front has its code in ``summary.exit_code`` already, and
    `farm.run_console.print_end` said why, before the tally of the cases it left unrun."""
    for what in unwritten:
        print(f"farm: error: not written: {what}", file=sys.stderr)
    return summary.exit_code or (3 if unwritten else 0)


def _collect(paths: Sequence[str | Path], settings: Settings, verbose: bool,
             out: IO[str]) -> tuple[list, list[Case], list[Batch]]:
    """(suites, their cases with the command line's overrides, Midscene batch files);
    -v lists what was skipped, and so does a run that found no case (the first ten: why).
    A run with a model begins importing litellm meanwhile (`_start_model_import`)."""
    _start_model_import(settings)
    skipped: list[str] = []
    warnings: list[str] = []
    batches: list[Batch] = []
    from farm.suite.vars import cluster_load
    try:       # (a cluster run leaves its cases' secrets it has not to the workers: from_workers)
        with cluster_load() if settings.broker_url else nullcontext():
            suites = load_suites([Path(p) for p in paths], env=os.environ,
                                 secrets_dir=settings.secrets_dir, skipped=skipped,
                                 warnings=warnings, batches=batches)
    except Exception:       # the load's mistakes are said next: its warnings first (one may
        for warning in warnings:    # be why: a timeout in the wrong unit, a secret's case)
            print(printable(f"farm: warning: {warning}"), file=out)
        raise
    shown = skipped if verbose else skipped[:10] if not any(s.cases for s in suites) else []
    for what in shown:
        print(printable(f"farm: skipped {what}"), file=out)
    if len(shown) < len(skipped) and shown:
        print(f"farm: ... and {len(skipped) - len(shown)} more skipped (-v lists them)", file=out)
    for warning in warnings:
        print(printable(f"farm: warning: {warning}"), file=out)
    return suites, _with_overrides([c for s in suites for c in s.cases], settings), batches


_DEVICE_KIND = {"web": "browser", "android": "android", "ios": "ios"}


def _batch_settings(batches: list[Batch], cases: list[Case], devices: str, choice: Choice,
                    settings: Settings, out: IO[str]) -> tuple[str, Choice, BatchScope]:
    """A Midscene batch file's ``concurrent`` and ``continueOnError: false``, for its own files
    only (`batch_scope`): a batch with no file in the run changes nothing; a run of the batch
    alone is capped at its ``concurrent`` devices per platform (the count without --devices)
    and a failed file stops it (--maxfail 1), as ``midscene --config`` runs it; with other
    cases beside it, its files run in its order (``concurrent: 1``: farm.schedule) or in
    ``concurrent`` lanes, the other cases on every device, and a failed file stops its batch's
    files only (`farm.shared_context.BatchStop`)."""
    scope = batch_scope(batches, cases, {c.id for c in select_cases(cases, SelectOptions(
        keyword=choice.keyword, tags=choice.tags, exclude_tags=choice.exclude_tags)).selected})
    if not scope.live:
        return devices, choice, scope
    concurrent = sum(b.concurrent for b in scope.live)
    if scope.alone and choice.devices_given:
        devices = ",".join(s.written(concurrent) for s in parse_device_specs(devices, settings))
    elif scope.alone:
        listed = {cid for b in scope.live for cid in b.case_ids}
        platforms = sorted({c.platform for c in cases if c.id in listed})
        devices = ",".join(f"{_DEVICE_KIND[p]}:{concurrent}" for p in platforms) or devices
    whole = scope.whole_run and choice.maxfail is None      # (else --maxfail N is the user's)
    if whole:
        choice = replace(choice, maxfail=1)
    for b in scope.live:
        print(f"farm: {b.file}: concurrent {b.concurrent}"
              + (f" (--devices {devices})" if scope.alone else _beside(b))
              + ("" if b not in scope.stops or scope.whole_run and not whole else
                 ", continueOnError false: no file starts after a failure" if whole else
                 ", continueOnError false: none of its files starts after one of them failed"
                 " (the run's other cases go on)"), file=out)
        shared = [c for c in cases if c.shared and c.shared.unit_id == b.unit_id]
        if shared:
            print(f"farm: {b.file}: shareBrowserContext: its {len(shared)} web file(s) run as "
                  f"one unit ({b.unit_id}): on one device, in order"
                  + (f" ({Path(b.setup).name}, the setup, first)" if b.setup else "")
                  + ", in one browser context", file=out)
    return devices, choice, scope


def _beside(batch: Batch) -> str:
    """How a batch's ``concurrent`` holds in a run with other cases beside its files."""
    if batch.concurrent == 1:
        return ": its files one at a time, in its order"
    return f": at most {batch.concurrent} of its files at once"


def _dotenv_credentials() -> dict[str, str]:
    """The credential-named values of the working directory's ``.env`` (API_TOKEN=...), also
    those no case refers to: a page, a script or a model can still show one, and it is masked
    like the same variable set in the environment (a case gets only the ``.env`` values it
    refers to: farm.suite.dotenv)."""
    from farm.config import is_credential
    from farm.suite.dotenv import DOTENV, read_dotenv
    return {name: value for name, value in read_dotenv(DOTENV).items()
            if is_credential(name, value)}


def _served_folders(cases: list[Case]) -> list[AppSpec]:
    """``web.serve`` folders: each served on its own loopback port for the run."""
    folders = {c.web.serve for c in cases if c.web is not None and c.web.serve is not None}
    return [AppSpec(name=f"serve-{f.name}", serve=f) for f in sorted(folders)]


def _serve_only(own: list[AppSpec], suite_apps: list[AppSpec]) -> frozenset[Path]:
    """The folders served for cases' ``web.serve`` (``own``) and not also as a suite's app."""
    apps = {Path(a.serve).resolve() for a in suite_apps if a.serve is not None}
    return frozenset(Path(f.serve) for f in own) - apps


def _with_overrides(cases: list[Case], settings: Settings) -> list[Case]:
    """--retries wins over the suites' own; --timeout / FARM_DEFAULT_TIMEOUT over a farm.yaml's
    ``timeout:``, not over a case's own (its author's word for that case)."""
    return [c.model_copy(update={
        "timeout": c.timeout if c.own_timeout or not settings.default_timeout
        else settings.default_timeout,
        "retries": c.retries if settings.retries is None else settings.retries}) for c in cases]


def _plan(cases: list[Case], settings: Settings, run_id: str, remembered: dict[str, list[float]],
          services: Services | None = None, lanes: Mapping[str, tuple[str, int]] | None = None
          ) -> tuple[list[CaseResult], list[Job], list[Case]]:
    """(results decided before any device starts, jobs to run, the cases they are for) for
    the selected cases; a shared-context batch's files are one unit, so one job
    (farm.shared_context). A case whose very first step needs a model is skipped here when
    this process would run it without one (a later such step: the case runs up to it, and
    farm.runner skips the rest), unless it is an ``ai`` step whose plan ``services``' cache
    holds (replayed with no model); in a cluster run each worker's own model settings decide."""
    upfront: list[CaseResult] = []
    jobs: list[Job] = []
    cases = build_units(cases)
    cached = plan_cached_up_front(services) if services is not None and not settings.model \
        else None
    for case in cases:
        step = skipped_before_start(case, cached and partial(cached, case))
        if step is not None and not settings.model and not settings.broker_url:
            upfront.append(_upfront_result(
                case, run_id, f"needs a model (set FARM_MODEL): {step.kind} at line "
                              f"{step.line}", step.line))
        else:
            # a concurrent: 1 batch's files run in its order; a concurrent: N one's in N lanes
            order = (case.in_order.batch, case.in_order.place) if case.in_order else None
            sequence, place = order or (lanes or {}).get(case.id) or (None, 0)
            jobs.append(Job(case.id, case.platform, expected_duration(
                remembered, case.id, case.platform, settings.default_case_seconds),
                test_retries=case.retries, pin=case.pin, sequence=sequence, place=place))
    return upfront, jobs, cases


def _select(cases: list[Case], specs: list[DeviceSpec], settings: Settings, choice: Choice,
            devices: str, out: IO[str]) -> Selection:
    """The run's cases after -k, tags, platforms without a device, --shard and --last-failed
    (farm/select.py); cases for a platform with no device get one line per platform.
    A run without --devices runs on the default devices (browser:1) and deselects the rest
    as --devices browser:1 would; only --collect-only lists every platform then."""
    state = Path(settings.state_dir)
    # a run without --devices: its default, said as such (the user gave no "--devices browser:1")
    said = devices if choice.devices_given else f"{devices} (the default: no --devices given)"
    shard = parse_shard(choice.shard) if choice.shard else None
    if choice.shard_timings is not None and shard is None:
        raise ConfigError("--shard-timings is for sharded runs: give --shard I/N too")
    # a shard is planned on the cases left after the platforms: --collect-only previews that
    by_devices = choice.devices_given or not choice.collect_only or shard is not None
    opts = SelectOptions(
        keyword=choice.keyword, tags=choice.tags, exclude_tags=choice.exclude_tags,
        last_failed=load_failures(state) if choice.last_failed else None,
        last_skipped=load_skipped(state) if choice.last_failed else (),
        unfinished=unfinished_runs(settings) if choice.last_failed else None,
        platforms={s.platform for s in specs} if by_devices else None,
        devices=said, shard=shard,
        shard_timings=read_timings(choice.shard_timings) if choice.shard_timings else None,
        collect_only=choice.collect_only)
    # shards are planned on the suite (or the timings every job is given), never on this
    # machine's remembered durations
    chosen = select_cases(cases, opts)
    by_platform: dict[str, int] = {}
    for d in chosen.deselected:
        if d.reason.startswith("no ") and d.reason.endswith(f"--devices {said}"):
            by_platform[d.case.platform] = by_platform.get(d.case.platform, 0) + 1
    for platform, n in sorted(by_platform.items()):
        chosen.notes.append(f"deselected {n} {platform} case(s): " + (
            f"no {platform} device in --devices {devices}: add {_DEVICE_KIND[platform]}:1"
            + _simulated(platform, bool(settings.broker_url)) if choice.devices_given else
            _no_devices_note(platform, devices, bool(settings.broker_url))))
    for note in chosen.notes:
        print(f"farm: {note}", file=out)
    return chosen


def _notes(choice: Choice, out: IO[str]) -> IO[str]:
    """Where a run's lines that are not its cases go: --collect-only's standard output is its
    case lines alone (`| wc -l`, `| xargs`), its notes (warnings, deselected, the count) on
    stderr; a run's, and an ``out`` a caller gave, take them all."""
    return sys.stderr if choice.collect_only and out is sys.stdout else out


def _collect_only(chosen: Selection, specs: list[DeviceSpec], devices: str, choice: Choice,
                  settings: Settings, remembered: Mapping[str, list[float]], verbose: bool,
                  out: IO[str], notes: IO[str] | None = None) -> int:
    """--collect-only's listing (on ``out``) and code, then what a run without --devices
    would leave out (on ``notes``, with every line that is not a case's)."""
    notes = notes or _notes(choice, out)
    code = _print_collection(chosen, out, remembered, settings, choice.matrix_groups, verbose,
                             notes)
    if (left := _left_by_default(chosen, specs, devices, choice, settings)) is not None:
        print(f"farm: {left}", file=notes, flush=True)
    return code


def _left_by_default(chosen: Selection, specs: list[DeviceSpec], devices: str, choice: Choice,
                     settings: Settings) -> str | None:
    """--collect-only without --devices lists every platform's cases, but the run itself takes
    ``devices`` (browser:1) alone and deselects the phone cases: "16 case(s) collected, 0
    deselected" was followed by a run of 12. What the run would leave out, said without asking
    any device (no adb server probed). A --broker run's devices are its workers' (--matrix
    says what it would run on each of their groups)."""
    if choice.devices_given or not choice.collect_only or settings.broker_url:
        return None
    have = {s.platform for s in specs}
    left = Counter(c.platform for c in chosen.selected if c.platform not in have)
    if not left:
        return None
    each = ", ".join(f"{n} {p}" for p, n in sorted(left.items()))
    kinds = sorted(_DEVICE_KIND[p] for p in left)
    real = ",".join([devices] + [f"{k}:1" for k in kinds])
    sims = f", or --devices {','.join([devices] + [f'{k}-sim:1' for k in kinds])} (simulated)"
    return (f"a run without --devices takes {devices} alone and would deselect "
            f"{sum(left.values())} of these ({each}): give --devices {real}{sims}")


def _no_devices_note(platform: str, devices: str, broker: bool) -> str:
    """Why a platform's cases were deselected in a run without --devices. A --broker run's
    devices are the cluster workers' (it said "farm runs on browser:1 alone", as if on this
    machine): there the default --devices names only the platforms the run takes, and how
    many cluster devices it may hold at once."""
    kind = _DEVICE_KIND[platform]
    both = f"(--devices {devices},{kind}:1 runs both)"
    if broker:
        return (f"no --devices given, and without it a --broker run takes only {devices} of "
                f"the cluster's devices (its workers pick which): give --devices {kind}:1 "
                f"{both}")
    return f"no --devices given, and without it farm runs on {devices} alone: give " \
        f"--devices {kind}:1 {both}{_simulated(platform, broker)}"


def _simulated(platform: str, broker: bool) -> str:
    """The simulators farm starts itself, beside the real phones a hint names: on a machine
    with no adb server, ``--devices android:1`` stopped the run (exit 4) with no word of
    ``android-sim:1``. A --broker run's devices are its workers' own: none said there."""
    if broker or platform == "web":
        return ""
    phones = "phones" if platform == "android" else "iPhones"
    return f", or {platform}-sim:1 for simulated {phones} farm starts itself"


def _print_collection(chosen: Selection, out: IO[str], remembered: Mapping[str, list[float]],
                      settings: Settings,
                      matrix: Mapping[str, Sequence[str]] | str | None = None,
                      verbose: bool = False, notes: IO[str] | None = None) -> int:
    """--collect-only: the cases a run would take (and their expected seconds, from the
    duration history ``remembered``; ``default`` for a case that never ran here, which the
    total says), and with -v the ones it would leave out, a line each (else only how many,
    as pytest: 360 of them buried the 40 taken); with --matrix, each case's run per device
    group of the cluster (``case@group``, as its results are named); how many would be
    skipped before they start (`_would_skip`). Exit 5 when none is left, as the run itself
    (and pytest --collect-only) would; 1 when --fail-on-skip would fail the run so. The case
    lines go to ``out``, every other line to ``notes`` (stderr for `farm run`)."""
    notes = notes or out
    out.flush()         # (both into one file: the cases first, as before)
    groups, default = matrix if isinstance(matrix, Mapping) else {}, settings.default_case_seconds
    in_order = sorted(chosen.selected, key=lambda c: (c.shared.unit_id, c.shared.order)
                      if c.shared else (c.id, 0))     # a shared-context unit's files as they run
    for case in in_order:
        shared = (f"  [one unit: {case.shared.unit_id} {case.shared.order + 1}"
                  f"{', setup' if case.shared.setup else ''}]" if case.shared else "")
        for cid, name in matrix_runs(case, groups) or [(case.id, case.name)]:
            name = name.replace("\r", "\\r").replace("\n", "\\n")   # one line a case
            print(printable(f"{cid}  [{case.platform}]  {name}  "
                            f"({display_path(case.file)}){shared}"), file=out)
    for d in chosen.deselected if verbose else ():
        print(printable(f"deselected: {d.case.id}  [{d.case.platform}]  {d.reason}"),
              file=notes)
    total = sum(expected_duration(remembered, c.id, c.platform, default)
                * max(1, len(matrix_runs(c, groups))) for c in chosen.selected)
    new = sum(f"{c.platform}:{c.id}" not in remembered for c in chosen.selected)
    guessed = f"; {new} never ran here, {default:g}s each assumed" if new else ""
    print(f"farm: {len(chosen.selected)} case(s) collected (expected {total:.1f}s of device "
          f"time, summed over the cases{guessed}), "
          f"{len(chosen.deselected)} deselected", file=notes, flush=True)
    if matrix is not None and chosen.selected:
        print(printable(f"farm: {matrix_note(chosen.selected, matrix)}"), file=notes,
              flush=True)
    sure = _say_would_skip(chosen.selected, settings, notes)
    if sure and settings.fail_on_skip:
        return 1
    return 0 if chosen.selected or chosen.empty_shard else 5


def _say_would_skip(cases: list[Case], settings: Settings, out: IO[str]) -> int:
    """--collect-only: how many of ``cases`` (files) the run would skip, no model being set:
    before they start, as `_plan` does (a first step that needs one), or when they reach a
    step that needs one (unless an earlier step fails them); those whose step is an ``ai``
    step the plan cache may replay said apart. The count of the sure ones."""
    if settings.model or settings.broker_url:
        return 0
    first = [s for c in cases for s in [next((s for s in c.steps if s.needs_model), None)] if s]
    maybe, sure = len(first), sum(1 for s in first if s.spec.call != "ai_act")
    if not maybe:
        return 0
    before = sum(max(1, len(u.parts)) for u in build_units(cases)
                 if skipped_before_start(u) is not None)
    when = f"{before} before they start, {maybe - before} when they reach it" if before and \
        before < maybe else "before they start" if before else "when they reach it"
    ai = (f"; {maybe - sure} of them unless the plan cache holds their ai step's plan"
          if maybe > sure else "")
    code = (f": the run {'would' if sure else 'could'} exit 1 (--fail-on-skip)"
            if settings.fail_on_skip else "")
    print(f"farm: {maybe} case(s) would be skipped ({when}): a step needs a model (set "
          f"FARM_MODEL){ai}{code}", file=out, flush=True)
    return sure


def _deselected(case: Case, reason: str) -> DeselectedCase:
    return DeselectedCase(case_id=case.id, name=case.name, file=display_path(case.file),
                          platform=case.platform, reason=reason, tags=case.tags)


def _with_secrets_dir(by_id: dict[str, Case], services: Services,
                      settings: Settings) -> dict[str, Case]:
    """A cluster run's cases, each with the secrets-dir values it refers to (the run's
    FARM_SECRETS_DIR: a worker may have none) sent as its environment's are, and named in its
    ``secrets:`` so that the worker hides them too; the run's environment still wins."""
    if settings.secrets_dir is None:
        return by_id
    from farm.cluster.jobs import env_for
    from farm.suite.vars import read_secrets_dir
    from_dir = {k: v for k, v in read_secrets_dir(settings.secrets_dir).items()
                if k not in services.env}
    services.env = {**from_dir, **services.env}
    return {cid: case.model_copy(update={"secrets": list(dict.fromkeys(
        [*case.secrets, *env_for(case, from_dir)]))}) for cid, case in by_id.items()}


def _executor(settings: Settings, specs: list[DeviceSpec], cases: list[Case],
              services: Services, matrix: bool, suites: list, served: dict[Path, str],
              env: dict[str, str], jobs: list[Job], stack: ExitStack,
              upfront: list[CaseResult]) -> Executor:
    """The cluster executor when a broker is configured, else local devices (simulators
    started for the run as needed). A case pinned to a phone that is not there leaves
    ``jobs`` for ``upfront``, as an error (`_end_missing_pins`)."""
    policy = RetryPolicy(infra_retries=settings.infra_retries)
    by_id = {c.id: c for c in cases}
    if settings.broker_url:     # cluster: the same outputs, from `farm worker`s
        pinned = next((c for c in cases if c.pin), None)
        if pinned is not None:
            raise ConfigError(f"{display_path(pinned.file)}: pins device {pinned.pin} "
                              "(deviceId / wdaHost / wdaPort): pinned cases run with local "
                              "devices only, not on a cluster")
        from farm.devices.specs import refuse_named
        refuse_named(specs, "farm run --broker")
        from farm.cluster import store
        from farm.executors.celery import CeleryExecutor, check_broker
        store.use_prefix(settings.cluster_prefix)   # (a refused PING's grant names the keys)
        check_broker(settings)      # a broker not answering yet is waited for (exit 3)
        if settings.model:
            print("farm: warning: the model of this run (--model / FARM_MODEL) is not sent to "
                  "the workers: in a cluster run ai steps use each `farm worker`'s own model "
                  "settings (FARM_MODEL, FARM_MODEL_BASE_URL and its key where it runs)",
                  file=sys.stderr)
        return CeleryExecutor(settings, _with_secrets_dir(by_id, services, settings),
                              services, policy, specs, matrix=matrix)
    from farm import scratch
    from farm.devices.specs import SIM_KINDS, check_pins, make_devices
    from farm.executors.local import LocalExecutor
    scratch.own()   # Playwright's and Chromium's folders in the run's own (`farm.scratch`):
    stack.callback(scratch.leave)   # removed last, once its devices and simulators closed
    specs = _enough(specs, jobs, matrix)
    if (crowded := crowded_browsers(specs, _cores())) is not None:
        print(f"farm: note: {crowded}", file=sys.stderr)
    sims = None
    if any(s.kind in SIM_KINDS for s in specs):
        from farm.devices.sim.fleet import SimFleet      # not imported by other runs
        sims = SimFleet(*_mobile_app_urls(suites, served, env),
                        chromium_path=str(settings.chromium_path or "") or None)
        stack.callback(sims.stop)
    devices = make_devices(specs, settings, sims=sims,
                           pins=frozenset((j.platform, j.pin) for j in jobs if j.pin is not None))
    missing = check_pins({display_path(by_id[j.case_id].file): (j.platform, j.pin)
                          for j in jobs if j.pin is not None}, devices, missing_ok=True)
    _end_missing_pins(missing, jobs, upfront, by_id, services.run_id)
    return LocalExecutor(devices, by_id, services, policy)


def crowded_browsers(specs: Sequence[DeviceSpec], cores: int) -> str | None:
    """What to say when a local run starts more than two browsers per CPU core (browser:8 on
    2 cores: every case 1.3-3.4 times slower, 5.7 GB of Chromium, waits near their timeouts);
    None when it does not. A cluster run's browsers are on the workers' cores."""
    browsers = sum(s.count for s in specs if s.kind == "browser")
    if cores < 1 or browsers <= 2 * cores:
        return None
    return (f"{browsers} browsers on {cores} core{'s' if cores > 1 else ''}: cases will be "
            f"slower (waits may time out); --devices browser:{2 * cores} or fewer is faster "
            "here")


def _cores() -> int:
    """The CPU cores this process may use (a container's or taskset's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):       # (macOS, Windows)
        return os.cpu_count() or 0


def _end_missing_pins(missing: dict[str, ConfigError], jobs: list[Job],
                      upfront: list[CaseResult], by_id: dict[str, Case], run_id: str) -> None:
    """Cases pinned to a serial the adb server does not have (``missing``: file → its
    "no such device" error) end as that error, each alone, before the run starts: their jobs
    leave ``jobs`` and their results join ``upfront``; the other cases run. (A phone that is
    there but the run did not take stays the run's error: a command-line mistake.)"""
    if not missing:
        return
    ended: set[str] = set()
    for job in [j for j in jobs if display_path(by_id[j.case_id].file) in missing]:
        jobs.remove(job)
        if job.case_id not in ended:
            ended.add(job.case_id)
            case = by_id[job.case_id]
            result = synthetic(case, run_id, 1, "error", error=missing[display_path(case.file)])
            result.line = case.pin_line or result.line      # the line its message names
            upfront.append(result)


def _enough(specs: list[DeviceSpec], jobs: list[Job], matrix: bool) -> list[DeviceSpec]:
    """No more devices farm starts itself (browsers, simulators) of a platform than the run
    has jobs for (browser:8 for one case started 8 Chromiums: 6 s against 1.9), nor any of a
    platform it has none for. Phones already attached (android:N, ios:N) are all taken, as
    asked (too few of them ready is an error whatever the cases); so is every device of a
    matrix run, or of one with pinned cases."""
    wanted = Counter(j.platform for j in jobs)
    if matrix or any(j.pin is not None for j in jobs):
        return [s for s in specs if wanted[s.platform]]
    kept, left = [], wanted.copy()
    for spec in specs:
        if not wanted[spec.platform]:
            continue
        attached = spec.kind in ("android", "ios")
        count = spec.count if attached else max(0, min(spec.count, left[spec.platform]))
        left[spec.platform] -= count
        if count:
            kept.append(replace(spec, count=count))
    return kept


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
                self.executor.stop_taking(f"{MAXFAIL_REASON}{self.limit} reached")


def _budget(events: Any, executor: Executor, settings: Settings | None) -> ModelBudget | None:
    """The run's model budget around ``events``, when it has one."""
    if settings is None or settings.max_model_cost is settings.max_model_tokens is None:
        return None
    cost, tokens = (settings.named(n) if settings.source(n) else flag_of(n)   # as set
                    for n in ("max_model_cost", "max_model_tokens"))
    return ModelBudget(events, executor, settings.max_model_cost, settings.max_model_tokens,
                       (cost, tokens))


def _journal(run_dir: Path, run_id: str, planned: list[Case], chosen: Selection
             ) -> JournalEvents:
    """The run's journal, opened with the cases it plans to run (a shared-context unit's
    files too: a unit farm is killed in is rebuilt as its files) and those it left out
    (`farm.journal`)."""
    return JournalEvents(None, run_dir, run_id, [
        (c.id, c.name, display_path(c.file), c.platform) for c in planned],
        [_deselected(d.case, d.reason) for d in chosen.deselected],
        {c.id: [(p.id, p.name, display_path(p.file), sum(len(t.steps) for t in p.tasks))
                for p in c.parts]
         for c in planned if c.parts}, shard=chosen.shard, cwd=_cwd(),
        run_group=run_group_from_env())


def _not_run(planned: list[Case], run_id: str,
             refused: UserError | BrokerLost | None = None) -> RunOutcome:
    """The outcome of a run whose cases never started: the executor was ``refused`` (no broker
    there: each case an error, "not run"), or a stop signal came first (each case skipped)."""
    if refused is not None:     # (farm.log says it too, as stderr will: it was left empty)
        log.error("%s", refused)
        return RunOutcome(refused=refused, results=[
            synthetic(c, run_id, 1, "error", reason="not run", error=refused) for c in planned])
    return RunOutcome(interrupted=True, results=[
        synthetic(c, run_id, 1, "skipped", reason=NOT_RUN_INTERRUPTED[0]) for c in planned])


def _execute(executor: Executor, jobs: list[Job], upfront: list[CaseResult],
             journal: JournalEvents, progress: bool, out: IO[str], tally: metrics.CaseMetrics,
             choice: Choice | None = None, settings: Settings | None = None,
             early: EarlyStop | None = None,
             remembered: Mapping[str, list[float]] | None = None,
             scope: BatchScope | None = None) -> RunOutcome | None:
    """Run the jobs; None when a stop signal came before they started (``early``). A
    UserError the executor raises (the broker's ACL refusing the run's user) comes before any
    case starts: the caller makes every planned case "not run". ``remembered``: the duration
    history, for the time the progress view says is left."""
    maxfail = choice.maxfail if choice else None
    from farm.progress import make_progress, recent_retry_odds
    view = make_progress(len(upfront), len(jobs), progress, expected={
        j.case_id: j.expected_seconds if f"{j.platform}:{j.case_id}" in (remembered or {})
        else None for j in jobs}, retry_odds=recent_retry_odds(settings, jobs)
        if settings is not None and progress else None,   # (likely retries: time left)
        shard="/".join(map(str, parse_shard(choice.shard))) if choice and choice.shard else None)
    journal.inner = CaseLog(view)     # (farm.log: each case's start and end)
    tally.inner = journal
    events: Any = tally     # every final result is counted once, then journaled and shown
    if maxfail:
        events = _MaxFail(events, executor, maxfail)
    if scope is not None and scope.stops and not scope.whole_run:
        events = BatchStop(events, executor, batch_stops(scope.stops, [j.case_id for j in jobs]))
    budget = _budget(events, executor, settings)
    events = budget or events
    metrics.watch_queue(executor.queued)
    view.start()
    try:
        for r in upfront:
            events.case_finished("-", r, final=True)
        log.info("TIMING startup=%.3f", _since_process_start())
        with StopSignals(executor, out):
            if early is not None and early.name:     # (stopped before StopSignals took over)
                return None
            outcome = executor.run(jobs, events)
    finally:
        metrics.watch_queue(None)
        view.stop()
        journal.close()
    if budget:
        outcome.stopped = budget.reached
        outcome.warnings += [w for w in (budget.unpriced, budget.beyond()) if w]
    if outcome.launch_seconds:
        log.info("TIMING launch=%.3f", max(outcome.launch_seconds.values()))
    if outcome.first_start is not None and outcome.last_end is not None:
        log.info("TIMING cases=%.3f", outcome.last_end - outcome.first_start)
    return outcome


LATE_STOP = ("the stop came after the last case had ended: no case was cut short, so the run "
             "is not interrupted and its exit code is its results'")


def _summary(run_id: str, t_start: float, results: list[CaseResult], outcome: RunOutcome,
             chosen: Selection | None = None, units: list[Case] = (),
             fail_on_skip: bool = False, cache_note: str | None = None) -> RunSummary:
    """The run's summary, one result per case file (a shared-context unit's split up); with
    ``fail_on_skip`` (--fail-on-skip) a run whose code would be 0 with a case skipped is 1 (and
    a failed run's skips are said as failing it too)."""
    results = sorted(expand(results, {u.id: u for u in units}), key=lambda r: r.case_id)
    # a stop that came after the last case had ended (a CI runner's SIGTERM as the run wrote
    # its last result) cut nothing short: the run is whole, its exit code the results' (it
    # was 2 under "1 passed", with an "interrupted" report banner over a complete run)
    cut = any(r.status == "interrupted" or (r.status == "skipped"
                                            and r.reason in NOT_RUN_INTERRUPTED)
              for r in results)
    if outcome.interrupted and not cut:     # its "stopping; in-flight cases end interrupted"
        outcome.warnings.append(LATE_STOP)  # is taken back, or exit 0 would contradict it
    outcome.interrupted = outcome.interrupted and cut
    devices, info = devices_of(outcome.results)
    summary = RunSummary(run_id=run_id, started=datetime.fromtimestamp(
        time.time() - (time.monotonic() - t_start)).astimezone().isoformat(timespec="seconds"),
        finished=now_iso(), duration=round(time.monotonic() - t_start, 3),
        devices=devices, device_info=info, cases=results,
        interrupted=outcome.interrupted, farm_version=metrics.build_version(),
        quarantined=sorted(outcome.quarantined), lost=dict(sorted(outcome.lost.items())),
        deselected=[_deselected(d.case, d.reason) for d in chosen.deselected] if chosen else [],
        shard=chosen.shard if chosen else None, cwd=_cwd(), run_group=run_group_from_env())
    summary.recount()
    summary.cache = {"renewed": cache_note} if cache_note else None     # (a corrupt cache.db)
    summary.stopped = outcome.stopped if not_run(summary, outcome.stopped) else None
    summary.exit_code = (getattr(outcome.refused, "exit_code", 4) if outcome.refused else
                         exit_code_for(results, outcome.interrupted)
                         or (3 if summary.stopped else 0))
    summary.fail_on_skip = fail_on_skip
    if fail_on_skip and summary.exit_code == 0 and summary.counts["skipped"]:
        summary.exit_code = 1
    if fail_on_skip and (failed_by_skips := skips_failed_text(summary)):   # (a failed run's
        log.warning("%s", failed_by_skips)     # skips too: fixing its failure leaves it red)
    return summary


def _cwd() -> str | None:
    """The working directory the run's case files are named relative to (results.json's
    ``cwd``: the report links them from wherever it is rebuilt); None when it was deleted."""
    try:
        return os.getcwd()
    except OSError:
        return None
