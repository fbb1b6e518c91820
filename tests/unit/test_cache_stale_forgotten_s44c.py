"""A locate-cache entry found stale that the new find does not replace is removed: the app moved
id="gear" to a "Delete everything" button, the model found the gear icon again, but nothing
told it from its twin icons ("not cached"); the stale entry stayed, `farm cache ls` listed it,
and every night checked it, found it stale and paid the model again. Now it is gone after that
step; one that is replaced is written over as before."""

from __future__ import annotations

import logging

from farm.agent.locator import LocateHit, LocatorChain
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice

NS = Namespace("s1/gear", "web")
PROMPT = "the gear icon"
GEAR = Rect(x=700, y=20, width=32, height=32)
DELETE = Rect(x=8, y=130, width=120, height=21)
TWIN = Rect(x=650, y=20, width=32, height=32)


def page(*buttons: tuple[str, Rect, str]) -> FakeDevice:
    nodes = [UINode(id=0, role="body", rect=Rect(x=0, y=0, width=800, height=600))]
    for i, (rid, rect, text) in enumerate(buttons, 1):
        nodes.append(UINode(id=i, parent=0, role="button", rect=rect, clickable=True,
                            resource_id=rid, text=text))
    xpaths = {f"//*[@id='{rid}']": [rect] for rid, rect, _ in buttons if rid}
    return FakeDevice(UITree(source="dom", nodes=nodes), xpaths=xpaths, size=(800, 600))


class Model:
    """The model tier: finds the gear icon at ``rect``."""
    name = "ai"

    def __init__(self, rect: Rect) -> None:
        self.rect, self.calls = rect, 0

    def locate(self, prompt, ctx):
        self.calls += 1
        return LocateHit(self.rect, "ai")


def night(store: MemoryStore, device: FakeDevice, at: Rect = GEAR):
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    tier, model = LocateCacheTier(cache), Model(at)
    hit = LocatorChain([tier, model], has_model_tier=True, on_hit=tier.remember).locate(
        PROMPT, device)
    return hit, cache.end_step(), model.calls


def test_a_stale_entry_not_replaced_is_removed_and_not_checked_again(caplog):
    store = MemoryStore()
    night(store, page(("gear", GEAR, "")))
    assert [k for k, _ in store.items()] == [NS.key("locate", PROMPT, 0)]
    # v2: id="gear" is on "Delete everything"; the gear icon (no id) has a twin beside it
    moved = page(("gear", DELETE, "Delete everything"), ("", GEAR, ""), ("", TWIN, ""))
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        hit, use, calls = night(store, moved)
    assert (hit.tier, hit.rect, calls) == ("ai", GEAR, 1)
    assert (use.stale, use.written) == (1, 0)
    assert list(store.items()) == []            # `farm cache ls` lists nothing
    assert any("stale locate cache entry for 'the gear icon' removed" in r.getMessage()
               for r in caplog.records)
    hit, use, calls = night(store, moved)       # the next night: a plain miss, not stale
    assert (use.misses, use.stale, calls) == (1, 0, 1)


def test_a_stale_entry_the_new_find_replaces_is_written_over():
    store = MemoryStore()
    night(store, page(("gear", GEAR, "")))
    moved = page(("gear", DELETE, "Delete everything"), ("cog", GEAR, ""))
    hit, use, _ = night(store, moved)
    assert (use.stale, use.written) == (1, 1)
    assert [e["xpaths"] for _, e in store.items()] == [["//*[@id='cog']"]]
    hit, use, calls = night(store, moved)
    assert (hit.tier, use.hits, calls) == ("cache", 1, 0)
