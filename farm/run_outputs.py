"""What a run leaves on disk and what later runs remember of it: the run's directory (checked
before any device starts), results.json, junit.xml, report.html, --junit-xml, --alluredir, the
cases' ``output:`` files and the batches' ``summary:`` files, each written on its own (one that
cannot be written costs only itself); then the state directory's memory of the run: the
results history, the failed cases (--last-failed), quarantined devices, old run directories
pruned."""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import secrets as _random
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from farm.cache.run_store import RECORD as STORE_RECORD
from farm.config import Settings
from farm.errors import ConfigError, UserError
from farm.journal import JOURNAL, claim, conclude, writer, writer_of
from farm.report.paths import check_outputs, writable_dir as _writable_dir
from farm.results import CaseResult, RunSummary, write_json
from farm.results_history import ResultsStore, RunRecord, remember_run
from farm.suite.loader import display_path
from farm.suite.model import Batch, Case
from farm.suite.vars import Variables

if TYPE_CHECKING:
    from farm.select import Unfinished

log = logging.getLogger("farm")


def new_run_id() -> str:
    """A run's id and the name of its directory: its start time and 4 random hex digits."""
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + _random.token_hex(2)


def output_dirs(settings: Settings, run_id: str, overwrite: bool,
                junit_xml: Path | None = None, alluredir: Path | None = None,
                cases: int = 0) -> Path:
    """The run's directory, checked before any device starts: state and report directories
    must be writable directories, and a report directory holding a run is only reused with
    ``overwrite`` (its old results are removed, so nothing stale mixes in); --junit-xml and
    --alluredir must be writable too (not found out after the run). A --junit-xml an earlier
    run wrote is replaced at once by one saying this run has not finished (`unfinished_junit`).
    Room for the results of ``cases`` cases is kept aside on the run's disk (`keep_room`)."""
    run_dir = _run_dir(settings, run_id, overwrite, junit_xml, alluredir)
    _BEGUN[run_dir] = _identity(run_dir)
    if junit_xml is not None:
        unfinished_junit(Path(junit_xml), run_id, run_dir)
    if cases:
        try:
            keep_room(run_dir, cases)
        except ConfigError:     # refused (exit 4): its new folder under runs/ goes with it
            if not settings.report_dir:
                _give_back(run_dir)
            raise
    return run_dir


_BEGUN: dict[Path, tuple[int, int] | None] = {}     # each run's directory as it began


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _deleted(run_dir: Path) -> list[str]:
    """The run's directory, when it is not the one the run began in (deleted while the run
    went on: `rm -rf .farm/runs/<id>`): what went with it, for the run's end to name (exit 3;
    the run ended 0, saying only that 2 screenshots were not written, its farm.log and
    journal gone and its report missing 56 images)."""
    begun = _BEGUN.get(run_dir)
    if begun is None or _identity(run_dir) == begun:
        return []
    return [f"{run_dir / name}: the run's directory was deleted while the run went on"
            for name in ("farm.log", JOURNAL)] + [
        f"{run_dir}: the screenshots taken before then, deleted with it (the report marks "
        "them missing)"]


def _give_back(run_dir: Path) -> None:
    """A run refused before it began: its folder under ``<state dir>/runs``, made for it, is
    removed with the journal it claimed it with (an empty folder was left for each try)."""
    from farm.journal import HEARTBEAT
    HEARTBEAT.discard(run_dir / JOURNAL)
    for name in (JOURNAL, ROOM):
        try:
            (run_dir / name).unlink(missing_ok=True)
        except OSError:
            return
    try:
        run_dir.rmdir()
    except OSError:         # (something else is in it: left as it is)
        pass


ROOM = ".farm-room"         # the room kept for the run's results, in its directory
ROOM_PER_CASE = 16 * 1024   # results.json, junit.xml and report.html take ~8 KB a case
ROOM_MAX = 64 * 1024 * 1024


def keep_room(run_dir: Path, cases: int) -> None:
    """Set aside room on the run's disk for what its end writes: a disk that the screenshots
    fill up during the run then still takes results.json, junit.xml and report.html (they are
    what CI reads), where all three were lost; in the state dir (.farm/runs: one disk) the
    results history too. `remember` and `write_outputs` give it back before they write. A
    disk without that much room left stops the run before any device starts (exit 4: it
    would save nothing); a filesystem that cannot set room aside runs without it."""
    import atexit
    size = min(ROOM_PER_CASE * cases + 256 * 1024, ROOM_MAX)
    path = run_dir / ROOM
    try:
        with path.open("wb") as f:
            os.posix_fallocate(f.fileno(), 0, size)
    except (OSError, AttributeError) as exc:   # full already, or no fallocate here
        _no_room_back(path)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise ConfigError(      # (the run would save nothing: its outputs, its history)
                f"no room for the run's results in {run_dir}: {_free(run_dir)} free on its "
                f"disk, {_size(size)} needed for results.json, junit.xml, report.html and the "
                f"results history ({exc.strerror}): free some space there, or run into "
                f"another directory") from None
        log.info("no room kept for the run's results (%s)", exc)
        return
    atexit.register(give_room_back, run_dir)    # a run that ends in an error, before its end


def _no_room_back(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        log.warning("cannot remove %s: %s", path, exc)


def _free(where: Path) -> str:
    """The free space on ``where``'s disk, as ``120 KB``."""
    import shutil
    try:
        return _size(shutil.disk_usage(where).free)
    except OSError:
        return "unknown space"


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n // 1024} KB"


def give_room_back(run_dir: Path) -> None:
    try:
        (run_dir / ROOM).unlink(missing_ok=True)
    except OSError as exc:
        log.warning("cannot remove %s: %s", run_dir / ROOM, exc)


def unfinished_junit(path: Path, run_id: str, run_dir: Path) -> None:
    """--junit-xml while the run goes on: one error saying it has not finished, in place of
    an earlier run's file, which CI took for this run's when farm was killed (a CI timeout,
    kill -9): the last run's passes, green. The run's end writes the real one; a run that
    ends before it plans a case, the one of `not_started_junit`."""
    import atexit
    when = datetime.now().astimezone().isoformat(timespec="seconds")
    try:
        _run_error_junit(path, run_id, run_dir, when, "RunNotFinished", (
            f"farm run {run_id} (started {when}) has not written its results: it is still "
            f"running, or it was stopped before its end (killed: a CI timeout?); `farm report "
            f"{run_dir} --junit-xml {path}` rebuilds them from its journal"))
    except OSError as exc:      # checked writable just now (a full disk): no earlier run's
        try:                    # file left to be taken for this run's
            if path.is_file():
                path.unlink()
        except OSError:
            pass
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):   # the run would save nothing either
            raise ConfigError(f"cannot write --junit-xml {path} ({exc.strerror}; "
                              f"{_free(path.parent)} free on its disk): free some space "
                              f"there, or give another path") from None
        log.warning("cannot write --junit-xml %s at the start: %s", path, exc)
        return      # (gone bad since `check_outputs`: the end says it is not written)
    atexit.register(not_started_junit, path, run_id, run_dir, when)


def not_started_junit(path: Path, run_id: str, run_dir: Path, when: str) -> None:
    """At exit: a run that ended before it planned any case (a --metrics-port in use, a
    setup error: exit 4) leaves nothing to rebuild (its journal goes with it). Its --junit-xml
    says it ran no case, where the placeholder sent CI to `farm report` a run dir with no
    journal ("results.json does not exist")."""
    from farm.journal import JOURNAL, planned
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    ours = f'name="farm run {run_id}"' in text and 'type="RunNotFinished"' in text
    if not ours or (run_dir / "results.json").exists() or planned(run_dir) or \
            not (run_dir / JOURNAL).exists():   # (none: a disk too full; it says so itself)
        return
    try:
        _run_error_junit(path, run_id, run_dir, when, "RunNotStarted", (
            f"farm run {run_id} (started {when}) ended before it ran any case (its error is "
            f"in farm's output: a usage or setup error); there is nothing to rebuild"))
    except OSError as exc:
        log.warning("cannot write --junit-xml %s: %s", path, exc)


def _run_error_junit(path: Path, run_id: str, run_dir: Path, when: str, kind: str,
                     message: str) -> None:
    """``path``: a junit.xml of one error, ``kind``: ``message``, for the run as a whole."""
    from farm.report.junit import write_junit
    from farm.results import CaseError
    case = CaseResult(run_id=run_id, case_id="farm/run", name=f"farm run {run_id}", file="",
                      platform="", status="error", started=when,
                      error=CaseError(kind=kind, message=message))
    summary = RunSummary(run_id=run_id, started=when, cases=[case], exit_code=3)
    summary.recount()
    write_junit(summary, path, run_dir)


def _run_dir(settings: Settings, run_id: str, overwrite: bool, junit_xml: Path | None,
             alluredir: Path | None) -> Path:
    check_outputs(junit_xml, alluredir)
    state = Path(settings.state_dir)
    named, hint = _state_dir_named(settings)
    _writable_dir(state, named, hint=hint)
    _short_enough(state, named)
    if not settings.report_dir:
        _say_if_killed(state / "runs", run_id)
        run_dir = state / "runs" / run_id
        _writable_dir(run_dir, "the run directory")
        try:
            claim(run_dir, run_id)      # (so another run's pruning leaves it be: `prune_runs`)
        except FileExistsError:
            pass
        return run_dir
    run_dir = Path(settings.report_dir)
    if run_dir.resolve() == Path(run_dir.resolve().anchor):
        raise ConfigError(f"{settings.named('report_dir')} {run_dir}: that is the filesystem's "
                          "root (an unset variable, as in \"$OUT/\"?): give a directory of "
                          "its own")
    _writable_dir(run_dir, settings.named("report_dir"))
    _not_in_use(run_dir, settings.named("report_dir"))
    old = [n for n in ("results.json", "results.jsonl") if (run_dir / n).exists()]
    if old and not overwrite:
        raise ConfigError(f"{settings.named('report_dir')} {run_dir} already holds a run "
                          f"({old[0]}): use "
                          f"--overwrite to replace it, or another directory")
    if old:
        _clear_old_run(run_dir)
    try:
        claim(run_dir, run_id)
    except FileExistsError:     # another run started into it since the checks above
        _not_in_use(run_dir, settings.named("report_dir"), starting=True)
    return run_dir


def _state_dir_named(settings: Settings) -> tuple[str, str]:
    """The state directory as a message names it, and what to do about it: by the setting
    that set it, or as farm's default with the variable that moves it (a run in a read-only
    folder was told of "(FARM_STATE_DIR)", a variable no one had set)."""
    if settings.source("state_dir"):
        return f"the state directory ({settings.named('state_dir')})", ""
    return "farm's default state directory", "set FARM_STATE_DIR to put it elsewhere"


SQLITE_PATH_MAX = 511      # bytes of a file name SQLite opens (SQLITE_MAX_PATHNAME 512: + NUL)
LONGEST_STORE_FILE = "results.sqlite-journal"   # the longest name farm's stores open there


def _short_enough(state: Path, named: str) -> None:
    """A state dir whose path is too long for SQLite: every store in it (results history,
    cache, durations) failed with "unable to open database file" while runs exited 0."""
    longest = os.fsencode(state.resolve() / LONGEST_STORE_FILE)
    if len(longest) > SQLITE_PATH_MAX:
        room = SQLITE_PATH_MAX - len(LONGEST_STORE_FILE) - 1
        raise ConfigError(f"{named} {state} is too long a path for SQLite "
                          f"({len(os.fsencode(state.resolve()))} bytes; its files' full names "
                          f"may be {SQLITE_PATH_MAX} at most, so the directory {room}): the "
                          f"results history and the cache could not be opened there; use a "
                          f"shorter path")


# What a run writes into its directory, by name (the cases' own report pages aside)
RUN_FILES = ("results.json", JOURNAL, "junit.xml", "report.html", "report.css", "farm.log",
             "metrics.prom", STORE_RECORD, ROOM)


def _clear_old_run(run_dir: Path) -> None:
    """--overwrite: remove what the run before wrote there, and only that (farm's own file
    names, its screenshots, and the cases' own report pages its results.json names), so the
    directory holds this run's outputs alone: its cache-store.json and its cases'
    ``reportFileName`` pages stayed, and a run cut short there left them beside its own."""
    import shutil
    for name in (*own_pages(run_dir / "results.json"), *RUN_FILES):
        (run_dir / name).unlink(missing_ok=True)
    shutil.rmtree(run_dir / "artifacts", ignore_errors=True)


def own_pages(results: Path) -> list[str]:
    """The cases' own report pages (Midscene ``reportFileName``) a results.json names: plain
    ``*.html`` file names only, whatever an edited file says."""
    import json

    from farm.report.html import own_page     # (the rule the report writes its pages by)
    try:
        cases = json.loads(results.read_text(encoding="utf-8")).get("cases") or []
        names = {str(c.get("report_file") or "") for c in cases if isinstance(c, dict)}
    except (OSError, ValueError, AttributeError):
        return []
    return sorted(n for n in names if own_page(n))


def _not_in_use(run_dir: Path, named: str, starting: bool = False) -> None:
    """A report directory a `farm run` still running writes into is that run's, --overwrite
    or not: two runs there mixed their journals and screenshots, and the report of one showed
    the other's. (``starting``: one took it just now.)"""
    found = writer_of(run_dir)
    if found is None and not starting:
        return
    by = str(found) if found is not None else "a farm run starting there"
    raise ConfigError(f"{named} {run_dir} is in use: {by} is still writing a run into it; "
                      f"wait for it to end, or use another directory")


def _say_if_killed(runs: Path, run_id: str) -> None:
    """The runs before this one under the state dir that have a journal but no results.json
    and are not running (killed: kill -9, a CI timeout, a closed terminal): one line each,
    once, saying how to get its report, and its cases into the results history. Every earlier
    run folder of the newest `_LOOKED_BACK` is looked at, not only the newest: a run killed
    while another ran beside it in the same state dir was never said (the run after had
    the other one as "the run before"). A run of another host (a shared state dir, or one a
    CI runner restored) is said once its journal has been silent long enough to tell
    (`farm.journal.STALE_SECONDS`)."""
    try:
        names = sorted(p.name for p in runs.iterdir() if _RUN_ID.match(p.name)
                       and p.name < run_id and p.is_dir())[-_LOOKED_BACK:]
    except OSError:
        return
    from farm.journal import host_of
    own: list[Path] = []
    killed = {name for name in names if _unsaid_killed(runs / name)}   # (a finished run's
    for i, run in enumerate(runs / name for name in names):             # journal is not read)
        if run.name not in killed:
            continue
        if host_of(run):
            _say_foreign_killed(run, run_id)
        # (a next run killed too said it, if ever, where no one read it: its job's log cut)
        elif i == len(names) - 1 or not (runs / names[i + 1] / "results.json").exists() \
                or not _said_by_next(run, names[i + 1]):
            own.append(run)
    if len(own) == 1:
        _say_own_killed(own[0], run_id, "the run before" if own[0].name == names[-1]
                        else "an earlier run")
    elif own:
        _say_own_many_killed(own, run_id)


def _unsaid_killed(run: Path) -> bool:
    return not ((run / "results.json").exists() or (run / SAID).exists()
                or (run / SAID_KEPT).exists()) and _killed(run)


# How many of the newest run folders before a run's are looked at for killed ones
_LOOKED_BACK = 200


def _said_by_next(run_dir: Path, next_name: str) -> bool:
    """A killed run of this host with no mark, whose next run started after it was surely
    gone (its journal's last write and a heartbeat's time before it): that run said it as
    "the run before" (a farm before the marks), so it is not said again."""
    from farm.journal import BEAT_SECONDS, silent_for
    silent = silent_for(run_dir)
    return silent is not None and \
        _id_time(next_name) > time.time() - silent + BEAT_SECONDS + 1


def _say_own_killed(run_dir: Path, run_id: str, which: str) -> None:
    print(f"farm: {which}, {run_dir.name}, ended without writing its results (killed?): "
          f"`farm report {run_dir}` rebuilds its report from its journal and puts its cases "
          f"in the results history (--last-failed reads them from its journal until then)",
          file=sys.stderr, flush=True)
    try:
        (run_dir / SAID).write_text(run_id + "\n", encoding="utf-8")
    except OSError as exc:      # (said again by the next run, and kept until then)
        log.warning("cannot mark %s as said: %s", run_dir, exc)


_NAMED = 5     # killed runs named in `_say_own_many_killed`'s line (the others counted)


def _say_own_many_killed(run_dirs: list[Path], run_id: str) -> None:
    """One line for several killed runs of this host (oldest first): each named (the first
    `_NAMED`, then how many more), each marked said: with two killed nights only the newer
    was said, the older one (a failing case in it) never."""
    names = ", ".join(d.name for d in run_dirs[:_NAMED])
    more = f" and {len(run_dirs) - _NAMED} more" if len(run_dirs) > _NAMED else ""
    print(f"farm: {len(run_dirs)} earlier runs ended without writing their results (killed?): "
          f"{names}{more}: `farm report {run_dirs[0].parent}/RUN_ID` rebuilds each one's "
          f"report from its journal and puts its cases in the results history (--last-failed "
          f"reads them from their journals until then)", file=sys.stderr, flush=True)
    for run_dir in run_dirs:
        try:
            (run_dir / SAID).write_text(run_id + "\n", encoding="utf-8")
        except OSError as exc:      # (said again by the next run, and kept until then)
            log.warning("cannot mark %s as said: %s", run_dir, exc)


# In a run folder of another host: the run that said it was killed (`_say_foreign_killed`)
SAID = ".farm-said-killed"


def _killed(run_dir: Path) -> bool:
    """A run that planned its cases and ended without results.json, its farm gone."""
    from farm.journal import planned, running
    return not (run_dir / "results.json").exists() and (run_dir / JOURNAL).is_file() \
        and planned(run_dir) and not running(run_dir)   # (killed in its set-up: nothing)


def _say_foreign_killed(run_dir: Path, run_id: str) -> None:
    """The line for a killed run of another host, once: its folder keeps which run said it
    (`prune_runs` removes it only after, so the command in the line still finds it)."""
    from farm.journal import BEAT_SECONDS, host_of, silent_for
    print(f"farm: run {run_dir.name} of host {host_of(run_dir)} ended without writing its "
          f"results (killed? its journal was last written {_ago(silent_for(run_dir) or 0)} "
          f"ago; a run going on writes it every {BEAT_SECONDS:.0f}s): `farm report {run_dir}` "
          f"rebuilds its report from its journal and puts its cases in the results history",
          file=sys.stderr, flush=True)
    try:
        (run_dir / SAID).write_text(run_id + "\n", encoding="utf-8")
    except OSError as exc:      # (said again by the next run, and kept until then)
        log.warning("cannot mark %s as said: %s", run_dir, exc)


def _ago(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{max(minutes, 1)} min"
    return f"{minutes // 60} h {minutes % 60} min" if minutes < 48 * 60 else \
        f"{minutes // (24 * 60)} days"


def check_case_outputs(cases: list[Case], batches: list[Batch]) -> None:
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


def files_after_run(settings: Settings, cases: list[Case], batches: list[Batch],
                    summary: RunSummary, env: dict[str, str],
                    run_dir: Path | None = None) -> list[str]:
    """The cases' output: / unstableLogContent: files and the batch files' summaries; the
    ones not written (an output of the run: exit 3, each named on stderr). ``run_dir``: where
    the step log's images are (its paths are then written relative to the log file)."""
    return _case_outputs(cases, summary.cases, lambda c: Variables.from_sources(
        defaults=c.vars, env=env, secrets_dir=settings.secrets_dir, secrets=c.secrets),
        run_dir) + _batch_summaries(batches, summary, cases, run_dir)


def _runs_by_case(results: list[CaseResult], ids: set[str]) -> dict[str, dict[str, CaseResult]]:
    """Each case's results by device group: ``{"": result}`` for a case run once, ``{group:
    result}`` for one a --matrix run ran per group (``case@group``)."""
    out: dict[str, dict[str, CaseResult]] = {}
    for r in results:
        case_id, group = r.case_id, ""
        if case_id not in ids and "@" in case_id:
            case_id, _, group = case_id.rpartition("@")
        if case_id in ids:
            out.setdefault(case_id, {})[group] = r
    return out


def _for_group(path: str, group: str) -> str:
    """Where a group's run writes a file named ``path`` (``out/a.json`` → ``out/a@os14.json``,
    as its results are named ``case@group``): the runs of a --matrix run never overwrite each
    other's."""
    if not group:
        return path
    named = Path(path)
    return str(named.with_name(f"{named.stem}@{group}{named.suffix}"))


def _batch_summaries(batches: list[Batch], summary: RunSummary, cases: list[Case] = (),
                     run_dir: Path | None = None) -> list[str]:
    """A batch's ``summary:`` file: each listed file's outcome, as Midscene's index.json (a
    --matrix run's: one per device group, `_for_group`): farm's counts and ``files``, and
    Midscene's ``summary`` and ``results`` (`_midscene_summary`), so a CI step reading
    ``.summary.failed`` reads it here too. Returns the ones not written, as `write_outputs`
    does."""
    import json
    by_id = {c.id: c for c in cases}
    runs = _runs_by_case(summary.cases, {cid for b in batches for cid in b.case_ids})
    failed = []
    for batch in batches:
        if not batch.summary:
            continue
        groups = sorted({g for cid in batch.case_ids for g in runs.get(cid, {})}) or [""]
        for group in groups:
            results = [r for r in (runs.get(cid, {}).get(group) for cid in batch.case_ids)
                       if r is not None]
            files = [_file_entry(r) for r in results]
            counts = {s: sum(1 for f in files if f["status"] == s)
                      for s in ("passed", "failed", "error", "flaky", "skipped", "interrupted")}
            named = {"group": group} if group else {}
            path = _for_group(batch.summary, group)
            data = {"batch": batch.file, "run": summary.run_id, **named, "total": len(files),
                    **counts, "files": files,
                    **_midscene_summary(results, by_id, Path(path), run_dir)}
            failed += _written(f"{batch.file}: summary:", path,
                               json.dumps(data, indent=2, ensure_ascii=False))
    return failed


def _file_entry(r: CaseResult) -> dict:
    """A file's entry in a batch summary's ``files``, the same keys whatever its outcome:
    ``error`` (the failure's message, null when it did not fail) and ``reason`` (why it did
    not pass: why it was not run, `not run: …`, or its failure's message; null when it
    passed)."""
    error = r.error.message if r.error else None
    reason = r.reason or (error if r.status not in ("passed", "flaky") else None)
    return {"file": r.file, "case": r.case_id, "status": r.status, "duration": r.duration,
            "error": error, "reason": reason, "data": r.data}


def _result_type(result: CaseResult, case: Case | None) -> str:
    """A file's outcome as Midscene's execution summary names it: ``success``, ``failed``,
    ``partialFailed`` (only tasks with ``continueOnError: true`` failed: Midscene's player
    went on past them, its status not an error) or ``notExecuted`` (not run: a failure
    before it in a ``continueOnError: false`` batch, --maxfail, a stop, a skip)."""
    if result.status in ("passed", "flaky"):
        return "success"
    if result.status in ("skipped", "interrupted"):
        return "notExecuted"
    going_on = {t.name for t in case.tasks if t.continue_on_error} if case else set()
    failed_in = {s.task for s in result.steps if s.status == "failed"}
    if result.status == "failed" and failed_in and failed_in <= going_on:
        return "partialFailed"
    return "failed"


def _midscene_summary(results: list[CaseResult], cases: dict[str, Case], summary_file: Path,
                      run_dir: Path | None) -> dict:
    """Midscene's keys of a batch summary (its CLI's execution-summary.ts): ``summary`` (the
    counts by result type, durations in milliseconds) and ``results`` (one per file: its
    path, output: and report relative to the summary file's folder)."""
    here = Path(os.path.abspath(summary_file)).parent

    def rel(path: Path | str) -> str:
        text = Path(os.path.relpath(os.path.abspath(path), here)).as_posix()
        return text if text.startswith(".") else f"./{text}"

    rows = []
    for r in results:
        case = cases.get(r.case_id.rsplit("@", 1)[0]) or cases.get(r.case_id)
        kind = _result_type(r, case)
        output = case.output if case is not None and (
            kind != "notExecuted" or r.data) else None     # (as `_not_run_output` writes)
        report = f"{rel(Path(run_dir) / 'report.html')}#case={r.case_id}" if run_dir else None
        rows.append({
            "script": rel(r.file), "success": kind == "success", "resultType": kind,
            "output": rel(output) if output and "${" not in output else output,
            "report": report if kind != "notExecuted" else None,
            "error": (r.reason or "Not executed") if kind == "notExecuted"
            else r.error.message if r.error else None,
            "duration": round(r.duration * 1000)})
    counts = {name: sum(1 for row in rows if row["resultType"] == kind) for name, kind in (
        ("successful", "success"), ("failed", "failed"), ("partialFailed", "partialFailed"),
        ("notExecuted", "notExecuted"))}
    return {"summary": {"total": len(rows), **counts,
                        "totalDuration": sum(row["duration"] for row in rows),
                        "generatedAt": datetime.now().astimezone().isoformat(timespec="seconds")},
            "results": rows}


def _written(what: str, path: str, text: str) -> list[str]:
    """Write ``text`` to ``path`` (its folders made); [] when done, else the one line
    `farm.session._exit_code` says: ``<what> <path>: <why>``."""
    from farm.report.paths import why_not_written
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write %s %s: %s", what, path, exc)
        return [f"{what} {path}: {why_not_written(Path(path), exc)}"]
    return []


def _case_outputs(cases: list[Case], results: list[CaseResult],
                  variables: Callable[[Case], Variables],
                  run_dir: Path | None = None) -> list[str]:
    """Midscene's ``output:`` (the JSON of the case's named results) and
    ``unstableLogContent:`` (its step log), relative to the working directory (a --matrix
    run's: one per device group, `_for_group`); the ones not written (secrets in a path
    masked)."""
    wanted = [c for c in cases if c.output or c.log_content]   # (most cases: none to write)
    runs = _runs_by_case(results, {c.id for c in wanted})
    failed = []
    for case in wanted:
        if case.id in runs:
            values = variables(case)
            failed += [line for group, result in sorted(runs[case.id].items())
                       for line in _outputs_of(case, result, values, group, run_dir)]
    return failed


def _outputs_of(case: Case, result: CaseResult, values: Variables, group: str,
                run_dir: Path | None = None) -> list[str]:
    """One run's ``output:`` and ``unstableLogContent:`` files; the ones not written."""
    import json
    failed = []
    for key, path, data in (
            ("output:", case.output, lambda: result.data),
            ("unstableLogContent:", case.log_content,
             lambda: [_step_log(s, run_dir, where) for s in result.steps])):
        if not path:
            continue
        what = f"{display_path(case.file)}: {key}"
        try:
            path = values.resolve(path) if path else path   # ${NAME}, as in any template
        except UserError as exc:
            failed.append(f"{what} {path}: {exc}")
            continue
        if path and key == "output:" and _not_run(result):
            failed += [values.mask(line) for line in _not_run_output(
                what, _for_group(path, group), result)]
        elif path:
            where = Path(os.path.abspath(_for_group(path, group))).parent
            failed += [values.mask(line) for line in _written(
                what, _for_group(path, group), json.dumps(data(), indent=2, ensure_ascii=False))]
    return failed


def _not_run(result: CaseResult) -> bool:
    """A case none of whose results is known: skipped (a step needs a model and none is
    set, -k, a batch's failure before it) or interrupted before any step kept one."""
    return result.status in ("skipped", "interrupted") and not result.data


def _not_run_output(what: str, path: str, result: CaseResult) -> list[str]:
    """A not-run case's ``output:`` file is not written: ``{}`` read downstream as "ran and
    found nothing". One an earlier run left there is removed (it is not this run's answer);
    farm.log says which and why. [] when done, else the line `_written` would give."""
    why = result.reason or f"the case was {result.status}"
    try:
        Path(path).unlink()
    except FileNotFoundError:
        log.warning("%s %s not written: its case did not run (%s)", what, path, why)
        return []
    except OSError as exc:
        log.warning("cannot remove %s %s: %s", what, path, exc)
        return [f"{what} {path}: its case did not run ({why}); the file an earlier run "
                f"wrote is still there and cannot be removed: {exc.strerror or exc}"]
    log.warning("%s %s not written: its case did not run (%s); the file an earlier run "
                "wrote there was removed", what, path, why)
    return []


_IMAGE_FIELDS = ("before", "after", "marked")


def _step_log(step, run_dir: Path | None, where: Path) -> dict:
    """A step as the ``unstableLogContent:`` file keeps it, its images' paths relative to the
    file's own folder (they were relative to the run's folder, which the file does not name:
    ``artifacts/…`` opened nothing from where the log sits)."""
    data = step.model_dump(mode="json")
    if run_dir is None:
        return data
    for name in _IMAGE_FIELDS:
        if isinstance(data.get(name), str):
            data[name] = Path(os.path.relpath(Path(run_dir).resolve() / data[name],
                                              where)).as_posix()
    return data


def write_outputs(summary: RunSummary, run_dir: Path, junit_xml: Path | None = None,
                  alluredir: Path | None = None,
                  not_written: list[str] | None = None, record: bool = True,
                  state_dir: Path | None = None) -> list[str]:
    """results.json, junit.xml, report.html (and --junit-xml, --alluredir), each on its own:
    one that cannot be written costs only itself. Returns what was not written, one line
    each (``<output>: <why>``); the paths were checked up front, so this is the disk's doing
    (full, gone read-only) or a bug (its traceback in farm.log).

    At the end of a run, ``not_written`` lists what it could not write before (its cases'
    ``output:`` files): with those or any of these failed, the run's code becomes 3 (unless
    its cases made it nonzero already); the journal's end and results.json, written last,
    say so. ``record`` False (`farm report` read ``summary`` from a results.json that reads
    as the run's): that file and the journal are the run's record and are left as they are
    (a rewrite dropped the fields this farm does not know and made a missing exit_code 0).
    ``state_dir``: the run's, whose ``history.html`` (`farm report --history`) report.html
    links when it is there."""
    from farm.report.html import write_html
    from farm.report.junit import write_junit
    gone = _deleted(run_dir) if not_written is not None else []     # (before it is made anew)
    give_room_back(run_dir)     # (a killed run's too: `farm report` writes its outputs)
    own = run_dir / "results.json", run_dir / "junit.xml", run_dir / "report.html"
    outputs: list[tuple[str, Path, Callable[[], object]]] = [
        (str(own[1]), own[1], lambda: write_junit(summary, own[1]))]
    if junit_xml:
        outputs.append((f"--junit-xml {junit_xml}", Path(junit_xml),
                        lambda: write_junit(summary, Path(junit_xml), run_dir)))
    if alluredir:
        from farm.report.allure import write_allure
        outputs.append((f"--alluredir {alluredir}", Path(alluredir),
                        lambda: write_allure(summary, run_dir, Path(alluredir))))
    history = Path(state_dir) / "history.html" if state_dir is not None else None
    outputs.append((str(own[2]), own[2], lambda: write_html(summary, run_dir, history)))
    failed = _write_each(outputs)
    if not_written is not None:
        failed = gone + not_written + failed
        if failed and not summary.exit_code:
            summary.exit_code = 3       # infrastructure (farm.session._exit_code)
    if not record:
        return failed
    return failed + _write_each([
        (f"{run_dir / JOURNAL}", run_dir / JOURNAL, lambda: conclude(run_dir, summary)),
        (str(own[0]), own[0], lambda: write_json(own[0], summary))])


def restate_exit_code(summary: RunSummary, run_dir: Path, code: int) -> list[str]:
    """The run's code became ``code`` after its outputs were written (what it printed at the
    end was lost: 3): results.json and the journal's end say it again (`recover` reads the
    last end line). What was not written, as `write_outputs` returns it."""
    summary.exit_code = code
    if not (run_dir / "results.json").exists():    # (not written: said already)
        return []
    return _write_each([
        (f"{run_dir / JOURNAL}", run_dir / JOURNAL, lambda: conclude(run_dir, summary)),
        (str(run_dir / "results.json"), run_dir / "results.json",
         lambda: write_json(run_dir / "results.json", summary))])


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


def remember(settings: Settings, summary: RunSummary, run_dir: Path,
             refused: bool = False) -> None:
    """What later runs and commands use: quarantined devices, the failed cases
    (--last-failed), every verdict (results history; marks new / still failing / flaky),
    the cache store the run used (`farm cache export RUN_DIR` reads it from anywhere). A run
    refused before it started (no broker, a deviceId pin) ran no case: it is not a run of
    the history, and --last-failed keeps the failures of the run before it."""
    from farm.cache.run_store import record_store
    give_room_back(run_dir)     # (the state dir is often on the run's disk: .farm/runs)
    state = Path(settings.state_dir)
    steps: list[tuple[str, Callable[[], object]]] = [
        ("old runs not pruned", lambda: prune_runs(state / "runs", settings.keep_runs,
                                                   run_dir)),
        ("quarantined devices not saved",
         lambda: _remember_quarantine(state, summary.run_id, summary.quarantined))]
    if not refused:
        steps += [("failed cases not saved for --last-failed",
                   lambda: remember_failures(state, summary.cases, _failed_by_skips(summary))),
                  ("results history not updated",
                   lambda: remember_run(settings, summary, run_dir / "report.html"))]
    steps.append(("the run's cache store not recorded", lambda: record_store(run_dir, settings)))
    for what, step in steps:    # each guarded: none costs the run its results.json, junit.xml
        try:
            step()
        except Exception as exc:    # (a bug, or an error its own handling missed)
            log.warning("%s", what, exc_info=True)
            print(f"farm: warning: {what}: {type(exc).__name__}: {exc} (the run's results "
                  f"are written still; farm.log has the traceback)", file=sys.stderr,
                  flush=True)


_RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}\Z")      # `new_run_id`


def prune_runs(runs: Path, keep: int, current: Path) -> None:
    """The oldest run directories under ``<state dir>/runs`` beyond the newest ``keep``
    (FARM_KEEP_RUNS; 0 keeps all): a nightly suite's screenshots filled the disk there run
    after run. Only folders named as farm names a run; never a --report-dir, this run, nor
    a run another farm is still writing (`farm.journal.writer`: on this machine, or on
    another sharing the state dir: a long nightly beside short runs had its journal, farm.log
    and first screenshots deleted under it), nor a killed run of another host before a run
    before this one has said so (`_say_if_killed`: its failures were gone unsaid), nor a
    killed run of this host that `farm report` has not rebuilt (its cases were never in the
    results history: said once, `_kept_killed`)."""
    if keep <= 0 or not runs.is_dir():
        return
    import shutil
    try:
        names = sorted(p.name for p in runs.iterdir() if _RUN_ID.match(p.name) and p.is_dir()
                       and not p.is_symlink())
    except OSError:
        return
    for name in names[:-keep]:
        if runs / name != current and writer(runs / name) is None \
                and not _unsaid(runs / name, current.name) and not _kept_killed(runs / name):
            shutil.rmtree(runs / name, ignore_errors=True)


# In a killed run's folder: that a later run said it keeps it past FARM_KEEP_RUNS
SAID_KEPT = ".farm-said-kept"


def _kept_killed(run_dir: Path) -> bool:
    """A killed run of this host not rebuilt (no results.json: `farm report` writes one), so
    never in the results history: kept, and said once (a kill -9 then two more runs with
    FARM_KEEP_RUNS=2 deleted it unsaid, its failures in no history)."""
    from farm.journal import host_of
    if host_of(run_dir) or not _killed(run_dir):
        return False
    if not (run_dir / SAID_KEPT).exists():
        print(f"farm: kept run {run_dir.name} past FARM_KEEP_RUNS: it was killed and its "
              f"cases are in no results history; `farm report {run_dir}` rebuilds it and puts "
              f"them there (then it is pruned as the others are)", file=sys.stderr, flush=True)
        try:
            (run_dir / SAID_KEPT).write_text("", encoding="utf-8")
        except OSError as exc:      # (said again by the next run)
            log.warning("cannot mark %s as said: %s", run_dir, exc)
    return True


def _unsaid(run_dir: Path, run_id: str) -> bool:
    """A killed run of another host that no run before ``run_id`` has said was killed."""
    from farm.journal import host_of
    if not host_of(run_dir) or not _killed(run_dir):
        return False
    try:
        return (run_dir / SAID).read_text(encoding="utf-8").strip() in ("", run_id)
    except OSError:
        return True


def unrebuilt_runs(runs: Path, store: ResultsStore, since: float = 0.0) -> list[Path]:
    """The run folders under ``<state dir>/runs`` started since ``since`` (POSIX seconds)
    that a killed farm left without results.json (its journal planned cases, its process
    is gone) and that ``store``, the results history, does not have, oldest first: a night
    killed by a CI timeout was missing from `farm report --history`'s page, unsaid, until
    someone ran `farm report` of it."""
    from farm.journal import planned
    try:
        dirs = sorted(p for p in runs.iterdir() if _RUN_ID.match(p.name) and p.is_dir())
    except OSError:
        return []
    killed = [(d, at) for d in dirs if (at := _id_time(d.name)) >= since
              and not (d / "results.json").exists() and (d / JOURNAL).is_file()
              and planned(d) and writer(d) is None]
    if not killed:
        return []
    known = {r.run_id for r in store.runs(killed[0][1] - 86400)}    # (its start: the id's)
    return [d for d, _ in killed if d.name not in known]


def unfinished_runs(settings: Settings, count: int = 20
                   ) -> list[tuple[frozenset[str], Unfinished | None]]:
    """--last-failed: the last ``count`` runs of the results history, newest first, each as
    its case ids and what it left undone when it was stopped before its end
    (`farm.select.unfinished_of`; None when it ran to its end): `farm.select.pending_runs`
    keeps each selected case's undone state from the newest run of it. A killed run
    `farm report` has not rebuilt is read from its journal, in its place (`_killed_runs`).
    None read when the history has no run or cannot be read (--last-failed reads only the
    failures then)."""
    from farm.results_history import open_results
    from farm.select import unfinished_of
    try:
        store = open_results(settings)
        last = store.recent(count)
        # (killed runs older than the ``count`` runs read count no more than those do)
        killed = _killed_runs(settings, store, last[0].at if len(last) >= count else 0)
    except Exception as exc:     # (HistoryUnreadable, OSError, Redis down): said, not fatal
        what = ("--last-failed: cannot read the results history, so only the recorded "
                "failures run (not the cases a stopped last run left)")
        log.warning("%s: %s", what, exc)
        print(f"farm: warning: {what}: {exc}", file=sys.stderr, flush=True)
        return []
    runs = [(run.at, frozenset(c.case_id for c in run.cases),
             unfinished_of(run.run_id, run.interrupted,
                           ((c.case_id, c.status, c.reason) for c in run.cases)))
            for run in last] + killed
    return [(ids, undone) for _, ids, undone in sorted(runs, key=lambda r: -r[0])]


def _killed_runs(settings: Settings, store: ResultsStore, since: float
                 ) -> list[tuple[float, frozenset[str], Unfinished | None]]:
    """The killed runs since ``since`` that `farm report` has not rebuilt (so not in the
    history: `unrebuilt_runs`), read from their journals as `farm report`
    would (`farm.journal.recover`): when each started, its case ids, its undone cases and its
    verdicts (its farm never wrote them to lastfailed.json)."""
    from dataclasses import replace

    from farm.journal import recover
    from farm.select import FAILING, Unfinished, unfinished_of
    out = []
    for run_dir in unrebuilt_runs(Path(settings.state_dir) / "runs", store, since):
        try:
            summary = recover(run_dir)
        except Exception as exc:    # (one journal farm cannot read costs --lf that run only)
            log.debug("--last-failed: the killed run %s not read: %s", run_dir.name, exc)
            continue
        cases = summary.cases
        undone = unfinished_of(summary.run_id, summary.interrupted,
                               ((c.case_id, c.status, c.reason) for c in cases))
        started = datetime.fromisoformat(summary.started).timestamp() if summary.started \
            else 0.0
        out.append((started, frozenset(c.case_id for c in cases), replace(
            undone or Unfinished(summary.run_id),
            failed=frozenset(c.case_id for c in cases if c.status in FAILING),
            passed=frozenset(c.case_id for c in cases if c.status in ("passed", "flaky")))))
    return out


def _id_time(run_id: str) -> float:
    """When the run named ``run_id`` (`new_run_id`: local time) started, POSIX seconds (0:
    no date, a folder named by hand)."""
    try:
        return datetime.strptime(run_id[:15], "%Y%m%d-%H%M%S").timestamp()
    except ValueError:
        return 0.0


def remember_rebuilt(settings: Settings, summary: RunSummary, run_dir: Path) -> bool:
    """A run rebuilt from its journal (farm was killed before its end): what its end would
    have remembered, once — the results history (each red case marked new / still failing),
    its cases' durations and its failed cases for --last-failed (those a later run gave no
    verdict of: `_settled_by`); said on stderr. False when the history already has it (or
    cannot be read or written: nothing is remembered then)."""
    from farm.results_history import CONTEXT_RUNS, open_results
    try:
        recent = open_results(settings).recent(CONTEXT_RUNS)
    except Exception as exc:      # remember_run would say the same: say it once, here
        print(f"farm: warning: results history not updated: {exc}", file=sys.stderr)
        return False
    started = datetime.fromisoformat(summary.started).timestamp() if summary.started else 0.0
    known = next((r for r in recent if r.run_id == summary.run_id), None)
    if known is not None:
        if not known.rebuilt:   # (else an earlier `farm report` of this journal made it)
            _verdicts_from_history(summary, known)
        return False
    if not remember_run(settings, summary, run_dir / "report.html", rebuilt=True):
        return False        # (said why on stderr)
    from farm.history import DurationHistory        # its cases' times, for longest-first
    DurationHistory(Path(settings.state_dir)).record(summary.cases)
    later = [r for r in recent if r.at > started]
    settled = _settled_by(later)
    remember_failures(Path(settings.state_dir),
                      [c for c in summary.cases if c.case_id not in settled])
    print("farm: the run is now in the results history (and --last-failed" + (
        f"; a case a later run ran keeps that run's verdict there: the newest, "
        f"{later[-1].run_id}" if settled else "") + ")", file=sys.stderr, flush=True)
    return True


def _settled_by(later: Iterable[RunRecord]) -> set[str]:
    """The cases runs after a killed one gave a verdict of (passed, flaky, failed, error):
    --last-failed has the later verdict of those; a rebuild adds its own of the others,
    as a run of other cases keeps an earlier run's failures (a kill is only said by the
    next run, so a rebuild always had one after it, and its failures never reached
    --last-failed)."""
    from farm.select import FAILING
    return {c.case_id for r in later for c in r.cases
            if c.status in (*FAILING, "passed", "flaky")}


def _verdicts_from_history(summary: RunSummary, record: RunRecord) -> None:
    """A journal that stopped before the run's end while the run went on (a full disk: the
    journal and results.json could not be written, the results history on another disk was)
    is rebuilt as a run cut short, its later cases interrupted or not run. The history has the
    run's end: those cases take their verdicts from it (without steps or images), and the run
    its end, said once on stderr. So does a run killed after it had recorded its end there,
    while it wrote its report (every case in the journal, not its end line)."""
    from farm.journal import guessed
    from farm.results import CaseError, exit_code_for
    from farm.results_history import FailedStep
    ended = {c.case_id: c for c in record.cases}
    taken = 0
    for i, case in enumerate(summary.cases):
        known = ended.get(case.case_id)
        if not guessed(case) or known is None:
            continue
        kind, _, message = (known.error or "").partition(": ")
        step = known.step if isinstance(known.step, FailedStep) else None
        summary.cases[i] = case.model_copy(update={
            "status": known.status, "device": known.device, "duration": known.duration,
            "started": _iso(known.at) if known.at else case.started,
            "error": CaseError(kind=kind, message=message, step=step.index if step else None)
            if known.error else None,
            "reason": "its steps and images were not saved (the run's journal could not be "
                      "written); its verdict is the results history's"})
        taken += 1
    if any(guessed(c) for c in summary.cases) or (
            not taken and record.interrupted):
        return      # the history's end is not this journal's (or says it was cut short too)
    summary.interrupted, summary.duration = record.interrupted, record.duration
    if record.started and record.duration:
        summary.finished = _iso(record.at + record.duration)
    summary.recount()
    summary.exit_code = exit_code_for(summary.cases, interrupted=record.interrupted)
    said = (f"the journal stops before the run's end (it could not be written: a full "
            f"disk?); the results history has the run's end: {taken} case(s) take their "
            f"verdict from it (without steps or images)" if taken else
            "the results history has the run's end (farm was stopped while it wrote the "
            "run's files): it had finished")
    print(f"farm: {said}: {_counted(summary)}", file=sys.stderr, flush=True)


def _iso(at: float) -> str:
    from datetime import timezone
    return datetime.fromtimestamp(round(at, 3), timezone.utc).isoformat(
        timespec="milliseconds")


def _counted(summary: RunSummary) -> str:
    return ", ".join(f"{n} {status}" for status, n in summary.counts.items()
                     if n and status != "total")


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


LAST_FAILED = "lastfailed.json"


_SAID_UNREADABLE: set[tuple[Path, int]] = set()    # (lastfailed.json, its mtime) warned of


def load_failures(state_dir: Path) -> list[str]:
    """The case ids that failed last time (``{"failed": [ids]}``; one id as a string is
    taken too). A file that is not that reads as no failures recorded, said once on stderr,
    naming it: the end of the run replaces it."""
    import json
    path = state_dir / LAST_FAILED
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        return _no_record(path, f"cannot read it ({getattr(exc, 'strerror', None) or exc})")
    except ValueError as exc:
        return _no_record(path, f"not valid JSON ({exc})")
    failed = data.get("failed", []) if isinstance(data, dict) else None
    if isinstance(failed, str):
        return [failed]
    if isinstance(failed, list) and all(isinstance(c, str) for c in failed):
        return list(failed)
    return _no_record(path, 'not a record of failed cases ({"failed": [case ids]})')


def load_skipped(state_dir: Path) -> list[str]:
    """Of `load_failures`' cases, the ones that were only skipped (a run --fail-on-skip
    failed): ``"skipped"`` in the same file; none when it is not there or not a list."""
    import json
    try:
        data = json.loads((state_dir / LAST_FAILED).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    skipped = data.get("skipped") if isinstance(data, dict) else None
    return [c for c in skipped if isinstance(c, str)] if isinstance(skipped, list) else []


def _no_record(path: Path, why: str) -> list[str]:
    """No failures recorded, said once per version of the file (a run reads it twice)."""
    try:
        seen = (path.resolve(), path.stat().st_mtime_ns)
    except OSError:
        seen = (path.resolve(), 0)
    if seen not in _SAID_UNREADABLE:
        _SAID_UNREADABLE.add(seen)
        print(f"farm: warning: {path}: {why}: taken as no failures recorded (this run's "
              "failures replace it)", file=sys.stderr, flush=True)
    return []


def _failed_by_skips(summary: RunSummary) -> list[str]:
    """The skipped cases that made the run fail under --fail-on-skip (none otherwise), for
    --last-failed beside its failures: `farm run --lf` then takes them, not every case."""
    from farm.run_log import skips_failed
    from farm.select import skipped_themselves
    return skipped_themselves(summary.cases) if skips_failed(summary) else []


def remember_failures(state_dir: Path, results: list[CaseResult],
                      also: Iterable[str] = ()) -> None:
    """Keep failing cases (and ``also``) for --last-failed, as pytest's cache does."""
    import json
    from farm.select import update_last_failed
    verdicts = {r.case_id: r.status for r in results}
    failed = sorted({*update_last_failed(load_failures(state_dir), verdicts), *also})
    # the skipped ones of an earlier run this one did not run stay said apart
    skipped = sorted(({c for c in load_skipped(state_dir) if c not in verdicts} | set(also))
                     & set(failed))
    from farm.report.paths import replace_file      # a full disk keeps the last good one
    try:
        record = {"failed": failed, **({"skipped": skipped} if skipped else {})}
        replace_file(state_dir / LAST_FAILED, json.dumps(record).encode())
    except OSError as exc:      # on the console too: a --last-failed after it runs others
        why = (f"failed cases not recorded for --last-failed in {state_dir / LAST_FAILED} "
               f"({exc.strerror or exc}): it keeps the list of the run before")
        log.warning(why)
        print(f"farm: warning: {why}", file=sys.stderr, flush=True)
