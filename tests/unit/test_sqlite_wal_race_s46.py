"""Four local workers opening a new cache file together: one died at start with "database is
locked" (turning on the WAL journal fails at once, without the busy timeout's wait, while
another process does the same). The switch is tried again; other errors still stop it."""

from __future__ import annotations

import sqlite3

import pytest

from farm.cache import sqlite_store


class _Conn:
    def __init__(self, errors: list[str]) -> None:
        self.errors, self.tried = errors, 0

    def execute(self, sql: str) -> None:
        assert sql == "PRAGMA journal_mode=WAL"
        self.tried += 1
        if self.errors:
            raise sqlite3.OperationalError(self.errors.pop(0))


def test_a_locked_journal_switch_is_tried_again_until_it_goes_through():
    conn = _Conn(["database is locked", "database is locked"])
    sqlite_store._wal(conn)
    assert conn.tried == 3


def test_another_error_of_the_switch_is_not_waited_out():
    conn = _Conn(["disk I/O error", "database is locked"])
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        sqlite_store._wal(conn)
    assert conn.tried == 1


def test_a_lock_that_stays_is_said_once_the_busy_timeout_is_over(monkeypatch):
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 0)
    conn = _Conn(["database is locked"] * 3)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        sqlite_store._wal(conn)
