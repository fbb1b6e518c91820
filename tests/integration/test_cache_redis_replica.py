"""FARM_CACHE_URL naming a Redis replica (it reads, and answers every write with READONLY):
the store says so (`StoreReadOnly`, the URL's password masked), so a case reads the cache and
writes nothing instead of turning it off (tests/unit/test_cache_read_only_store.py)."""

from __future__ import annotations

import pytest
import redis

from farm.cache.redis_store import RedisStore
from farm.cache.store import StoreReadOnly


class Replica:
    def set(self, *args, **kwargs):
        raise redis.ReadOnlyError("You can't write against a read only replica.")


def test_a_redis_replica_says_it_is_read_only():
    replica = RedisStore("redis://:pw@127.0.0.1:1/0")
    replica._r = Replica()
    with pytest.raises(StoreReadOnly, match=r"redis://:\*\*\*@127.0.0.1:1/0 \(farm:cache:\*\)"
                       r" is a read-only replica \(You can't write"):
        replica.put("k", {"a": 1})


def test_touch_gives_a_used_entry_a_new_life_and_leaves_a_gone_one_gone(redis_url):
    """What `CaseCache` does with the entries a passing case used (tests/unit/
    test_cache_ttl_in_use.py): on the shared store, each lives ``ttl`` more from now."""
    store = RedisStore(redis_url, prefix="touch-test")
    store.put("used", {"a": 1}, ttl=5)
    store.touch(["used", "gone"], 30 * 86400)
    client = redis.Redis.from_url(redis_url)
    assert client.pttl("touch-test:used") > 29 * 86400 * 1000
    assert not client.exists("touch-test:gone")
    store.delete()
    store.close()
    client.close()
