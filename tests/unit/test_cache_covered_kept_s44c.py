"""A night a modal covered the page left the cache empty: the gear entry found the gear icon
right, its tap failed only because the modal covered it, and the failed case dropped every
entry it used. Now the entry whose target the failing step found but could not tap for a
cover is kept (farm.log says why); any other failure still drops what the case used."""

from __future__ import annotations

import logging

from farm.agent.locator import LocatorChain
from farm.cache.case import CaseCache
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from tests.unit.test_cache_stale_forgotten_s44c import GEAR, NS, PROMPT, TWIN, Model, page

COVERED = ('"the gear icon" is covered by a div "We updated our terms": a tap there would hit '
           "that")


def found(cache: CaseCache, prompt: str = PROMPT, at=GEAR) -> str:
    """One step of the case locates ``prompt``: the tier that found it."""
    cache.begin_step()
    tier = LocateCacheTier(cache)
    device = page(("gear", GEAR, ""), ("cog", TWIN, "Cog"))
    hit = LocatorChain([tier, Model(at)], has_model_tier=True,
                       on_hit=tier.remember).locate(prompt, device)
    cache.end_step()
    return hit.tier


def test_the_entry_whose_target_was_covered_is_kept(caplog):
    store = MemoryStore()
    assert found(CaseCache(store, NS, "read-write")) == "ai"
    cache = CaseCache(store, NS, "read-write")
    assert found(cache, "the cog", TWIN) == "ai"            # an earlier step
    assert found(cache) == "cache"                          # the failing step's hit
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        cache.finish("failed", "StepFailed", COVERED)
    assert store.get(NS.key("locate", PROMPT, 0)) is not None
    assert store.get(NS.key("locate", "the cog", 0)) is None   # the rule, as before
    assert 'something covered (a div "We updated our terms")' in caplog.text
    assert found(CaseCache(store, NS, "read-write")) == "cache"     # the next night


def test_an_entry_written_by_the_covered_step_is_kept():
    store = MemoryStore()
    cache = CaseCache(store, NS, "read-write")
    assert found(cache) == "ai"
    cache.finish("failed", "StepFailed", COVERED)
    assert store.get(NS.key("locate", PROMPT, 0)) is not None


def test_any_other_failure_drops_the_entry_as_before():
    store = MemoryStore()
    found(CaseCache(store, NS, "read-write"))
    cache = CaseCache(store, NS, "read-write")
    found(cache)
    cache.finish("failed", "AssertionFailed", 'no text "Settings open" on screen')
    assert store.get(NS.key("locate", PROMPT, 0)) is None
