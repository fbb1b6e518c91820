"""Case durations remembered across runs (SQLite under the state dir), for longest-first order."""

from __future__ import annotations

import logging
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Iterable

from farm.results import CaseResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS durations (
    key TEXT NOT NULL,          -- "<platform>:<case id>"
    seconds REAL NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS durations_key ON durations(key);
"""
_KEEP = 20   # samples kept per key
_HELD_A_DEVICE = ("passed", "failed", "flaky", "error")


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
        out: dict[str, list[float]] = {}
        try:
            # closing(): a connection's own `with` ends a transaction, never the connection
            with closing(self._connect()) as con:
                for key, seconds in con.execute(
                        "SELECT key, seconds FROM durations ORDER BY rowid"):
                    out.setdefault(key, []).append(seconds)
        except sqlite3.DatabaseError:
            return {}   # a corrupt history only costs us the ordering
        return out

    def record(self, results: Iterable[CaseResult]) -> None:
        """Remember how long each case held its device: a verdict, and an error after running
        (a timeout holds it for the whole timeout; counting it as a new case would start it
        late). Not skipped or never-started attempts (no device time: no duration) nor
        interrupted ones (cut short)."""
        rows = [(f"{r.platform}:{r.case_id}", r.duration, r.started) for r in results
                if r.status in _HELD_A_DEVICE and r.duration > 0]
        if not rows:
            return
        try:
            con = self._connect()
            try:
                with con:
                    con.executemany("INSERT INTO durations(key, seconds, at) VALUES (?, ?, ?)",
                                    rows)
                    for key in {r[0] for r in rows}:
                        con.execute(
                            "DELETE FROM durations WHERE key = ? AND rowid NOT IN (SELECT rowid "
                            "FROM durations WHERE key = ? ORDER BY rowid DESC LIMIT ?)",
                            (key, key, _KEEP))
            finally:
                con.close()
        except (sqlite3.Error, OSError) as exc:     # a full disk, a state dir gone read-only
            # best effort: it costs the next run's ordering, never this run's verdict
            why = f"case durations not recorded in {self.path}: {exc}"
            logging.getLogger("farm").warning(why)
            print(f"farm: warning: {why}", file=sys.stderr, flush=True)
