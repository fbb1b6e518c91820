"""Every run's verdicts, remembered across runs, for trends (``farm report --history``) and for
a run's own report (is this failure new, still failing or flaky?).

One compact record per run (`RunRecord`: totals plus one `CaseRecord` per case), stored as a
JSON document keyed by run id and indexed by start time:

    embedded default   SQLite file ``<state dir>/results.sqlite``
    cluster            the broker's Redis (keys ``<prefix>:results:*``), so every CI machine
                       sees every run
    FARM_RESULTS_HISTORY_URL=PATH or redis://...   an explicit shared one

Records are additive: a field a newer farm adds loads with its default from an older
record (and an older farm ignores it). results.sqlite's ``user_version`` says what its rows
were filled with (`SCHEMA_VERSION`), and its table ``unfilled`` the rows a farm that did not
fill them added (an older farm run again over the file: `_has_marks`);
`SqliteResults.upgrade` fills an older file's rows, and each row an older farm added since,
once, from the runs' results.json still on disk.

``farm/history.py`` is a different thing: per-case durations for longest-first scheduling.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol

from pydantic import BaseModel, Field

from farm.results import (UNSTABLE, CaseResult, RunSummary, case_usage, failing_step,
                          run_usage)

RED = ("failed", "error")
QUIET_WAIT = 2          # seconds of that wait said nothing of (another run writing its run)
LOCK_WAIT = 30          # seconds a results.sqlite another process holds locked is waited for
SCHEMA_VERSION = 1      # results.sqlite's user_version: 1 = red cases name their failing step
STEP_TEXT = 80          # a failing step's label, kept to this many characters


class FailedStep(BaseModel):
    """The step a red attempt ended on: where in the case, what it was, which error."""

    index: int                      # from 1, as in the report; 0: before the first step
    kind: str = ""                  # aiTap, assertText... ("" when results.json had no steps)
    label: str = ""                 # its short text, placeholders (never secret values)
    error: str = ""                 # the error's kind: AssertionFailed, CaseTimeout...

    def key(self) -> tuple[int, str]:
        """Which step it is, for counting: its place and its text (an edited file's step 4
        that is another step is another)."""
        return self.index, self.label


class Attempt(BaseModel):
    """An earlier attempt of a case in the same run."""

    status: str
    device: str | None = None
    error: str | None = None
    at: float = 0.0                 # when it started, POSIX seconds (0: not recorded)
    step: FailedStep | None = None  # a red attempt's failing step (None: not recorded)


class CaseRecord(BaseModel):
    case_id: str
    name: str = ""
    status: str
    at: float = 0.0                 # when its last attempt started, POSIX seconds (0: unknown)
    duration: float = 0.0           # every attempt's, as results.json's
    attempt_duration: float | None = None   # a retried case's last attempt alone (None: not
    # retried, or recorded before farm kept it)
    device: str | None = None
    tokens: int = 0
    cost: float = 0.0
    tokens_unknown: bool = False    # some call's tokens / cost unknown (farm.usage wording);
    cost_unknown: bool = False      # records from before these fields load as known
    model_seconds: float | None = None   # time in model calls, every attempt (None: not kept)
    error: str | None = None        # "<kind>: <first line of the message>" (masked already)
    # a red case's failing step (None: not red, or recorded before farm kept the step)
    step: FailedStep | None = None
    attempts: list[Attempt] = Field(default_factory=list)
    reason: str | None = None       # a skipped case's ("not run: …" a stop left it; None:
    # not skipped, or recorded before farm kept it)

    def last_failed_step(self) -> FailedStep | None:
        """The failing step of the attempt that made this run red for the case: its own when
        it is red, else (flaky: passed on a retry) its last failed attempt's, not a device
        error's between them."""
        if self.status in RED:
            return self.step
        return next((a.step for a in reversed(self.attempts) if a.status == "failed"), None)


class RunRecord(BaseModel):
    run_id: str
    started: str
    at: float = 0.0                 # started, as a POSIX timestamp (the index)
    duration: float = 0.0
    report: str | None = None       # absolute path of the run's report.html
    counts: dict[str, int] = Field(default_factory=dict)
    tokens: int = 0
    cost: float = 0.0
    tokens_unknown: bool = False    # any case's (see CaseRecord)
    cost_unknown: bool = False
    model_seconds: float = 0.0
    interrupted: bool = False
    cases: list[CaseRecord] = Field(default_factory=list)
    device_info: dict[str, str] = Field(default_factory=dict)   # device → what it was
    selection: list[str] = Field(default_factory=list)  # options that left cases out of it:
    # "--last-failed", "--shard 2/3", "-k login", "--tag smoke", "no ios device" (`selection_of`;
    # [] = none did)
    rebuilt: bool = False   # by `farm report` from a killed run's journal, not the run's end
    shard: str | None = None        # --shard I/N: which part of a sharded run ("2/3"; None:
    # a whole run, or recorded before farm kept it: `shard_of` reads its selection then)
    run_group: str | None = None    # results.json's: the CI run it was part of (None: none
    # said, or recorded before farm kept it: `farm.report.trends.fold_shards` goes by time)
    shards: list[RunRecord] = Field(default_factory=list)   # never stored: the page's row of
    # a sharded run (`fold_shards`), its shards' own records, in shard order

    def shard_of(self) -> tuple[int | None, int] | None:
        """(I, N) of a ``--shard I/N`` run (I None: not known, an older record's ``?``);
        None when it is no shard."""
        said = self.shard or next((s.split(" ", 1)[1] for s in self.selection
                                   if s.startswith("--shard ")), None)
        index, _, total = (said or "").partition("/")
        if not total.isdigit():
            return None
        return (int(index) if index.isdigit() else None), int(total)

    def holding(self, case_id: str) -> RunRecord:
        """The run whose report shows ``case_id``: the shard holding it (a sharded run's
        row), else this one."""
        return next((s for s in self.shards if any(c.case_id == case_id for c in s.cases)),
                    self)


def suite_of(case_id: str) -> str:
    return case_id.split("/", 1)[0]


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _error_text(result: CaseResult) -> str | None:
    if result.error is None:
        return None
    return f"{result.error.kind}: {_first_line(result.error.message)}"


def failed_step_of(result: CaseResult) -> FailedStep | None:
    """Where a red attempt ended: the step its error names (else its first bad step), or
    index 0 when it ended before its first step (the page or app did not open)."""
    if result.status not in RED or result.error is None:
        return None
    step = failing_step(result)
    if step is None:
        return FailedStep(index=result.error.step or 0, error=result.error.kind)
    return FailedStep(index=step.index, kind=step.kind, label=_first_line(step.label, STEP_TEXT),
                      error=result.error.kind)


def selection_of(summary: RunSummary) -> list[str]:
    """The selection options that left cases out of a run, in the order they apply, read
    from results.json's deselected cases (their reasons, `farm.select`): ``-k EXPR``,
    ``--tag T``, ``--exclude-tag T``, ``--shard I/N`` (I: the one shard no deselected case is
    in, else ``?``), ``--last-failed``, and last the platforms it had no device for: ``no
    android, ios devices`` (a ``--devices browser:1`` run of a three-platform suite; whether
    that is part of a night is the window's to say: `farm.report.trends.mark_partial`)."""
    found: dict[str, str] = {}
    excluded: set[str] = set()
    shards: set[str] = set()
    missing: set[str] = set()
    total = 0
    for d in summary.deselected:
        head = d.reason.split(": ", 1)[0]
        if d.reason.startswith("no "):
            missing.add(d.platform)
            continue
        if head.startswith("--exclude-tag "):
            excluded.update(t.strip() for t in head.removeprefix("--exclude-tag ").split(","))
            head = "--exclude-tag"
        elif head == "--shard":                 # "--shard: in shard 3/4"
            index, _, of = d.reason.rpartition(" ")[2].partition("/")
            shards.add(index)
            total = int(of) if of.isdigit() else total
        found.setdefault(head, head)
    if excluded:
        found["--exclude-tag"] = f"--exclude-tag {', '.join(sorted(excluded))}"
    if "--shard" in found:
        # shards past the number of cases are empty (`farm.select.shard_plan`): --shard 1/8 of
        # 7 cases was "--shard ?/8", shard 8 holding no deselected case either
        cases = len(summary.cases) + sum(d.reason.startswith(("--shard", "--last-failed"))
                                         for d in summary.deselected)
        mine = [str(i) for i in range(1, total + 1) if str(i) not in shards]
        mine = [i for i in mine if int(i) <= cases] or mine
        found["--shard"] = f"--shard {mine[0] if len(mine) == 1 else '?'}/{total or '?'}"
    return list(found.values()) + ([no_devices(sorted(missing))] if missing else [])


NO_DEVICES = re.compile(r"^no (\S+(?:, \S+)*) devices?$")    # `no_devices`' words


def no_devices(platforms: list[str]) -> str:
    """A run's selection entry for the platforms it had no device for: ``no android
    device``, ``no android, ios devices``."""
    return f"no {', '.join(platforms)} device{'s' * (len(platforms) > 1)}"


def _timestamp(iso: str, unknown: float | None = None) -> float:
    """``iso`` as POSIX seconds; ``unknown`` (default: now) when it is not a time."""
    try:
        moment = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return datetime.now(timezone.utc).timestamp() if unknown is None else unknown
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.timestamp()


def record_for(summary: RunSummary, report: Path | None = None) -> RunRecord:
    """The history record of a finished run (skipped cases kept: they show as gaps). A case's
    tokens, cost and model time are those of every attempt: a retried case's earlier attempts
    were paid for too (as the run's report and metrics count them)."""
    cases = []
    for c in summary.cases:
        spent = case_usage(c)
        cases.append(CaseRecord(
            case_id=c.case_id, name=c.name, status=c.status, at=_timestamp(c.started, 0.0),
            duration=c.duration, attempt_duration=c.attempt_duration, device=c.device,
            tokens=sum(sum(a.tokens.values()) for a in (*c.previous, c)),
            cost=spent.cost_usd, tokens_unknown=spent.tokens_unknown,
            cost_unknown=spent.cost_unknown, model_seconds=round(spent.latency_s, 3),
            error=_error_text(c), step=failed_step_of(c),
            attempts=[Attempt(status=p.status, device=p.device, error=_error_text(p),
                              at=_timestamp(p.started, 0.0), step=failed_step_of(p))
                      for p in c.previous],
            reason=c.reason if c.status == "skipped" else None))
    model_seconds = run_usage(summary).latency_s
    return RunRecord(
        run_id=summary.run_id, started=summary.started, at=_timestamp(summary.started),
        duration=summary.duration, report=str(report) if report else None,
        counts=dict(summary.counts), tokens=sum(c.tokens for c in cases),
        cost=round(sum(c.cost for c in cases), 6), model_seconds=round(model_seconds, 3),
        tokens_unknown=any(c.tokens_unknown for c in cases),
        cost_unknown=any(c.cost_unknown for c in cases),
        interrupted=summary.interrupted, cases=cases, device_info=dict(summary.device_info),
        selection=selection_of(summary), shard=summary.shard, run_group=summary.run_group)


class ResultsStore(Protocol):
    def add(self, record: RunRecord) -> None: ...

    def runs(self, since: float = 0.0) -> list[RunRecord]:
        """Runs started at or after ``since`` (POSIX seconds), oldest first."""
        ...

    def recent(self, count: int) -> list[RunRecord]:
        """The last ``count`` runs, oldest first."""
        ...

    def before(self, until: float, count: int) -> list[RunRecord]:
        """The last ``count`` runs started before ``until`` (POSIX seconds), oldest first."""
        ...


class HistoryUnreadable(Exception):
    """The results history is there but cannot be read: not a SQLite file, not farm's,
    Redis not answering. ``str()`` says why, in a few words."""


class SqliteResults:
    """The embedded store: one row per run, the record as JSON.

    A damaged file (garbled pages, cut short): with ``runs`` (the state dir's own history,
    whose runs are under ``<state dir>/runs``) it is moved aside, never deleted, and rebuilt
    from those runs' results.json, saying so in one line; a file named by the user is left
    alone, and the error says to move it aside."""

    _SCHEMA = ("CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, at REAL NOT NULL, "
               "record TEXT NOT NULL); CREATE INDEX IF NOT EXISTS runs_at ON runs(at);")

    def __init__(self, path: Path, runs: Path | None = None, keep: int | None = None) -> None:
        self.path = Path(path)
        self.keep = KEEP_RUNS if keep is None else keep     # newest runs kept (0: all)
        self.rebuild_from = runs    # when corrupt (None: say to move it aside instead)
        self.waited = False         # said once that another process holds the file locked

    def _waiting(self, con: sqlite3.Connection, sql: str, *args: Any) -> sqlite3.Cursor:
        """``con.execute(sql)``, the statement that takes the file's lock: when another
        process holds it past QUIET_WAIT s (not a concurrent run's write, over in a moment),
        says once on stderr that farm waits for the file (up to LOCK_WAIT s), where a locked
        history was ~90 s of silence at a run's end."""
        con.execute(f"PRAGMA busy_timeout = {round(min(QUIET_WAIT, LOCK_WAIT) * 1000)}")
        try:
            return con.execute(sql, args)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if not self.waited:
                import sys
                self.waited = True
                print(f"farm: waiting for the results history {self.path} (locked by another "
                      f"process; up to {LOCK_WAIT} s)", file=sys.stderr, flush=True)
            con.execute(f"PRAGMA busy_timeout = {LOCK_WAIT * 1000}")
            return con.execute(sql, args)
        finally:
            con.execute(f"PRAGMA busy_timeout = {LOCK_WAIT * 1000}")

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=LOCK_WAIT)
        fresh = self._waiting(
            con, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'"
        ).fetchone() is None
        con.executescript(self._SCHEMA)
        if fresh:       # every record this farm writes has what SCHEMA_VERSION says
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if not _has_marks(con):     # (an older file: `upgrade` fills its unmarked rows)
            _add_marks(con)
            con.commit()
        return con

    def upgrade(self, runs: Path | None = None) -> int:
        """Bring a results.sqlite an older farm wrote up to `SCHEMA_VERSION`, once: its rows
        stay as they are, and a run whose results.json is still there (beside its report, or
        under ``runs``) gets what that file says and the old record lacked: its red cases'
        failing steps, the options that left cases out of it. Returns the runs filled in.
        Not farm's file, or not a database: left alone (reading it says why). One that cannot
        be written (read-only, locked): said on stderr; the page then lacks those steps."""
        try:
            con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True,
                                  timeout=LOCK_WAIT)
        except (sqlite3.Error, OSError):
            return 0        # no file: reads make none
        try:
            self._waiting(con, "SELECT 1 FROM sqlite_master")
            current = not _has_runs(con) or _up_to_date(con)
        except sqlite3.DatabaseError:
            current = True      # not a database: left to the reads to say so
        if current:
            con.close()
            return 0
        try:
            self._waiting(con, "BEGIN IMMEDIATE")   # one farm upgrades; the others wait, then see it
            if _up_to_date(con):
                return 0
            if not _has_marks(con):
                _add_marks(con)
            filled = [(r.model_dump_json(exclude_defaults=True), r.run_id)
                      for (text,) in con.execute(
                          "SELECT record FROM runs WHERE run_id IN (SELECT run_id FROM unfilled)"
                      ).fetchall()
                      if (r := _backfilled(text, runs)) is not None]
            con.executemany("UPDATE runs SET record = ? WHERE run_id = ?", filled)
            # (a row whose results.json is gone stays as it is: looked at once, not each open)
            con.execute("DELETE FROM unfilled")
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.commit()
            return len(filled)
        except sqlite3.DatabaseError as exc:
            import sys
            if "readonly" in str(exc) and _version(con) >= SCHEMA_VERSION:
                return 0    # (a read-only file this farm wrote before `_has_marks`: up to date)
            print(f"farm: warning: results history {self.path} not upgraded (older runs' "
                  f"failing steps left unknown): {exc}", file=sys.stderr, flush=True)
            return 0
        finally:
            con.close()

    def add(self, record: RunRecord) -> None:
        self.add_many([record])

    def add_many(self, records: Iterable[RunRecord]) -> None:
        rows = records_rows(records)
        self._mended(lambda: self._insert(rows))

    def _insert(self, rows: list[tuple[str, float, str]]) -> None:
        with self._connect() as con:
            self._waiting(con, "BEGIN IMMEDIATE")
            con.executemany("INSERT OR REPLACE INTO runs(run_id, at, record) VALUES (?, ?, ?)",
                            rows)
            con.executemany("DELETE FROM unfilled WHERE run_id = ?",     # (filled: `_has_marks`)
                            [(run_id,) for run_id, _, _ in rows])
            # the newest `keep` runs, many times what a verdict reads (CONTEXT_MAX): a farm
            # running every few minutes grew its history without end
            if self.keep:
                con.execute("DELETE FROM runs WHERE run_id NOT IN (SELECT run_id FROM runs "
                            "ORDER BY at DESC, run_id DESC LIMIT ?)", (self.keep,))
        con.close()

    def _mended(self, action: Callable[[], Any]) -> Any:
        """``action()``; when the file is corrupt, once more after `_rebuild` (`rebuild_from`),
        else HistoryUnreadable saying which file and to move it aside."""
        from farm.cache.sqlite_store import is_corrupt
        try:
            return action()
        except sqlite3.DatabaseError as exc:    # a file the user named may be no database
            if not is_corrupt(exc, not_a_database=self.rebuild_from is not None):
                raise
            if self.rebuild_from is None:
                raise HistoryUnreadable(f"{self.path} is corrupt ({exc}): move it aside, and "
                                        "farm starts a new one there") from None
            self._rebuild(str(exc))
        return action()

    def _rebuild(self, why: str) -> None:
        """Move the corrupt file aside and fill a new one from the runs under `rebuild_from`."""
        import sys

        from farm.cache.sqlite_store import set_aside
        assert self.rebuild_from is not None
        try:
            moved = set_aside(self.path)
        except OSError as exc:
            raise HistoryUnreadable(f"{self.path} is corrupt ({why}) and cannot be moved "
                                    f"aside ({exc.strerror or exc}): move it aside, and farm "
                                    f"rebuilds it from {self.rebuild_from}") from None
        records, _ = _earlier_records(self.rebuild_from)
        # (none: the fresh file still gets farm's table, or a read next found "not farm's")
        self._insert(records_rows(records))
        print(f"farm: warning: results history {self.path} was corrupt ({why}): moved it to "
              f"{moved}; rebuilt it from the {len(records)} run(s) under {self.rebuild_from}",
              file=sys.stderr, flush=True)

    def runs(self, since: float = 0.0) -> list[RunRecord]:
        return self._select("SELECT record FROM runs WHERE at >= ? ORDER BY at, run_id",
                            since)

    def recent(self, count: int) -> list[RunRecord]:
        newest = self._select(
            "SELECT record FROM runs ORDER BY at DESC, run_id DESC LIMIT ?", count)
        return newest[::-1]

    def before(self, until: float, count: int) -> list[RunRecord]:
        newest = self._select("SELECT record FROM runs WHERE at < ? "
                              "ORDER BY at DESC, run_id DESC LIMIT ?", until, count)
        return newest[::-1]

    def _select(self, sql: str, *args: Any) -> list[RunRecord]:
        """Reads change nothing: no file is made, no table added to someone else's SQLite
        (but farm's own corrupt one is set aside and rebuilt: `_mended`). An empty file is
        a history with no run yet: SQLite made it on a disk that was full, and the next run
        that can write there writes its tables."""
        try:
            if self.path.stat().st_size == 0:   # (a full disk's: made, never written) as none
                return []
        except FileNotFoundError:
            return []
        try:
            return self._mended(lambda: self._read(sql, args))
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                raise HistoryUnreadable(f"a SQLite file, not farm's: {exc}") from None
            raise HistoryUnreadable(str(exc)) from None
        except sqlite3.DatabaseError as exc:        # "file is not a database"
            raise HistoryUnreadable(str(exc)) from None
        except ValueError as exc:                   # a record farm did not write
            raise HistoryUnreadable(f"a run record is not farm's: {_first_line(str(exc))}"
                                    ) from None

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[RunRecord]:
        con = sqlite3.connect(self.path, timeout=LOCK_WAIT)
        try:
            rows = self._waiting(con, sql, *args).fetchall()
        finally:
            con.close()
        return [RunRecord.model_validate_json(text) for (text,) in rows]


def records_rows(records: Iterable[RunRecord]) -> list[tuple[str, float, str]]:
    return [(r.run_id, r.at, r.model_dump_json(exclude_defaults=True)) for r in records]


def _has_runs(con: sqlite3.Connection) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'"
                       ).fetchone() is not None


def _has_marks(con: sqlite3.Connection) -> bool:
    """Whether the file keeps which rows were added by a farm that did not fill them: the table
    ``unfilled`` (run ids) and the trigger that puts each row added to ``runs`` there. This
    farm takes its own rows out as it adds them (`SqliteResults._insert`); an older farm run
    again over the file (before the failing steps, or before this table) knows neither, so
    its rows stay there for `upgrade`, found by their key, not by reading every row at each
    open."""
    return con.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND "
                       "name = 'runs_unfilled'").fetchone() is not None


def _add_marks(con: sqlite3.Connection) -> None:
    """Add the table ``unfilled`` and its trigger (`_has_marks`); every row already there is
    looked at once by `upgrade` (a farm older than this table may have added it)."""
    con.execute("CREATE TABLE IF NOT EXISTS unfilled (run_id TEXT PRIMARY KEY)")
    con.execute("CREATE TRIGGER IF NOT EXISTS runs_unfilled AFTER INSERT ON runs BEGIN "
                "INSERT OR IGNORE INTO unfilled(run_id) VALUES (NEW.run_id); END")
    con.execute("INSERT OR IGNORE INTO unfilled(run_id) SELECT run_id FROM runs")


def _up_to_date(con: sqlite3.Connection) -> bool:
    """Nothing for `upgrade` to do: the file is at `SCHEMA_VERSION` and no row a farm that
    did not fill it added waits; one look-up."""
    return _version(con) >= SCHEMA_VERSION and _has_marks(con) and \
        con.execute("SELECT 1 FROM unfilled LIMIT 1").fetchone() is None


def _version(con: sqlite3.Connection) -> int:
    return con.execute("PRAGMA user_version").fetchone()[0]


def _backfilled(text: str, runs: Path | None) -> RunRecord | None:
    """A stored record with what its run's results.json says that it lacks (failing steps,
    selection), None when there is nothing to add (no results.json left, another run's
    there now, or a record farm cannot read: kept as it is)."""
    try:
        record = RunRecord.model_validate_json(text)
    except ValueError:
        return None
    summary = _results_json(record, runs)
    if summary is None:
        return None
    fresh = {c.case_id: c for c in record_for(summary).cases}
    before = record.model_dump()
    for case in record.cases:
        now = fresh.get(case.case_id)
        if now is None:
            continue
        case.step = case.step or now.step
        if len(now.attempts) == len(case.attempts):
            for old, new in zip(case.attempts, now.attempts):
                old.step = old.step or new.step
    record.selection = record.selection or selection_of(summary)
    record.shard = record.shard or summary.shard
    record.run_group = record.run_group or summary.run_group
    return record if record.model_dump() != before else None


def _results_json(record: RunRecord, runs: Path | None) -> RunSummary | None:
    """The run's results.json, if it is still there and still that run's: beside its report,
    else under ``runs/<run id>``."""
    from pydantic import ValidationError
    places = [Path(record.report).parent] if record.report else []
    places += [runs / record.run_id] if runs is not None else []
    for place in places:
        try:
            summary = RunSummary.model_validate_json((place / "results.json").read_bytes())
        except (OSError, ValidationError):
            continue
        if summary.run_id == record.run_id:
            return summary
    return None


class RedisResults:
    """The shared store: a hash run id → record, a sorted set run id by start time; the
    newest `keep` runs (KEEP_RUNS), older ones dropped as one is added."""

    def __init__(self, client: Any, prefix: str = "farm", keep: int | None = None) -> None:
        self.r = client
        self.records = f"{prefix}:results:runs"
        self.index = f"{prefix}:results:index"
        self.keep = KEEP_RUNS if keep is None else keep     # (0: all)

    def add(self, record: RunRecord) -> None:
        # no MULTI: a reader skips an index entry without its record, and a user the ACL
        # refuses MULTI saw "EXEC without MULTI" (both commands run all the same, alone)
        pipe = self.r.pipeline(transaction=False)
        pipe.hset(self.records, record.run_id, record.model_dump_json(exclude_defaults=True))
        pipe.zadd(self.index, {record.run_id: record.at})
        pipe.zcard(self.index)
        *_, count = pipe.execute()
        if self.keep and count > self.keep:
            self._trim(count - self.keep)

    def _trim(self, over: int) -> None:
        """Drop the ``over`` oldest runs: the record first, so that a reader never finds an
        index entry of a record that is gone (it skips one without its record anyway). Two
        clients trimming at once drop the same runs."""
        old = self.r.zrange(self.index, 0, over - 1)
        if old:
            self.r.hdel(self.records, *old)
            self.r.zrem(self.index, *old)

    def runs(self, since: float = 0.0) -> list[RunRecord]:
        return self._load(lambda: self.r.zrangebyscore(self.index, since, "+inf"))

    def recent(self, count: int) -> list[RunRecord]:
        return self._load(lambda: list(reversed(self.r.zrevrange(self.index, 0, count - 1))))

    def before(self, until: float, count: int) -> list[RunRecord]:
        return self._load(lambda: list(reversed(self.r.zrevrangebyscore(
            self.index, f"({until}", "-inf", start=0, num=count))))

    def _load(self, find_ids: Callable[[], list[str]]) -> list[RunRecord]:
        import redis
        try:
            ids = find_ids()
            texts = self.r.hmget(self.records, ids) if ids else []
            return [RunRecord.model_validate_json(t) for t in texts if t]
        except redis.RedisError as exc:
            raise HistoryUnreadable(f"{type(exc).__name__}: {exc}") from None
        except ValueError as exc:                   # a record farm did not write
            raise HistoryUnreadable(f"a run record is not farm's: {_first_line(str(exc))}"
                                    ) from None


def open_results(settings: Any, where: str | None = None) -> ResultsStore:
    """The results history to use: ``where`` (a path or redis:// URL), else
    FARM_RESULTS_HISTORY_URL, else the broker's Redis in cluster mode, else SQLite under the
    state dir."""
    where = where or settings.results_history_url
    keep = getattr(settings, "results_history_keep", None)  # (None: KEEP_RUNS)
    broker = settings.broker_url.get_secret_value() if settings.broker_url else None
    if where is None and broker:
        where = broker
    if is_redis(where):
        from farm.cluster import store
        return RedisResults(store.connect(where), settings.cluster_prefix, keep)
    state = Path(settings.state_dir)
    if where:
        results = SqliteResults(Path(where), keep=keep)
        results.upgrade(state / "runs")
        return results
    results = SqliteResults(state / "results.sqlite", runs=state / "runs", keep=keep)
    if not results.path.exists():       # first use: a farm from before the history ran here
        import_earlier_runs(results, state / "runs")
    results.upgrade(state / "runs")     # a history an older farm started: its runs' steps
    return results


def import_earlier_runs(store: SqliteResults, runs: Path) -> int:
    """Put the runs a farm from before the results history left under ``runs``
    (``<state dir>/runs/<run id>/results.json``) into a new ``store``, once, saying so on
    stderr: an upgrade keeps their verdicts (a case failing every night is still failing,
    not a new failure; ``farm report --history`` shows them). A results.json farm cannot read
    is left out and counted; a store that cannot be written costs only the import."""
    import sys
    records, unreadable = _earlier_records(runs)
    if not records:
        return 0
    try:
        store.add_many(records)
    except (sqlite3.Error, OSError) as exc:
        print(f"farm: warning: earlier runs not imported into {store.path}: {exc}",
              file=sys.stderr, flush=True)
        return 0
    skipped = f" ({unreadable} unreadable results.json left out)" if unreadable else ""
    print(f"farm: results history {store.path} started with the {len(records)} earlier "
          f"run(s) under {runs}{skipped}", file=sys.stderr, flush=True)
    return len(records)


def _earlier_records(runs: Path) -> tuple[list[RunRecord], int]:
    """The records of the runs under ``runs`` (their results.json), and how many
    results.json could not be read."""
    from pydantic import ValidationError
    records, unreadable = [], 0
    try:
        found = sorted(p for p in runs.iterdir() if (p / "results.json").is_file())
    except OSError:
        return [], 0        # no runs folder: nothing ran here before
    for run_dir in found:
        try:
            summary = RunSummary.model_validate_json((run_dir / "results.json").read_bytes())
        except (OSError, ValidationError):
            unreadable += 1
            continue
        if summary.cases:
            report = run_dir / "report.html"
            records.append(record_for(summary, report.resolve() if report.exists() else None))
    return records, unreadable


def is_redis(where: str | None) -> bool:
    """``where`` names a Redis (else it is a SQLite file's path)."""
    return bool(where) and where.startswith(("redis://", "rediss://", "unix://"))


GREEN = ("passed", "flaky")
FINISHED = (*GREEN, *RED)     # what a pass rate counts: skipped and interrupted cases did not end


def pass_rate(counts: Mapping[str, int]) -> tuple[int, int, float | None]:
    """(passed, finished, passed / finished) from status counts: passed and flaky cases out of
    every case that reached a verdict (passed, flaky, failed, error). Skipped and interrupted
    cases are left out: they neither passed nor failed. The Grafana dashboard and the alert
    rules (deploy/) divide the same way."""
    passed = sum(counts.get(s, 0) for s in GREEN)
    finished = sum(counts.get(s, 0) for s in FINISHED)
    return passed, finished, passed / finished if finished else None


WINDOW = 10       # earlier runs of a case that decide new failure / still failing / unstable
CONTEXT_RUNS = 50     # runs before a run (any suite's) that its verdicts are decided against
CONTEXT_MAX = 400     # ... and at most this many, for a case those did not run
KEEP_RUNS = 2000      # a results history keeps its newest this many runs (each add trims it;
#                       FARM_RESULTS_HISTORY_KEEP)


def classify(previous: list[str], status: str) -> str | None:
    """A ``status`` against a case's earlier statuses (newest last), the one definition the
    console, results.json's ``since_last``, report.html and the history page share. Red:
    ``new failure`` (green or unseen before; a first run gets no verdict: `since_last`),
    ``still failing`` (red last time too) or
    ``unstable`` (green last time, red or flaky earlier in the window: its verdict goes back
    and forth; an older farm's results.json says "flaky"). Green after red, the other way
    round: ``fixed`` when nothing before that red streak in the window was red or flaky (a
    regression mended: passed, failed for some nights, passed), else ``unstable`` (failed,
    passed, failed, passed: its verdict goes back and forth, never *fixed*). Else None."""
    seen = previous[-WINDOW:]
    if status in RED:
        if seen and seen[-1] in RED:
            return "still failing"
        if any(s in RED or s == "flaky" for s in seen):
            return UNSTABLE
        return "new failure"
    if status in GREEN and seen and seen[-1] in RED:
        start = len(seen)       # (the red streak this pass ends: seen[start:], a run that
        while start and seen[start - 1] not in GREEN:       # skipped it or was cut short
            start -= 1                                      # inside it is no pass)
        return UNSTABLE if any(s in RED or s == "flaky" for s in seen[:start]) else "fixed"
    return None


def context_before(store: ResultsStore, until: float, cases: Mapping[str, str]
                   ) -> list[RunRecord]:
    """The runs before ``until`` (oldest first) that the verdicts of ``cases`` (case id →
    its status now) are decided against: the last CONTEXT_RUNS, and further back, up to
    CONTEXT_MAX, while one of them has no finished run among those (a shared history: a
    nightly suite's case behind more than CONTEXT_RUNS runs of other suites was a *new
    failure* every night, though it had failed the night before too)."""
    runs = store.before(until, CONTEXT_RUNS)
    full = len(runs) == CONTEXT_RUNS        # (else the history holds no older run)
    while full and len(runs) < CONTEXT_MAX and not _all_seen(runs, cases):
        page = min(2 * len(runs), CONTEXT_MAX - len(runs))     # older ones, each read once
        older = store.before(runs[0].at, page)
        full, runs = len(older) == page, older + runs
    return runs


def _all_seen(runs: list[RunRecord], cases: Mapping[str, str]) -> bool:
    """Whether each of ``cases`` finished in one of ``runs`` (its last verdict is known)."""
    seen = {case.case_id for run in runs for case in run.cases
            if case.case_id in cases and counts_for_verdicts(case)}
    return seen >= cases.keys()


def counts_for_verdicts(case: CaseRecord) -> bool:
    """Whether a recorded case's status says something of the case: it finished, and not as
    an infrastructure error (its device broke, not the app: a real failure after it is still
    a new failure, not flaky)."""
    if case.status not in FINISHED:
        return False
    if case.status == "error" and case.error:
        return not _device_error(case.error.split(":", 1)[0].strip())
    return True


def _device_error(kind: str) -> bool:
    """Whether an error of this kind (``DeviceLost``) is the device's, not the case's."""
    from farm.attempts import Outcome, error_outcome
    return error_outcome(kind) is Outcome.INFRA


def since_last(history: list[RunRecord], summary: RunSummary) -> dict[str, str]:
    """For each case of ``summary``, its `_verdict` against the runs before (red: new
    failure / still failing / unstable; green: fixed / flaky before). An
    interrupted run's finished cases count as any run's (a case that failed in it is not new
    the next time); cases that did not finish (skipped, interrupted), or ended as the device's
    infrastructure error, are no verdict (`counts_for_verdicts`), before or now: a case whose
    phone died is no *new failure* (nor, the night after, *fixed*). A first run (no run before
    it in the history: a first night, a CI runner's clean workspace) gives no verdict at all:
    nothing to compare with (its 8 failures were 8 "new failures"); a case new to a history
    that has runs is judged as before (red: a new failure). A history whose runs before
    finished no case (a first night stopped in its first seconds, every case skipped) is a
    first run too."""
    past: dict[str, list[str]] = {}
    for run in history:
        if run.run_id == summary.run_id:
            continue
        for case in run.cases:
            if counts_for_verdicts(case):
                past.setdefault(case.case_id, []).append(case.status)
    if not past:
        return {}
    return {c.case_id: verdict for c in summary.cases
            if not (c.status == "error" and c.error and _device_error(c.error.kind))
            and (verdict := _verdict(past.get(c.case_id, []), c.status))}


FLAKY_BEFORE = "flaky before"


def _verdict(previous: list[str], status: str) -> str | None:
    """A case's `since_last` against its earlier statuses (newest last): a red or passed
    one's `classify` verdict (a pass after red: ``fixed``, or ``unstable`` when it had passed
    before that red); a case flaky now that was flaky in the window before too: ``flaky
    before`` (never *fixed*: it failed again in this run)."""
    if status == "flaky":
        return FLAKY_BEFORE if "flaky" in previous[-WINDOW:] else None
    return classify(previous, status) if status in (*RED, "passed") else None


def remember_run(settings: Any, summary: RunSummary, report: Path,
                 rebuilt: bool = False) -> bool:
    """Mark each case of ``summary`` new / still failing / flaky / fixed against the runs that
    started before it (not a later one: a killed run `farm report` rebuilds the next day, a
    CI job that overlapped another), then add the run to the results history (``rebuilt``:
    what `farm report` made of a killed run's journal). Best effort: a history that cannot be
    reached costs the comparison, never the run's results; one whose earlier runs cannot be
    read costs the comparison alone (it stopped every later run's from being added). False
    when it was not added."""
    unread, store = None, None
    try:
        store = open_results(settings)
        red = {c.case_id: c.status for c in summary.cases if c.status in RED}
        try:
            earlier = context_before(store, _timestamp(summary.started), red)
        except Exception as exc:    # (a record farm cannot read, a lock): added still
            earlier, unread = [], exc
            if red:      # (a run of passes alone loses only its "fixed": said below, if so)
                _say("results history not read (this run's failures are not marked new or "
                     "still failing)", _naming(exc, store))
        verdicts = {} if unread is not None else since_last(earlier, summary)
        for case in summary.cases:
            case.since_last = verdicts.get(case.case_id)
        if summary.cases:
            store.add(record_for(summary, report.resolve()).model_copy(
                update={"rebuilt": rebuilt}))
    except Exception as exc:   # sqlite3, redis and OS errors alike: say so and go on
        _say("results history not updated",        # the history page will lack this run
             _refused(settings, exc) or _naming(exc, store))
        return False
    return bool(summary.cases)


def _naming(exc: BaseException, store: ResultsStore | None) -> str:
    """``exc``'s text, and the history's file where it does not name it (database is locked)."""
    where = _where(store) if store is not None else ""
    return f"{exc} ({where})" if where and where not in str(exc) else str(exc)


def _where(store: ResultsStore | None) -> str:
    """The history's file, or that it is a Redis one (its URL may hold a password)."""
    return str(store.path) if isinstance(store, SqliteResults) else "the Redis history"


def _refused(settings: Any, exc: BaseException) -> str | None:
    """For a Redis history whose ACL user may not do what farm does there (NOPERM): which
    Redis, which user, and the keys farm needs (the bare "this user has no permissions to run
    the 'hset' command" named neither)."""
    from urllib.parse import urlsplit

    from redis.exceptions import NoPermissionError

    from farm.config import mask_url
    if not isinstance(exc, NoPermissionError):
        return None
    broker = settings.broker_url.get_secret_value() if settings.broker_url else None
    url = settings.results_history_url or broker or ""
    try:
        user = urlsplit(url).username or "default"
    except ValueError:
        user = "default"
    keys = f"{settings.cluster_prefix}:results:*"
    said = re.sub(r"^Command # \d+ \(.*?\) of pipeline caused error: ", "", str(exc))
    return (f"Redis {mask_url(url)} refuses user '{user}': {said} (the results history needs "
            f"every command on the keys {keys}: ACL SETUSER {user} ~{keys} +@all)")


def _say(what: str, exc: BaseException | str) -> None:
    """``farm: warning: <what>: <exc>`` in farm.log and on the console."""
    import logging
    import sys
    logging.getLogger("farm").warning("%s: %s", what, exc)
    print(f"farm: warning: {what}: {exc}", file=sys.stderr, flush=True)
