"""farm_cache_requests_total{cache="locate"} on a suite found by page text: a lookup whose
target the UI-tree text match then finds is no cache miss (its entry is left to that tier, so
later runs count no lookup for it either: the hit-ratio panel read 0% for ever). A lookup no
zero-token tier resolves is still a miss, counted once."""

from __future__ import annotations

import pytest

from farm import metrics
from farm.agent.api import zero_token_chain
from farm.agent.locator import LocateContext, LocateHit
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.devices.fake import FakeDevice
from tests.unit.test_cache_units import PAGE, R, cache_for


def _requests() -> dict[str, float]:
    return {r: metrics.CACHE_REQUESTS.labels("locate", r)._value.get()
            for r in metrics.CACHE_RESULTS["locate"]}


def _step(store: MemoryStore, device: FakeDevice, prompt: str) -> tuple[str | None, dict]:
    """One step's locate of ``prompt`` in a new case attempt: (the tier that found it, None
    when none did; how farm_cache_requests_total{cache="locate"} moved)."""
    before, cache = _requests(), cache_for(store)
    cache.begin_step()
    try:
        tier = zero_token_chain(lambda t: t, cache).locate(prompt, device).tier
    except Exception:       # (nothing zero-token found it: NeedsModel / LocateError)
        tier = None
    finally:
        cache.end_step()
    after = _requests()
    return tier, {k: after[k] - before[k] for k in after if after[k] != before[k]}


def test_a_target_the_text_tier_finds_is_no_locate_cache_miss_met49():
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    assert _step(store, device, "Sign in") == ("text", {})      # cold, yet no miss
    assert _step(store, device, "Sign in") == ("text", {})      # left to text: no lookup


def test_a_lookup_nothing_resolves_is_one_miss_and_a_hit_is_a_hit_met49():
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    assert _step(store, device, "the purple unicorn") == (None, {"miss": 1})
    model_found = cache_for(store)
    model_found.begin_step()
    LocateCacheTier(model_found).remember("the sign-in button", LocateHit(
        R(10, 100, 120, 40), "ai"), LocateContext(device))
    model_found.end_step()
    assert _step(store, device, "the sign-in button") == ("cache", {"hit": 1})


@pytest.mark.parametrize("tier", ["ocr", "ai"])
def test_a_target_another_tier_finds_is_still_a_miss_met49(tier):
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    cache = cache_for(store)
    before = _requests()
    cache.begin_step()
    cache_tier = LocateCacheTier(cache)
    ctx = LocateContext(device)
    assert cache_tier.locate("the sign-in button", ctx) is None
    cache_tier.remember("the sign-in button", LocateHit(R(10, 100, 120, 40), tier), ctx)
    cache.end_step()
    assert _requests()["miss"] - before["miss"] == 1


def test_the_steps_cache_cell_agrees_with_the_metric_met49():
    """results.json's per-step cache cell (`CacheUse.misses`) counts what the metric counts:
    a text-tier find is no miss there either; a lookup tried twice in one step (the chain
    waiting for the page) is one miss."""
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    cache = cache_for(store)
    cache.begin_step()
    zero_token_chain(lambda t: t, cache).locate("Sign in", device)
    assert cache.step.misses == 0
    ctx = LocateContext(device)
    tier = LocateCacheTier(cache)
    assert tier.locate("the purple unicorn", ctx) is None
    assert tier.locate("the purple unicorn", ctx) is None
    before = _requests()["miss"]
    used = cache.end_step()
    assert used is not None and used.misses == 1
    assert _requests()["miss"] - before == 1
