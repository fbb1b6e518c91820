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
