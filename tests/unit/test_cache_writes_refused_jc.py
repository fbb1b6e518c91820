"""A run on a cache.db that takes no writes (immutable) said ``mode: read-write`` in each step's
cache field of a case that replayed its plan whole (the refusal came at the case's end, when
its entries were to be kept alive). Every step of the attempt now says the writes were
refused, and why."""

from __future__ import annotations

from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore, StoreReadOnly

NS = Namespace("suite/ai_shopping", "web")


class Immutable(MemoryStore):
    def put(self, key, value, ttl=None):
        raise StoreReadOnly("the cache store .farm/cache.db is read-only (attempt to write a "
                            "readonly database)")

    def touch(self, keys, ttl):
        self.put("", {}, ttl)


def test_a_refusal_at_the_cases_end_is_said_by_its_steps(capsys):
    store = Immutable()
    MemoryStore.put(store, NS.key("plan", "t", 0), {"type": "plan", "actions": [{}]})
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    key = cache.slot("plan", "t")
    assert cache.lookup(key) is not None
    cache.count("plan", "hit")
    cache.note_used(key, "plan")
    use = cache.end_step()
    cache.finish("passed")          # keeps the plan alive: refused
    assert use is not None and use.mode == "read-write"
    assert use.writes_refused and "read-only (attempt to write a readonly" in use.writes_refused
    assert use.model_dump()["writes_refused"] == use.writes_refused
    assert "writes refused: the cache store" in use.summary()


def test_a_later_step_says_so_too_and_a_store_that_took_writes_says_nothing():
    cache = CaseCache(Immutable(), NS, "read-write")
    cache.begin_step()
    cache.save(cache.slot("locate", "Sign in"), "locate", "Sign in", {"xpaths": ["//b"]})
    first = cache.end_step()
    cache.begin_step()
    second = cache.step
    assert first is not None and first.mode == "read-only" and first.writes_refused
    assert second.writes_refused == first.writes_refused
    fine = CaseCache(MemoryStore(), NS, "read-write")
    fine.begin_step()
    fine.save(fine.slot("locate", "Sign in"), "locate", "Sign in", {"xpaths": ["//b"]})
    use = fine.end_step()
    assert use is not None and "writes_refused" not in use.model_dump()
