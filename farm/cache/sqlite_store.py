"""The embedded cache store: one SQLite file (``.farm/cache.db``) that several local workers
(threads or processes) read and write at once.

WAL journal (readers never block the writer), a busy timeout (a writer waits for another
instead of failing with "database is locked"), one connection per thread, and single-statement
autocommitted writes, so concurrent writers lose nothing.

A damaged file (garbled pages, cut short, not SQLite at all) raises `CorruptStore` from every
call, naming the file and the fix: a run says so once and runs uncached, the ``farm cache``
commands say so and stop, and ``farm cache clear`` sets the file aside (`set_aside`) for a
fresh one.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from farm.cache.store import Entry, StoreReadOnly, decoded
from farm.errors import ConfigError

log = logging.getLogger("farm.cache")

BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL, updated REAL NOT NULL)"""
_COLUMNS = ("key", "value", "expires", "updated")
_CORRUPT_CODES = {11, 26}       # SQLITE_CORRUPT ("malformed"), SQLITE_NOTADB ("not a database")
_READONLY = 8                   # SQLITE_READONLY ("attempt to write a readonly database")
_CANTOPEN = 14                  # SQLITE_CANTOPEN ("unable to open database file")


class CorruptStore(ConfigError):
    """The store's SQLite file is damaged: no command can read it, ``farm cache clear``
    sets it aside."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"the cache store {path} is corrupt ({reason}): `farm cache clear` "
                         "moves it aside and starts a fresh one")


def is_corrupt(exc: sqlite3.Error, not_a_database: bool = True) -> bool:
    """SQLite says the file is damaged, or (``not_a_database``) no database at all: not
    locked, read-only, ..."""
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    return code in (_CORRUPT_CODES if not_a_database else _CORRUPT_CODES - {26})


class ReadOnlyFile(StoreReadOnly, ConfigError):
    """SQLite may not write the file (its permissions, a read-only mount)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(f"the cache store {path} is read-only ({reason})")


@contextmanager
def _corruption_named(path: Path) -> Iterator[None]:
    """SQLite's "database disk image is malformed" (which names no file) as `CorruptStore`;
    "attempt to write a readonly database" as `ReadOnlyFile`."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if is_corrupt(exc):
            raise CorruptStore(path, str(exc)) from None
        if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == _READONLY:
            raise ReadOnlyFile(path, str(exc)) from None
        raise


def set_aside(path: Path) -> Path:
    """Rename the damaged ``path`` (with its -wal / -shm / -journal files) to
    ``<name>.corrupt-<timestamp>`` beside it, never over an earlier one; the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target, n = path.with_name(f"{path.name}.corrupt-{stamp}"), 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    os.replace(path, target)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    return target


def renewed_if_corrupt(store: "SqliteStore") -> tuple["SqliteStore", str]:
    """``store``, or when its file is damaged (SQLite's quick check: 16 ms for 14 MB) a fresh
    store at its path, the damaged file set aside as `farm cache clear` does: a nightly run
    unattended would otherwise run uncached night after night. (The store to use, what was
    done: "" when nothing.) A check that fails otherwise (locked) raises its ConfigError."""
    try:
        store.check()
        return store, ""
    except CorruptStore as exc:
        reason = exc.reason
    store.close()
    with _folder_locked(store.path.parent):
        # two runs that start at once both find it damaged: the second finds the fresh one
        # the first started (where it set that one aside too, or failed: no such file)
        again = SqliteStore(store.path)
        try:
            again.check()
            return again, ""
        except CorruptStore:
            again.close()
        moved = set_aside(store.path)
        fresh = SqliteStore(store.path)
    # (kept on the store: the run's results.json and report say it, `RunSummary.cache`)
    fresh.renewed = (f"the cache store {store.path} was corrupt ({reason}): "
                     f"set it aside as {moved.name} and started a fresh one")
    return fresh, fresh.renewed


@contextmanager
def _folder_locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` between processes (flock; none where there is no
    fcntl)."""
    try:
        import fcntl
        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)        # releases the lock


_open_stores: "weakref.WeakSet[SqliteStore]" = weakref.WeakSet()
_open_lock = threading.Lock()


def _close_open_stores() -> None:
    """At exit, close every store still open: the last connection to close checkpoints the
    write-ahead log into cache.db and removes cache.db-wal. Left open, a run's entries were
    in the log alone (a CI cache of cache.db kept none of them)."""
    with _open_lock:
        stores = list(_open_stores)
    for store in stores:
        store.close()


atexit.register(_close_open_stores)
if hasattr(os, "register_at_fork"):     # a forked child's copies are its parent's to close
    os.register_at_fork(after_in_child=_open_stores.clear)


def _wal(conn: sqlite3.Connection) -> None:
    """Turn on the WAL journal. Changing the journal mode fails with "database is locked" at
    once, without the busy timeout's wait, while another process does the same to a new file
    (local workers starting together): tried again until the busy timeout is over."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)        # the other process holds it for a moment


class SqliteStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self.renewed: str | None = None     # why it is a fresh file (`renewed_if_corrupt`)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_dir():      # SQLite would say only "unable to open database file"
            raise ConfigError(f"the cache store {self.path} is a directory, not a SQLite file: "
                              "move it away (or set FARM_STATE_DIR elsewhere)")
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        with _open_lock:        # closed at exit if its owner does not (`_close_open_stores`)
            _open_stores.add(self)
        try:            # create the file and table now: errors surface at start, not mid-case
            self._conn()
        except CorruptStore:
            pass        # but a damaged file opens: each call says what it is and the fix

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = self._open()
            except sqlite3.OperationalError as exc:
                if not self._frozen(exc):
                    raise
                conn = self._open(frozen=True)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _open(self, frozen: bool = False) -> sqlite3.Connection:
        """A connection to the file; ``frozen``: read-only, as a file that cannot change
        while it is open (SQLite's immutable=1), for a folder this user may not write."""
        where = (f"file:{quote(str(self.path.resolve()))}?immutable=1" if frozen
                 else self.path)
        conn = sqlite3.connect(where, timeout=BUSY_TIMEOUT_MS / 1000, uri=frozen,
                               isolation_level=None, check_same_thread=False)
        try:
            with _corruption_named(self.path):
                conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
                if not frozen:
                    _wal(conn)
                    conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(_SCHEMA)
        except BaseException:
            conn.close()
            raise
        return conn

    def _frozen(self, exc: sqlite3.OperationalError) -> bool:
        """Whether SQLite could not open an existing file only because it may not create
        its -wal / -shm files beside it (a folder this user may not write: another user's
        state directory, a read-only mount), and no writer has a -wal there: the file can
        then be read as it is ("unable to open database file" said nothing of why)."""
        code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
        return (code == _CANTOPEN and self.path.is_file()
                and not self.path.with_name(self.path.name + "-wal").exists())

    def get(self, key: str) -> Entry | None:
        with _corruption_named(self.path):
            row = self._conn().execute("SELECT value, expires FROM entries WHERE key = ?",
                                       (key,)).fetchone()
        if row is None or (row[1] is not None and row[1] <= time.time()):
            return None
        return decoded(row[0])

    def put(self, key: str, value: Entry, ttl: float | None = None) -> None:
        now = time.time()
        with _corruption_named(self.path):
            self._conn().execute(
                "INSERT OR REPLACE INTO entries (key, value, expires, updated) "
                "VALUES (?, ?, ?, ?)", (key, json.dumps(value, ensure_ascii=False),
                                        None if ttl is None else now + ttl, now))

    def items(self, prefix: str = "") -> Iterator[tuple[str, Entry]]:
        with _corruption_named(self.path):
            rows = self._conn().execute(
                "SELECT key, value FROM entries WHERE substr(key, 1, ?) = ? "
                "AND (expires IS NULL OR expires > ?) ORDER BY key",
                (len(prefix), prefix, time.time())).fetchall()
        for key, value in rows:
            entry = decoded(value)
            if entry is not None:
                yield key, entry

    def delete(self, prefix: str = "") -> int:
        with _corruption_named(self.path):
            cur = self._conn().execute("DELETE FROM entries WHERE substr(key, 1, ?) = ?",
                                       (len(prefix), prefix))
        return cur.rowcount

    def touch(self, keys: list[str], ttl: float) -> None:
        now = time.time()
        with _corruption_named(self.path):
            self._conn().executemany(
                "UPDATE entries SET expires = ? WHERE key = ? AND expires IS NOT NULL "
                "AND expires > ?", [(now + ttl, key, now) for key in keys])

    def drop_expired(self) -> int:
        """Remove the entries past their expiry (how many; 0 when the file cannot be written
        now): reads skip them, but they stayed in cache.db for good, so a nightly whose
        prompts or ``cache.key`` change grew the file (and each run's quick check) forever."""
        try:
            with _corruption_named(self.path):
                cur = self._conn().execute("DELETE FROM entries WHERE expires IS NOT NULL "
                                           "AND expires <= ?", (time.time(),))
        except (sqlite3.Error, ConfigError) as exc:     # locked, read-only: next time
            log.debug("expired cache entries not removed from %s: %s", self.path, exc)
            return 0
        return cur.rowcount

    def check(self) -> None:
        """A ConfigError naming the file when it cannot be read: `CorruptStore` when it is
        damaged anywhere (SQLite's quick check reads every page, so a garbled entry is found
        before a command reads half of it), else locked for longer than the busy timeout, ..."""
        try:
            with _corruption_named(self.path):
                problems = self._conn().execute("PRAGMA quick_check").fetchall()
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot read the cache store {self.where}: {exc}") from None
        if [row[0] for row in problems] != ["ok"]:
            raise CorruptStore(self.path, _first_problem(problems))
        with _corruption_named(self.path):
            columns = {row[1] for row in self._conn().execute("PRAGMA table_info(entries)")}
        missing = [c for c in _COLUMNS if c not in columns]
        if missing:     # another program's cache.db (each command ended in an internal error)
            raise ConfigError(
                f"the cache store {self.where} is not farm's: its table 'entries' has no "
                f"column '{missing[0]}'; set FARM_STATE_DIR to a folder of farm's own, or "
                "move the file away")

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()


def _first_problem(rows: list[tuple[str, ...]]) -> str:
    """SQLite's quick_check report, in one line: its first finding, not the heading it puts
    before them ("*** in database main ***")."""
    lines = [line.strip() for row in rows for line in str(row[0]).splitlines()]
    found = [line for line in lines if line and not line.startswith("***")]
    return (found or lines or ["quick_check failed"])[0][:200]
