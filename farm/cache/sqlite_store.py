"""The embedded cache store: one SQLite file (``.farm/cache.db``) that several local workers
(threads or processes) read and write at once.

WAL journal (readers never block the writer), a busy timeout (a writer waits for another
instead of failing with "database is locked"), one connection per thread, and single-statement
autocommitted writes, so concurrent writers lose nothing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator

from farm.cache.store import Entry

BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL, updated REAL NOT NULL)"""


class SqliteStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._conn()    # create the file and table now: errors surface at start, not mid-case

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                                   isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def get(self, key: str) -> Entry | None:
        row = self._conn().execute("SELECT value, expires FROM entries WHERE key = ?",
                                   (key,)).fetchone()
        if row is None or (row[1] is not None and row[1] <= time.time()):
            return None
        return json.loads(row[0])

    def put(self, key: str, value: Entry, ttl: float | None = None) -> None:
        now = time.time()
        self._conn().execute(
            "INSERT OR REPLACE INTO entries (key, value, expires, updated) VALUES (?, ?, ?, ?)",
            (key, json.dumps(value, ensure_ascii=False), None if ttl is None else now + ttl, now))

    def items(self, prefix: str = "") -> Iterator[tuple[str, Entry]]:
        rows = self._conn().execute(
            "SELECT key, value FROM entries WHERE substr(key, 1, ?) = ? "
            "AND (expires IS NULL OR expires > ?) ORDER BY key",
            (len(prefix), prefix, time.time())).fetchall()
        for key, value in rows:
            yield key, json.loads(value)

    def delete(self, prefix: str = "") -> int:
        cur = self._conn().execute("DELETE FROM entries WHERE substr(key, 1, ?) = ?",
                                   (len(prefix), prefix))
        return cur.rowcount

    def check(self) -> None:
        """A ConfigError naming the file when it cannot be read (not a database, locked
        for longer than the busy timeout, ...)."""
        from farm.errors import ConfigError
        try:
            self._conn().execute("SELECT count(*) FROM entries").fetchone()
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot read the cache store {self.where}: {exc}") from None

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()
