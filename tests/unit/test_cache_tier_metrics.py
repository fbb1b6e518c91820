"""farm_locate_attempts_total for the locate cache's tier, as a nightly run's Grafana panel
reads it: a step whose entry the UI-tree text match made is left to that tier (no cache
attempt: it was counted as a cache miss, so a fully cached night showed the cache tier missing
every lookup); a real miss (no entry) and a hit are counted."""

from __future__ import annotations

from farm import metrics
from farm.agent.api import zero_token_chain
from farm.agent.locator import LocateContext, LocateHit
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.devices.fake import FakeDevice
from tests.unit.test_cache_units import PAGE, R, cache_for


def _cache_tier() -> dict[str, float]:
    return {result: metrics.LOCATE_ATTEMPTS.labels("cache", result)._value.get()
            for result in ("hit", "miss", "error")}


def _locate(store: MemoryStore, device: FakeDevice, prompt: str) -> tuple[str, dict]:
    """One step's locate of ``prompt`` in a new case attempt: (the tier that found it, how
    the cache tier's attempt counters moved)."""
    before, cache = _cache_tier(), cache_for(store)
    cache.begin_step()
    hit = zero_token_chain(lambda t: t, cache).locate(prompt, device)
    cache.end_step()
    after = _cache_tier()
    return hit.tier, {k: after[k] - before[k] for k in after if after[k] != before[k]}


def test_an_entry_left_to_the_text_tier_is_no_cache_miss():
    store = MemoryStore()
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [R(10, 100, 120, 40)]})
    assert _locate(store, device, "Sign in") == ("text", {"miss": 1})    # cold: a miss
    assert _locate(store, device, "Sign in") == ("text", {})             # left to text
    model_found = cache_for(store)
    model_found.begin_step()
    LocateCacheTier(model_found).remember("the sign-in button", LocateHit(
        R(10, 100, 120, 40), "ai"), LocateContext(device))
    model_found.end_step()
    assert _locate(store, device, "the sign-in button") == ("cache", {"hit": 1})
