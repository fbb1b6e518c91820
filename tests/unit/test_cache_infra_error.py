"""An attempt that ended because the device, the model or the broker broke (an InfraError:
the phone dropped off adb, the browser crashed, the model's API was down) keeps the cache
entries it replayed and used: its retry on another device, and the next night, replay them
with no model call, where they were dropped as if the flow had been wrong (a device farm's
bad night cost the next night the whole suite's model calls). A failed case, or an error of
farm's own (InternalError) or a timeout, still drops them."""

from __future__ import annotations

import logging

import pytest

from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore

NS = Namespace("shop/buy", "android")


def _attempt(store: MemoryStore) -> CaseCache:
    """An attempt that replayed the cached plan and hit a cached locate entry."""
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    plan, locate = cache.slot("plan", "buy a mug"), cache.slot("locate", "Add to cart")
    assert cache.lookup(plan) and cache.lookup(locate)
    cache.note_used(plan, "plan")
    cache.note_used(locate)
    cache.end_step()
    return cache


def _store() -> MemoryStore:
    store = MemoryStore()
    store.put(NS.key("plan", "buy a mug", 0), {"type": "plan", "actions": []})
    store.put(NS.key("locate", "Add to cart", 0), {"type": "locate", "xpaths": ["//a"]})
    return store


@pytest.mark.parametrize("kind", ["DeviceLost", "DeviceError", "ModelUnavailable",
                                  "ModelRefused", "BrokerLost"])
def test_entries_outlive_an_attempt_the_environment_ended(kind, caplog):
    caplog.set_level(logging.INFO, "farm.cache")
    store = _store()
    _attempt(store).finish("error", kind)
    assert len(list(store.items())) == 2
    assert f"it ended with {kind}, which says nothing against them" in caplog.text


@pytest.mark.parametrize("status, kind", [("failed", None), ("error", "InternalError"),
                                          ("error", "CaseTimeout"), ("error", None)])
def test_entries_a_failed_flow_used_are_dropped(status, kind):
    store = _store()
    _attempt(store).finish(status, kind)
    assert list(store.items()) == []
