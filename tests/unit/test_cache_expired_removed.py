"""Entries past their expiry leave .farm/cache.db at the next run that writes the cache:
reads skipped them, but they stayed in the file for good, so a nightly whose prompts or
``cache.key`` change (a new app version each release) grew cache.db, and each run's quick
check of it, forever. A live entry stays; a --cache read-only run changes nothing. Runs use
the in-memory ``fake`` device kind (tests/support/devices.py): no browser."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""
NS = Namespace("old/gone", "web", "release-41")
EXPIRED, LIVE = NS.key("locate", "Sign in", 0), NS.key("locate", "Username", 0)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a passing one-case suite ``s`` and a .farm/cache.db holding
    an entry that expired long ago and one that has not."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    store.put(EXPIRED, {"type": "locate", "xpaths": ["//*[@id='a']"]}, 30 * 86400)
    store.put(LIVE, {"type": "locate", "xpaths": ["//*[@id='b']"]}, 30 * 86400)
    store.close()
    con = sqlite3.connect(tmp_path / ".farm" / "cache.db")
    with con:
        con.execute("UPDATE entries SET expires = 1.0 WHERE key = ?", (EXPIRED,))
    con.close()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_CACHE", "FARM_CACHE_URL",
                 "FARM_METRICS_PORT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _keys(here: Path) -> list[str]:
    con = sqlite3.connect(here / ".farm" / "cache.db")
    try:
        return sorted(row[0] for row in con.execute("SELECT key FROM entries"))
    finally:
        con.close()


def test_a_run_removes_expired_entries_from_the_file(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress")
    assert (code, err) == (0, ""), out
    assert _keys(here) == [LIVE]


def test_a_read_only_run_leaves_the_file_as_it_was(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "read-only")
    assert (code, err) == (0, ""), out
    assert _keys(here) == sorted([EXPIRED, LIVE])
