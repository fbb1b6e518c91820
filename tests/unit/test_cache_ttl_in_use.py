"""Entries expire FARM_CACHE_TTL_DAYS (30) after they were last used, not after they were
written: a case replayed every night keeps its plan and locate entries past the 30th night,
where they all expired that night and the whole suite paid the model again (every month).
A failed attempt's entries are dropped as before; a read-only run changes nothing (their
expiry included); an entry nobody uses still expires."""

from __future__ import annotations

import pytest

from farm.cache import sqlite_store
from farm.cache.case import DEFAULT_TTL
from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from farm.cache.store import MemoryStore

NS = Namespace("shop/buy", "web")
DAY = 86400.0
PLAN, LOCATE = NS.key("plan", "buy a mug", 0), NS.key("locate", "the blue cart icon", 0)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite"])
def night(request, tmp_path, monkeypatch):
    """(the store, the clock, run one night: a case that replays both entries and ends
    with ``status`` in ``mode``; whether it found them)."""
    from farm.cache.case import CaseCache
    clock = Clock()
    if request.param == "memory":
        store = MemoryStore(clock)
    else:
        monkeypatch.setattr(sqlite_store.time, "time", clock)
        store = SqliteStore(tmp_path / "cache.db")
    store.put(PLAN, {"type": "plan", "actions": []}, DEFAULT_TTL)
    store.put(LOCATE, {"type": "locate", "xpaths": ["//a"]}, DEFAULT_TTL)

    def run(status: str = "passed", mode: str = "read-write") -> bool:
        cache = CaseCache(store, NS, mode)
        cache.begin_step()
        found = [cache.lookup(key) for key in (cache.slot("plan", "buy a mug"),
                                               cache.slot("locate", "the blue cart icon"))]
        if all(found):
            cache.note_used(PLAN, "plan")
            cache.note_used(LOCATE)
        cache.end_step()
        cache.finish(status)
        clock.now += DAY
        return all(found)
    yield store, clock, run
    store.close()


def test_entries_replayed_every_night_do_not_expire(night):
    _, _, run = night
    assert all(run() for _ in range(45))


def test_entries_expire_a_ttl_after_their_last_use(night):
    store, clock, run = night
    assert run()
    clock.now += DEFAULT_TTL - 2 * DAY
    assert run()                    # 29 days after the last use: still there
    clock.now += DEFAULT_TTL
    assert store.get(PLAN) is None and store.get(LOCATE) is None


def test_a_read_only_run_changes_no_expiry(night):
    store, clock, run = night
    for _ in range(29):
        assert run(mode="read-only")
    clock.now += DAY
    assert not run(mode="read-only")


def test_a_failed_attempt_still_drops_what_it_used(night):
    store, _, run = night
    assert run(status="failed")
    assert store.get(PLAN) is None and store.get(LOCATE) is None
