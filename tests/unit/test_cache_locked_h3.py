"""`farm cache clear` while another process keeps .farm/cache.db locked (a `farm run` writing
it, a sqlite3 shell left in a transaction): it said "internal error: OperationalError: database
is locked", exit 3, and left a traceback file. Now: exit 4, one line naming the store and what
to do, nothing removed; `farm cache ls` still lists the entries meanwhile (WAL readers)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import farm.cache.sqlite_store as sqlite_store
from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    for n in range(3):
        store.put(Namespace(f"demo/case{n}", "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"]})
    store.close()
    # the other process's wait is the busy timeout (30 s): a short one here
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 50)
    holder = sqlite3.connect(tmp_path / ".farm" / "cache.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")       # a writer that does not let go
    holder.execute("UPDATE entries SET updated = updated")
    yield tmp_path
    holder.rollback()
    holder.close()


def test_clear_of_a_locked_store_says_so_and_removes_nothing(locked: Path, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "cache", "clear", "demo/case1")
    assert code == 4, (out, err)
    assert "internal error" not in err
    assert err.strip() == ("farm: error: the cache store .farm/cache.db is locked: another "
                           "process (a `farm run` or a sqlite3 shell?) kept it for more than "
                           "0.05 s; nothing was changed: run this again when it is done")
    assert not (locked / ".farm" / "last-error.log").exists()
    code, out, err = farm(monkeypatch, capsys, "cache", "ls")
    assert code == 0, err
    assert out.splitlines()[-1] == "3 entries in .farm/cache.db"


def test_clearing_everything_gives_the_file_space_back(tmp_path: Path, monkeypatch, capsys):
    """`farm cache clear` of every entry left a 42 MB cache.db at 42 MB (SQLite keeps freed
    pages): a user clearing the cache to get the disk back saw nothing change."""
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / ".farm" / "cache.db"
    store = SqliteStore(path)
    for n in range(300):
        store.put(Namespace(f"demo/case{n}", "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in " * 600, "xpaths": ["//button"]})
    store.close()
    before = path.stat().st_size
    assert before > 1_000_000
    code, out, err = farm(monkeypatch, capsys, "cache", "clear", "demo/case1")
    assert (code, err) == (0, "")
    assert out == "removed 1 entry from .farm/cache.db\n"      # (a part: no VACUUM wait)
    code, out, err = farm(monkeypatch, capsys, "cache", "clear")
    assert (code, err) == (0, "")
    after = path.stat().st_size
    assert after < 50_000
    assert out == (f"removed 299 entries from .farm/cache.db; the file went from "
                   f"{before / 1e6:.1f} MB to {round(after / 1e3)} KB\n")
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls")
    assert (code, out) == (0, "0 entries in .farm/cache.db\n")
