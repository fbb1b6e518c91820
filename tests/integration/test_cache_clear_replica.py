"""`farm cache clear` with FARM_CACHE_URL naming a Redis replica (it lists the entries, and
answers every write with READONLY): it ended in "farm: internal error: StoreReadOnly" (exit 3,
a traceback file); it now says the store is a read-only replica and nothing was removed
(exit 4), and the entries are still there."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from farm.cache.keys import Namespace
from farm.cache.redis_store import RedisStore
from tests.support.farm_cli import run_main as farm
from tests.support.farm_cli import wait_for


@pytest.fixture
def replica_url(private_redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A replica holding one entry of s/login (copied from its primary), FARM_CACHE_URL."""
    primary, replica = private_redis(), private_redis()
    store = RedisStore(primary.url)
    store.put(Namespace("s/login", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"], "updated": 1})
    store.close()
    redis.Redis.from_url(primary.url).config_set("repl-diskless-sync-delay", 0)
    client = redis.Redis.from_url(replica.url)
    client.config_set("repl-diskless-load", "on-empty-db")   # no dump.rdb in the cwd
    client.replicaof("127.0.0.1", primary.port)
    wait_for(lambda: client.dbsize() == 1, what="the replica's copy")
    client.close()
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL",
                 "FARM_CLUSTER_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_CACHE_URL", replica.url)
    return replica.url


def test_clear_on_a_replica_says_so(replica_url, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "cache", "clear", "s")
    where = RedisStore(replica_url).where
    assert (code, out) == (4, "")
    assert err == (f"farm: error: the cache store {where} is a read-only replica (You can't "
                   "write against a read only replica.): nothing removed; clear the cache on "
                   "its primary\n")
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls")
    assert (code, out.splitlines()[-1]) == (0, f"1 entry in {where}")
