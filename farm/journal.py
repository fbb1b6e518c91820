"""Crash safety for a run: every final case result is appended to ``results.jsonl`` the moment
it is known, so a `farm run` that is killed outright still leaves what it learned;
``farm report RUN_DIR`` rebuilds the report from that journal when results.json is missing.

Beside the results (one CaseResult JSON a line) the journal holds marker lines, each with a
``"journal"`` key: ``run`` first (the run's id, start, every case it planned, a
shareBrowserContext unit with its files, and those it left out), ``device`` when a device has
opened (what it is: browser version, phone model and OS), ``start`` when an attempt begins,
``file`` when a unit's next file begins, and ``attempt`` (its result) when one
ends to be retried (a case's times by the clock of the host that ran it, a worker's in a
cluster run, as its result's: a rebuild reads a case, and its files' durations, on one clock;
a worker's lines say when farm heard them too, ``seen``, so the run's end and duration are
read on farm's own clock, as its start).
A run killed with ``kill -9`` is rebuilt from them with its real start and
duration, the case (or a unit's file) that was running listed as interrupted, and the cases
(and files) that never started as not run. A run that
ended writes ``end`` (its start, end, exit code, the devices it lost, each red case's verdict
against earlier runs, the cases its selection left out) before results.json: a results.json
lost after that is rebuilt as the finished run it was, not as an interrupted one. A journal
that cannot be written (a full disk) says so once on stderr and stops; the run goes on and
tells its outcome as usual. A run takes its folder first (`claim`: a ``claim`` line naming its
process), so a second run into the same --report-dir, a `farm report` of it or another run's
pruning of .farm/runs leaves it be while it goes on (`writer`): its process alive, on this
host, or, for a run of another host sharing the state dir, its journal written within
STALE_SECONDS (a heartbeat marks it every BEAT_SECONDS)."""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Container, Iterable, Mapping, NamedTuple

from farm.relay import RelayEvents
from farm.results import (UNSTABLE, CaseResult, DeselectedCase, RunSummary, StepRecord, now_iso,
                           summed, timestamp)

JOURNAL = "results.jsonl"
NOT_STARTED = "not run: farm stopped before it started"     # `recover`'s guesses, for a
CUT_SHORT = "farm stopped while it ran: its steps were not saved"   # case it has no result of
STEPS_KEPT = "farm stopped while it ran: the steps it had finished are kept, not the one it was in"
NOT_RETRIED = "not retried: farm stopped before it started"     # (its verdict: an attempt's)
UNSAVED = "farm stopped later in its shared-context batch: this file's result was not saved"


def guessed(result: CaseResult) -> bool:
    """Whether `recover` made this case's result up, from a killed run's journal that has no
    verdict of it (the results history's, when it has one, is the real one)."""
    return result.reason in (CUT_SHORT, STEPS_KEPT, NOT_STARTED, UNSAVED) or \
        (result.reason or "").endswith(NOT_RETRIED)


class JournalEvents(RelayEvents):
    """RunEvents that forward to the progress view and journal every final result (and the
    start of every attempt). ``planned``: the run's cases as (id, name, file, platform);
    ``files``: a shareBrowserContext unit's id → its files as (id, name, file, steps), in run
    order (a killed unit is rebuilt as its files, not as one case no file's id matches);
    ``deselected``: the cases its selection left out (a killed --last-failed run's rebuilt
    record is then a rerun of the failures in the results history, not a whole night);
    ``shard``: --shard I/N as "I/N" and ``cwd``: the folder its case files are named from, as
    results.json says them (a killed shard's rebuilt run is still that shard's, for --merge);
    ``run_group``: the CI run it is part of (`farm.results.run_group_from_env`: the history
    page folds a killed shard with its night's others)."""

    def __init__(self, inner: Any, run_dir: Path, run_id: str = "",
                 planned: Iterable[tuple[str, str, str, str]] = (),
                 deselected: Iterable[DeselectedCase] = (),
                 files: Mapping[str, list[tuple[str, str, str, int]]] | None = None,
                 shard: str | None = None, cwd: str | None = None,
                 run_group: str | None = None) -> None:
        super().__init__(inner)
        self.path = Path(run_dir) / JOURNAL
        self._lock = threading.Lock()
        self._file = self.path.open("a", encoding="utf-8")
        self._files = dict(files or {})
        # device → [unit id, attempt, its file running (position), that file's steps seen,
        # whether the executor tells when each file begins (else its steps are read)]
        self._units: dict[str, list[Any]] = {}
        self._cases: dict[str, tuple[str, int]] = {}     # device → the case it runs, attempt
        from farm import __version__
        plans = [dict(zip(("case_id", "name", "file", "platform"), p)) for p in planned]
        for plan in plans:
            if plan["case_id"] in self._files:
                plan["files"] = [dict(zip(("case_id", "name", "file"), f[:3]))
                                 for f in self._files[plan["case_id"]]]
        self._write({"journal": "run", "run_id": run_id, "started": now_iso(),
                     "farm_version": __version__, "pid": os.getpid(),
                     "host": socket.gethostname(), "planned": plans,
                     "deselected": [d.model_dump() for d in deselected],
                     **{k: v for k, v in (("shard", shard), ("cwd", cwd), ("run_group", run_group))
                        if v}})

    def _write(self, line: dict[str, Any] | str) -> None:
        with self._lock:
            if self._file.closed:       # a device thread reporting after the run ended
                return
            try:
                self._file.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
                self._file.flush()
            except OSError as exc:      # a full disk: the run goes on without its journal
                self._stop(exc)

    def _stop(self, exc: OSError) -> None:
        """The journal cannot be written (disk full, gone read-only): say so once and write no
        more (a later line after a torn one would not read back). The cases and the run's
        outputs go on: the journal only matters if farm is killed before the end."""
        why = (f"cannot write the run's journal {self.path} ({exc.strerror or exc}): it stops "
               f"here; the run goes on, but if farm is killed now its later cases are lost")
        logging.getLogger("farm").warning(why)
        print(f"farm: warning: {why}", file=sys.stderr, flush=True)
        try:
            self._file.close()
        except OSError:
            pass                        # (its unwritten buffer: the same full disk)

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        if state == "idle" and detail:     # a device just opened says what it is
            self._write({"journal": "device", "device": device, "about": detail})
        self.inner.device_state(device, state, detail)

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        """``started``: by the clock of the host running it (a worker's), as its result's and
        steps' times are: a case's lines read on one clock."""
        self._write({"journal": "start", "case_id": case_id, "attempt": attempt,
                     "device": device, **_times(started)})
        if case_id in self._files:
            self._units[device] = [case_id, attempt, 0, 0, False]
            self._cases.pop(device, None)
        else:
            self._cases[device] = (case_id, attempt)
        self.inner.case_started(device, case_id, name, attempt)

    def file_started(self, device: str, unit_id: str, file_id: str, started: str = "") -> None:
        """A unit's next file begins (farm killed in it, the rebuild lists it interrupted,
        those before it ended unsaved, those after it not run; ``started``: as for
        `case_started`, the clock a file's duration is read on, from the next's start)."""
        unit = self._units.get(device)
        if unit is not None and unit[0] == unit_id:
            unit[4] = True          # told: its steps need not say
            self._write({"journal": "file", "case_id": unit_id, "attempt": unit[1],
                         "file": file_id, "device": device, **_times(started)})
        super().file_started(device, unit_id, file_id)

    def step_finished(self, device: str, record: StepRecord) -> None:
        """A unit's files as its steps tell them, for a worker of an older farm that does not
        say when a file begins (`file_started`): the next begins once a file's last step
        ended, or, for one that ended early (a failure, its batch going on), once another
        step 1 ended (each file counts its steps from 1), so a file that ended early is
        taken for the one running until the next file's first step ends."""
        case = self._cases.get(device)
        if case is not None and not self._units.get(device):   # a farm killed in the case
            self._write({"journal": "step", "case_id": case[0], "attempt": case[1],  # keeps
                         "record": record.model_dump(mode="json")})     # the steps it ended
        unit = self._units.get(device)
        files = self._files[unit[0]] if unit is not None else []
        if unit is not None and not unit[4] and unit[2] < len(files):
            if record.index == 1 and unit[3]:
                self._next_file(device, unit, record.started)
            unit[3] += 1
            if unit[2] < len(files) and record.index >= files[unit[2]][3]:
                self._next_file(device, unit, _end_of(record))
        self.inner.step_finished(device, record)

    def _next_file(self, device: str, unit: list[Any], started: str) -> None:
        unit[2], unit[3] = unit[2] + 1, 0
        files = self._files[unit[0]]
        if unit[2] < len(files):
            self._write({"journal": "file", "case_id": unit[0], "attempt": unit[1],
                         "file": files[unit[2]][0], "device": device, **_times(started)})

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        if self._units.get(device, [None])[0] == result.case_id:
            del self._units[device]
        if final:
            self._write(result.model_dump_json())
        else:       # an attempt to be retried: a killed run's case keeps it (its failure)
            self._write({"journal": "attempt", "result": result.model_dump(mode="json")})
        self.inner.case_finished(device, result, final)

    def close(self) -> None:
        with self._lock:
            try:
                self._file.close()
            except OSError as exc:      # its last flush, on a disk that filled up
                self._stop(exc)


def _times(started: str) -> dict[str, str]:
    """A line's times: ``started`` by the clock of the host running the case (its worker's)
    and, when that is not this farm's own, ``seen``: this farm's when it was told (a rebuild
    reads how far that host's clock is off from the two, `_offsets`)."""
    now = now_iso()
    return {"started": started, "seen": now} if started else {"started": now}


def _end_of(step: StepRecord) -> str:
    """When ``step`` ended, by the clock it started on (its host's: a worker's), else now."""
    begun = timestamp(step.started)
    if begun is None:
        return now_iso()
    return datetime.fromtimestamp(begun + step.duration, timezone.utc).isoformat(
        timespec="milliseconds")


# A run of another host (a shared or restored state dir) cannot be asked whether its process
# lives: its journal's last write says. A live run writes it at least every BEAT_SECONDS
# (`_Heartbeat`: a long step, a `sleep`, a model call writes nothing else); one unwritten for
# STALE_SECONDS (10 beats: room for two hosts' clocks and a shared disk's lag) has ended.
BEAT_SECONDS = 30.0
STALE_SECONDS = 300.0


class Writer(NamedTuple):
    """The farm still writing a run's journal: its process id and, for one of another host,
    that host's name ("": this host's)."""
    pid: int
    host: str = ""

    def __str__(self) -> str:
        return f"farm process {self.pid}" + (f" on host {self.host}" if self.host else "")


def running(run_dir: Path) -> bool:
    """Whether the farm that writes ``run_dir``'s journal is still running: its process on
    this host is alive, or, for another host's, the journal was written within STALE_SECONDS;
    False when the journal does not say (an older farm's)."""
    head = _head(run_dir)
    if head is None:
        return False
    if head["host"] != socket.gethostname():
        return _fresh(run_dir)
    return _alive(head["pid"])


def writer(run_dir: Path) -> int | None:
    """The process id of the farm still writing ``run_dir``'s journal (`writer_of`)."""
    found = writer_of(run_dir)
    return found.pid if found is not None else None


def writer_of(run_dir: Path) -> Writer | None:
    """The farm still writing ``run_dir``'s journal: another process on this host that is
    alive, or a farm on another host whose journal was written within STALE_SECONDS (a
    shared state dir; one longer silent has ended: killed, or its state dir restored on
    another CI runner). None when it is gone, this process (its own run before), or the
    journal does not say. A process that started after the journal did has only been given
    a killed farm's pid again: not the run's."""
    head = _head(run_dir)
    if head is None or head["host"] != socket.gethostname():
        return Writer(head["pid"], head["host"]) if head and _fresh(run_dir) else None
    if head["pid"] == os.getpid():
        return None
    began, since = _process_start(head["pid"]), timestamp(head.get("started"))
    if began is not None and since is not None and began > since + 2:
        return None
    return Writer(head["pid"]) if _alive(head["pid"]) else None


def host_of(run_dir: Path) -> str:
    """The host whose farm wrote ``run_dir``'s journal when it is another than this one;
    "" for this host's, or a journal that does not say."""
    head = _head(run_dir)
    return head["host"] if head and head["host"] != socket.gethostname() else ""


def silent_for(run_dir: Path) -> float | None:
    """Seconds since ``run_dir``'s journal was last written (a live run's heartbeat
    included), by this host's clock; None without a journal."""
    try:
        return time.time() - (Path(run_dir) / JOURNAL).stat().st_mtime
    except OSError:
        return None


def _fresh(run_dir: Path) -> bool:
    silent = silent_for(run_dir)
    return silent is not None and silent < STALE_SECONDS


class _Heartbeat:
    """Marks the journals of this process's runs as written (their time, not their text)
    every BEAT_SECONDS until the run ends (`conclude`) or the process does, so a farm of
    another host sharing the state dir sees the run is going on through a long step. One
    daemon thread for them all, gone while there is none."""

    def __init__(self) -> None:
        self._paths: set[Path] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, path: Path) -> None:
        with self._lock:
            self._paths.add(path)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="farm-journal-beat",
                                                daemon=True)
                self._thread.start()

    def discard(self, path: Path) -> None:
        with self._lock:
            self._paths.discard(path)

    def _run(self) -> None:
        while True:
            time.sleep(BEAT_SECONDS)
            with self._lock:
                if not self._paths:
                    self._thread = None
                    return
            self.beat()

    def beat(self) -> None:
        """Mark each journal written now; one gone (its run's folder removed, a claim given
        back) is no longer marked."""
        with self._lock:
            paths = list(self._paths)
        for path in paths:
            try:
                os.utime(path)
            except FileNotFoundError:
                self.discard(path)
            except OSError:
                pass            # (read-only now: its run says so when it writes)


HEARTBEAT = _Heartbeat()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass                # alive, another user's
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """A process that has ended and waits for its parent to collect its exit status (a farm
    killed from a program that has not waited for it yet): it still answers kill(pid, 0), but
    writes nothing more. Linux's /proc only; False elsewhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    fields = stat.rpartition(")")[2].split()     # (the command name may hold spaces)
    return bool(fields) and fields[0] == "Z"


def planned(run_dir: Path) -> bool:
    """Whether ``run_dir``'s journal got as far as the run's line (its planned cases): a
    run killed before, while it set up, has only its ``claim``."""
    try:
        with (Path(run_dir) / JOURNAL).open(encoding="utf-8", errors="replace") as f:
            return any('"journal": "run"' in f.readline() for _ in range(2))
    except (OSError, UnicodeDecodeError):
        return False


def _head(run_dir: Path) -> dict[str, Any] | None:
    """The journal's first line when it names its process (``pid``, ``host``), else None."""
    try:
        with (Path(run_dir) / JOURNAL).open(encoding="utf-8") as f:
            head = json.loads(f.readline())
        head["pid"], head["host"] = int(head["pid"]), str(head["host"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return head


def _process_start(pid: int) -> float | None:
    """When process ``pid`` started, POSIX seconds (to the second), where /proc says."""
    try:
        ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text()
                    .splitlines() if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def claim(run_dir: Path, run_id: str) -> None:
    """Take ``run_dir`` for this run before it sets up (FileExistsError when another run
    took it first): its journal, made here with one line naming this process, so a second
    `farm run` into the same --report-dir, or a `farm report` of it, sees a run is there.
    A disk too full for it costs only the claim: the run goes on, as with its journal."""
    try:
        fd = os.open(Path(run_dir) / JOURNAL, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        raise
    except OSError:
        return              # (no room for a file at all: the journal says so when it opens)
    import atexit
    line = json.dumps({"journal": "claim", "run_id": run_id, "started": now_iso(),
                       "pid": os.getpid(), "host": socket.gethostname()}) + "\n"
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(line)
    except OSError:
        pass                # the folder is taken all the same: its journal is there
    atexit.register(_release, Path(run_dir) / JOURNAL, line)
    HEARTBEAT.add(Path(run_dir) / JOURNAL)


def _release(path: Path, line: str) -> None:
    """A run that ended before it journaled anything (a --metrics-port in use, a setup
    error: exit 4) gives its folder back, so the corrected command needs no --overwrite."""
    try:
        if path.read_text(encoding="utf-8") == line:
            path.unlink()
    except (OSError, UnicodeDecodeError):
        pass


def _lines(run_dir: Path) -> list[str]:
    """The journal's lines; a byte that is not UTF-8 (disk damage: farm writes ASCII) costs
    its line alone, as any damaged line does, not the run (`farm.cli._damaged_lines` names
    it)."""
    return (Path(run_dir) / JOURNAL).read_text(encoding="utf-8", errors="replace").splitlines()


def recover(run_dir: Path) -> RunSummary:
    """A RunSummary from the journal of a run that never wrote results.json: its results, an
    attempt begun with none (interrupted: the steps it ended), cases never begun (not run).
    Interrupted when a case was cut short or never begun; killed after its last case ended,
    it is whole, its exit code its results', as a Ctrl-C then (`farm.session.LATE_STOP`)."""
    from farm.results import devices_of, exit_code_for
    head: dict[str, Any] = {}
    cases: dict[str, CaseResult] = {}
    began: dict[str, dict[str, Any]] = {}
    tried: dict[str, list[CaseResult]] = {}
    end: dict[str, Any] = {}
    about: dict[str, str] = {}
    reached: dict[str, list[dict[str, Any]]] = {}     # unit → its files' first steps
    ended: dict[tuple[str, int], list[StepRecord]] = {}    # (case, attempt) → steps it ended
    for line in _lines(run_dir):
        try:
            data = json.loads(line)
            if data.get("journal") == "run":
                head = data
            elif data.get("journal") == "device":
                about[data["device"]] = data["about"]
            elif data.get("journal") == "start":
                began[data["case_id"]] = data
            elif data.get("journal") == "file":
                reached.setdefault(data["case_id"], []).append(data)
            elif data.get("journal") == "end":
                end = data
            elif data.get("journal") in ("attempt", "step"):
                _ended_part(data, tried, ended)
            elif data.get("journal") == "claim":
                head = head or data     # a run killed while it set up: its id and start
            else:
                result = CaseResult.model_validate(data)
                cases[result.case_id] = result
        except (ValueError, KeyError, AttributeError):
            continue        # the line being written when the process died
    first = next(iter(cases.values()), None)
    run_id = head.get("run_id") or (first.run_id if first else Path(run_dir).name)
    for plan in _runs_of(head.get("planned", []), {*cases, *began, *tried}):
        if plan["case_id"] not in cases:
            cases[plan["case_id"]] = _unfinished(run_id, plan, began.get(plan["case_id"]),
                                                 tried.get(plan["case_id"], []),
                                                 reached.get(plan["case_id"], []))
            _steps_kept(cases[plan["case_id"]], ended, Path(run_dir))
    units = {p["case_id"] for p in head.get("planned", []) if p.get("files")}
    results = sorted(_per_file(cases.values(), units), key=lambda r: r.case_id)
    devices, info = devices_of(results)
    info = dict(sorted({**about, **info}.items()))
    started = head.get("started") or min((r.started for r in results if r.started), default="")
    last = _until_last(started, results, began, sum(reached.values(), []), ended)
    cut = not results or "planned" not in head or any(guessed(r) for r in results)
    summary = RunSummary(run_id=run_id, started=started, devices=devices, device_info=info,
                         cases=results, interrupted=cut, finished=last[0], duration=last[1],
                         farm_version=head.get("farm_version", ""), deselected=_left_out(head),
                         **{k: head.get(k) or None for k in ("shard", "cwd", "run_group")})
    summary.recount()
    summary.exit_code = exit_code_for(results, interrupted=cut)
    if end:
        _ended(summary, end)
    return summary


def _runs_of(planned: list[dict[str, str]], seen: set[str]) -> list[dict[str, str]]:
    """The runs of the planned cases: a --matrix run plans each case once and runs it once
    per device group, as ``case@group`` (`farm.cluster.jobs.expand_matrix`); a case with such
    runs in the journal (begun or ended) stands for those, where it stood for one case never
    started beside them and the runs begun without a result were left out. A case none of
    whose runs began is itself (its groups are not known)."""
    ids = {plan["case_id"] for plan in planned}
    out = []
    for plan in planned:
        groups = sorted(cid.removeprefix(plan["case_id"] + "@") for cid in seen
                        if cid.startswith(plan["case_id"] + "@") and cid not in ids)
        # (a unit's run on a group is one case: its files' ids are not the group's)
        out += [{**plan, "case_id": f"{plan['case_id']}@{group}", "files": [],
                 "name": f"{plan.get('name', '')} [{group}]"} for group in groups] or [plan]
    return out


def _per_file(results: Iterable[CaseResult], unit_ids: Container[str] = ()
              ) -> list[CaseResult]:
    """One result per file, as the run's end writes them: a shared-context unit's result
    becomes its files' (`farm.shared_context.expand`), where the unit stood as one case
    named after the batch, its id in the results history and --last-failed matching no
    file's. A unit the kill cut short has no file results to give (they come with the
    unit's, at its end): it stays one case. ``unit_ids``: the run's units (`_grouped`)."""
    from farm.shared_context import expand
    results = [_grouped(r, unit_ids) for r in results]
    # expand reads only a unit's .parts: a result holding its files' stands for its unit
    units: dict[str, Any] = {r.case_id: r for r in results if r.parts}
    return expand(results, units)


def _grouped(result: CaseResult, unit_ids: Container[str]) -> CaseResult:
    """A --matrix run's result of a unit on a device group (``unit@group``) with its files'
    named for the group too (``file@group``, "name [group]"), as the run names each case
    once per group: two groups' runs of a file were two cases of one id, no group named."""
    base, _, group = result.case_id.rpartition("@")
    if not (result.parts and base in unit_ids):
        return result

    def named(part: CaseResult) -> CaseResult:
        if part.case_id.endswith(f"@{group}"):
            return part
        return part.model_copy(update={"case_id": f"{part.case_id}@{group}",
                                       "name": f"{part.name} [{group}]"})
    return result.model_copy(update={
        "parts": [named(p) for p in result.parts],
        "previous": [a.model_copy(update={"parts": [named(p) for p in a.parts]})
                     for a in result.previous]})


def _left_out(head: dict[str, Any]) -> list[DeselectedCase]:
    """The cases the run's selection left out, as its journal's first line says."""
    try:
        return [DeselectedCase.model_validate(d) for d in head.get("deselected", [])]
    except ValueError:
        return []


def conclude(run_dir: Path, summary: RunSummary) -> None:
    """The run ended: say so in its journal (when it has one), with what results.json says
    besides the cases, before results.json is written. Once: a journal whose last line is
    this very end (the same run rebuilt again by `farm report`) is left as it is."""
    path = Path(run_dir) / JOURNAL
    HEARTBEAT.discard(path)         # (this write is its last sign of life)
    if not path.exists():
        return
    line = {"journal": "end", "started": summary.started, "finished": summary.finished,
            "duration": summary.duration, "exit_code": summary.exit_code,
            "interrupted": summary.interrupted, "quarantined": summary.quarantined,
            "lost": summary.lost, "since_last": {c.case_id: c.since_last
                                                 for c in summary.cases if c.since_last},
            "deselected": [d.model_dump() for d in summary.deselected]}
    text, last = json.dumps(line), _last_line(path)
    if _said(last) == json.loads(text):
        return
    torn = bool(last) and not last.endswith(b"\n")
    with path.open("a", encoding="utf-8") as f:   # (after a line a full disk cut: a line
        f.write(("\n" if torn else "") + text + "\n")     # of its own)


def concluded(run_dir: Path) -> bool:
    """Whether the run's journal ends with its ``end`` line (`conclude`): its end was
    written (by the run, or by a `farm report` that rebuilt it)."""
    try:
        said = _said(_last_line(Path(run_dir) / JOURNAL))
    except OSError:
        return False
    return isinstance(said, dict) and said.get("journal") == "end"


def _last_line(path: Path, chunk: int = 64 * 1024) -> bytes:
    """The file's last line, its newline included (b"" for an empty file); read from the
    end, however long the journal."""
    with path.open("rb") as f:
        end = f.seek(0, 2)
        tail, at = b"", end
        while at > 0:
            at = max(at - chunk, 0)
            f.seek(at)
            tail = f.read(min(chunk, end - at)) + tail
            cut = tail.rfind(b"\n", 0, len(tail) - 1)
            if cut != -1:
                return tail[cut + 1:]
        return tail


def _said(line: bytes) -> Any:
    """A journal line as JSON, or None when it is not (torn, damaged)."""
    try:
        return json.loads(line)
    except ValueError:
        return None


def _ended(summary: RunSummary, end: dict[str, Any]) -> None:
    """What the run's ``end`` line says, over what `recover` had to guess."""
    for name in ("started", "finished", "duration", "exit_code", "interrupted",
                 "quarantined", "lost"):
        if name in end and end[name] != "":     # "": an older farm's rebuild knew no time
            setattr(summary, name, end[name])
    if "deselected" in end:
        summary.deselected = [DeselectedCase.model_validate(d) for d in end["deselected"]]
    verdicts = end.get("since_last", {})
    for case in summary.cases:      # (an older farm's "flaky": read as a result file's is)
        said = verdicts.get(case.case_id, case.since_last)
        case.since_last = UNSTABLE if said == "flaky" else said


def _unfinished(run_id: str, plan: dict[str, Any], began: dict[str, Any] | None,
                tried: list[CaseResult], reached: list[dict[str, Any]]) -> CaseResult:
    """A planned case with no result: interrupted where an attempt had begun, else not run.
    Its attempts that ended before (``tried``: to be retried) are kept: one whose retry had
    not begun is the case's verdict, as a Ctrl-C leaves it (`farm.executors.base`). A
    shareBrowserContext unit's holds its files' (`_files_unfinished`)."""
    from farm.results import final_result
    if tried and (began is None or began.get("attempt", 1) <= tried[-1].attempt):
        verdict = final_result(tried)
        verdict.reason = (f"{verdict.reason}; " if verdict.reason else "") + \
            NOT_RETRIED
        return verdict
    common = dict(run_id=run_id, case_id=plan["case_id"], name=plan.get("name", ""),
                  file=plan.get("file", ""), platform=plan.get("platform", ""))
    parts = _files_unfinished(common, plan.get("files") or [], began, reached)
    if began is None:
        return CaseResult(**common, status="skipped", reason=NOT_STARTED, parts=parts)
    return CaseResult(**common, status="interrupted", device=began.get("device"),
                      attempt=began.get("attempt", 1), started=began.get("started", ""),
                      reason=CUT_SHORT, previous=tried, parts=parts)


def _ended_part(data: dict[str, Any], tried: dict[str, list[CaseResult]],
                ended: dict[tuple[str, int], list[StepRecord]]) -> None:
    """A journal line of an attempt that ended (to be retried) or of a step that ended."""
    if data["journal"] == "attempt":
        attempt = CaseResult.model_validate(data["result"])
        tried.setdefault(attempt.case_id, []).append(attempt)
    else:
        ended.setdefault((data["case_id"], int(data["attempt"])), []).append(
            StepRecord.model_validate(data["record"]))


def _steps_kept(result: CaseResult, ended: dict[tuple[str, int], list[StepRecord]],
                run_dir: Path) -> None:
    """A case farm was killed in, with the steps its attempt had ended (the journal's step
    lines): where it stood, each step's images that reached the disk (one still in the
    background when farm died has none), the last of them as the case's screenshot."""
    steps = ended.get((result.case_id, result.attempt or 1))
    if result.status != "interrupted" or result.reason != CUT_SHORT or not steps:
        return
    for rec in steps:
        rec.before, rec.after, rec.marked = (
            p if p and (run_dir / p).is_file() else None
            for p in (rec.before, rec.after, rec.marked))
    result.steps, result.reason = steps, STEPS_KEPT
    result.screenshot = next((r.after or r.before for r in reversed(steps)
                              if r.after or r.before), None)


def _files_unfinished(common: dict[str, str], files: list[dict[str, str]],
                      began: dict[str, Any] | None, reached: list[dict[str, Any]]
                      ) -> list[CaseResult]:
    """The files of a unit farm was killed in (none for a plain case): the one that took its
    last first step (else the first, in its set-up) interrupted, those before it ended with
    their results unsaved, those after it not run; each not run when the unit never began."""
    attempt = began.get("attempt", 1) if began else 0
    starts = {r["file"]: r.get("started", "") for r in reached if r.get("attempt") == attempt}
    running = max((i for i, f in enumerate(files) if f["case_id"] in starts), default=0)
    out = []
    for i, f in enumerate(files):
        part = CaseResult(**{**common, **f}, status="skipped", reason=NOT_STARTED)
        if began is not None and i <= running:
            part.status, part.attempt = "interrupted", attempt
            part.started = starts.get(f["case_id"]) or (began.get("started", "") if i == 0
                                                        else "")
            part.reason = CUT_SHORT if i == running else UNSAVED
        out.append(part)
    for part, after in zip(out, out[1:]):     # a file that ended ran until the next began
        begun, ended = timestamp(part.started), timestamp(after.started)
        if part.reason == UNSAVED and begun is not None and ended is not None:
            part.duration = round(max(ended - begun, 0.0), 3)
    return out


def _until_last(started: str, results: list[CaseResult], began: dict[str, dict[str, Any]],
                files: list[dict[str, Any]], ended: dict[tuple[str, int], list[StepRecord]]
                ) -> tuple[str, float]:
    """The run's end as the journal saw it (`_last_moment`), and the cases farm was killed
    in timed until then (`_ran_until`)."""
    behind = _offsets(lines := [*began.values(), *files])
    last = _last_moment(started, results, lines, behind, [
        (step, began.get(cid, {}).get("device", "")) for (cid, _), steps in ended.items()
        for step in steps])
    for result in results:
        _ran_until(result, last[0], behind.get(result.device or "", 0.0))
    return last


def _ran_until(result: CaseResult, last: str, behind: float = 0.0) -> None:
    """A case farm was killed in ran at least until the last moment the journal saw farm
    alive: its duration is to there (it was 0: "0 ms" in the report, no bar on its device's
    timeline, though it had held the device all that time). ``behind``: how far its host's
    clock, which its start is read on, is behind farm's (`_offsets`)."""
    if result.status != "interrupted" or result.reason not in (CUT_SHORT, STEPS_KEPT):
        return
    start, end = timestamp(result.started), timestamp(last)
    if start is not None and end is not None:
        result.duration = round(max(end - behind - start, 0.0), 3)
        summed(result)      # (a retry cut short: the case's time is every attempt's)


def _offsets(lines: Iterable[dict[str, Any]]) -> dict[str, float]:
    """device → how far its host's clock is behind this farm's (seconds; negative: ahead),
    from the lines farm saw (``seen``) after that host said it began (``started``): the
    least gap, the one with the least delay in it. A device of this host's has none."""
    out: dict[str, float] = {}
    for line in lines:
        seen, began = timestamp(line.get("seen")), timestamp(line.get("started"))
        if seen is not None and began is not None:
            device = str(line.get("device", ""))
            out[device] = min(out.get(device, seen - began), seen - began)
    return out


def _last_moment(started: str, results: list[CaseResult], began: Iterable[dict[str, Any]],
                 behind: dict[str, float] | None = None,
                 steps: Iterable[tuple[StepRecord, str]] = ()) -> tuple[str, float]:
    """(when, seconds after the run's start) of the last thing the journal says happened:
    a result's end, an attempt's start, a step's end (``steps``: each with its device), else
    the run's start. The time farm was killed is not known; this is the latest moment it was
    seen alive (without the steps, a case cut short read "69 ms" beside its 198 ms step). All
    on farm's own clock (the run's start is): a worker's times moved by how far its clock is
    off (``behind``)."""
    at, behind = timestamp, behind or {}
    t0 = at(started)
    ends = [t + r.duration + behind.get(r.device or "", 0.0) for r in results
            if (t := at(r.started)) is not None]
    ends += [t + s.duration + behind.get(device or "", 0.0) for s, device in steps
             if (t := at(s.started)) is not None]
    ends += [t for b in began if (t := at(b.get("seen") or b.get("started", ""))) is not None]
    if t0 is None and not ends:
        return "", 0.0
    last = max(ends, default=t0)
    when = datetime.fromtimestamp(round(last, 3), timezone.utc).isoformat(
        timespec="milliseconds")
    return when, round(last - t0, 3) if t0 is not None else 0.0
