"""An entry whose value is not one (not JSON, or JSON that is no object: set by hand in the
shared Redis, or by another program under farm's prefix): `farm cache ls` ended in
"farm: internal error: JSONDecodeError" (exit 3) and a run's first lookup of it turned the
cache off for the whole case. It is now read as no entry: ls lists the others, a lookup
misses (the run locates again and writes a good entry over it), clear removes it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import redis

from farm.cache.keys import Namespace
from farm.cache.redis_store import RedisStore
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm

GOOD = Namespace("s/login", "web").key("locate", "Sign in", 0)
BAD = Namespace("s/login", "web").key("locate", "Username", 0)
ENTRY = {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='login']"], "updated": 0}


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL",
                 "FARM_CLUSTER_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _sqlite(here: Path, raw: str) -> SqliteStore:
    store = SqliteStore(here / ".farm" / "cache.db")
    store.put(GOOD, ENTRY)
    store.put(BAD, ENTRY)
    conn = sqlite3.connect(here / ".farm" / "cache.db")
    conn.execute("UPDATE entries SET value = ? WHERE key = ?", (raw, BAD))
    conn.commit()
    conn.close()
    return store


def _redis(url: str, raw: str, monkeypatch: pytest.MonkeyPatch) -> RedisStore:
    monkeypatch.setenv("FARM_CACHE_URL", url)
    store = RedisStore(url, prefix="farm:cache")
    store.put(GOOD, ENTRY)
    redis.Redis.from_url(url).set("farm:cache:" + BAD, raw)
    return store


@pytest.mark.parametrize("raw", ["not json{", "[1, 2]"])
@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_an_unreadable_entry_is_no_entry(here, redis_url, monkeypatch, capsys, kind, raw):
    store = _sqlite(here, raw) if kind == "sqlite" else _redis(redis_url, raw, monkeypatch)
    assert store.get(BAD) is None
    assert store.get(GOOD) == ENTRY
    code, out, err = farm(monkeypatch, capsys, "cache", "ls")
    assert (code, err) == (0, "")
    assert [line.split()[0] for line in out.splitlines()] == ["s/login", "1"]
    assert "\"Sign in\"  //*[@id='login']" in out
    code, out, err = farm(monkeypatch, capsys, "cache", "clear")
    assert (code, err) == (0, "") and out.startswith("removed 2 entries from ")
    store.close()
