"""A model's find under another label passes with a note ("if the app renamed it, change the
step"); the next night the cache replays the find, and the note comes with it: it said so the
first night only, and the renamed button then passed in silence."""

from __future__ import annotations

from farm.agent.locator import LocateHit, LocatorChain, TextMatchTier
from farm.cache.case import CaseCache
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.usage import Usage
from tests.unit.test_cache_stale_forgotten_s44c import GEAR, NS, PROMPT, TWIN, page

NOTE = ('the model found "Preferences" (button) for "the gear", which shares no word with it: '
        "if the app renamed it, change the step")


class Model:
    name = "ai"

    def locate(self, prompt, ctx):
        return LocateHit(GEAR, "ai", notes=(NOTE,))


def night(store: MemoryStore) -> LocateHit:
    cache = CaseCache(store, NS, "read-write")
    cache.usage = lambda: Usage()
    cache.begin_step()
    tier = LocateCacheTier(cache)
    device = page(("gear", GEAR, ""), ("cog", TWIN, "Cog"))
    hit = LocatorChain([tier, TextMatchTier(), Model()], has_model_tier=True,
                       on_hit=tier.remember).locate(PROMPT, device)
    cache.end_step()
    return hit


def test_the_note_of_a_model_find_comes_back_with_its_replay():
    store = MemoryStore()
    first = night(store)
    assert (first.tier, first.notes) == ("ai", (NOTE,))
    again = night(store)
    assert (again.tier, again.notes) == ("cache", (NOTE,))
