"""Case durations remembered across runs (SQLite under the state dir), for longest-first order."""

from __future__ import annotations

import logging
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from farm.results import CaseResult, own_duration

_SCHEMA = """
CREATE TABLE IF NOT EXISTS durations (
    key TEXT NOT NULL,          -- "<platform>:<case id>"
    seconds REAL NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS durations_key ON durations(key);
"""
_KEEP = 20   # samples kept per key
_VERDICTS = ("passed", "failed", "flaky")
T = TypeVar("T")


class DurationHistory:
    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / "history.sqlite"

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=10)
        try:
            con.executescript(_SCHEMA)
        except BaseException:
            con.close()     # a corrupt file: its descriptor is not left to the collector
            raise
        return con

    def load(self) -> dict[str, list[float]]:
        """All remembered samples, oldest first, keyed ``platform:case_id``."""
        if not self.path.exists():
            return {}
        try:
            return self._mended(self._read)
        except (sqlite3.DatabaseError, OSError):
            return {}   # a history we cannot read only costs us the ordering

    def _read(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        # closing(): a connection's own `with` ends a transaction, never the connection
        with closing(self._connect()) as con:
            for key, seconds in con.execute("SELECT key, seconds FROM durations ORDER BY rowid"):
                out.setdefault(key, []).append(seconds)
        return out

    def _mended(self, action: Callable[[], T]) -> T:
        """``action()``; when the file is corrupt (garbled, cut short, no database at all), once
        more after it is set aside for a new one, as the results history and cache store do:
        left there, every later run found it corrupt again and said so."""
        from farm.cache.sqlite_store import is_corrupt, set_aside
        try:
            return action()
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            why = str(exc)
        try:
            moved = set_aside(self.path)
        except FileNotFoundError:
            moved = None    # another farm starting at once set it aside first
        except OSError as exc:
            raise sqlite3.DatabaseError(f"{why}; cannot move it aside: {exc.strerror or exc}"
                                        ) from None
        if moved is not None:
            _warn(f"case durations history {self.path} was corrupt ({why}): moved it to "
                  f"{moved}; started a new one")
        return action()

    def record(self, results: Iterable[CaseResult]) -> None:
        """Remember how long each case held its device: a verdict, a timeout (it held it for
        the whole timeout; counting it as a new case would start it late), and a skip that came
        on the device (a step needing a model: the next run without one holds the device as
        long; before, such a case read as new to the machine, 30 s, however often it ran). Not
        attempts skipped or not run before a device opened (no device time), nor those cut
        short: interrupted, or ended by its device, the model or farm breaking (Marathon's
        incomplete tests: a 10-minute case whose phone died at 2 s was scheduled last the next
        run, as a 2 s one)."""
        rows = [(f"{r.platform}:{r.case_id}", own_duration(r), r.started) for r in results
                if _ran_to_its_end(r) and own_duration(r) > 0]   # (one attempt's)
        if not rows:
            return
        try:
            self._mended(lambda: self._write(rows))
        except (sqlite3.Error, OSError) as exc:     # a full disk, a state dir gone read-only
            # best effort: it costs the next run's ordering, never this run's verdict
            _warn(f"case durations not recorded in {self.path}: {exc}")

    def _write(self, rows: list[tuple[str, float, str]]) -> None:
        con = self._connect()
        try:
            with con:
                con.executemany("INSERT INTO durations(key, seconds, at) VALUES (?, ?, ?)", rows)
                for key in {r[0] for r in rows}:
                    con.execute(
                        "DELETE FROM durations WHERE key = ? AND rowid NOT IN (SELECT rowid "
                        "FROM durations WHERE key = ? ORDER BY rowid DESC LIMIT ?)",
                        (key, key, _KEEP))
        finally:
            con.close()


def _ran_to_its_end(result: CaseResult) -> bool:
    """Whether the attempt's time is the case's: a verdict, a timeout, or a skip on its device
    (the "not run" ones a stop or a batch's failed file left: no time of the case's own)."""
    if result.status in _VERDICTS:
        return True
    if result.status == "skipped":
        return result.device is not None and not (result.reason or "").startswith("not run")
    from farm.attempts import Outcome, error_outcome
    return result.status == "error" and error_outcome(
        result.error.kind if result.error else "InternalError") is Outcome.TIMEOUT


def _warn(why: str) -> None:
    logging.getLogger("farm").warning(why)
    print(f"farm: warning: {why}", file=sys.stderr, flush=True)
