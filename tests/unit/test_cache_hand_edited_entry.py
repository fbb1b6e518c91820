"""A locate entry edited by hand in a shared store (a Redis every worker reads) whose xpaths
are no XPaths, or whose rect is no rect: the step ended the case in an internal error
(AttributeError: 'int' object has no attribute 'strip'; a pydantic ValidationError). Such
an entry is stale, as one whose XPath matches nothing: a later tier locates the element and
the entry is written anew."""

from __future__ import annotations

import pytest

from farm.agent.api import zero_token_chain
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice

NS = Namespace("demo/login", "web")
SIGN_IN = Rect(x=10, y=100, width=120, height=40)
PAGE = UITree(source="dom", nodes=[
    UINode(id=0, role="form", rect=Rect(x=0, y=0, width=600, height=400)),
    UINode(id=1, parent=0, role="button", rect=SIGN_IN, clickable=True, resource_id="signin"),
    UINode(id=2, parent=1, role="span", rect=Rect(x=20, y=110, width=80, height=20),
           text="Sign in")])


def _located(entry: dict) -> tuple[str, dict]:
    """(the tier that found "Sign in" with ``entry`` stored for it, the entry after)."""
    store = MemoryStore()
    key = NS.key("locate", "Sign in", 0)
    store.put(key, entry)
    device = FakeDevice(PAGE, xpaths={"//*[@id='signin']": [SIGN_IN]})
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    hit = zero_token_chain(lambda t: t, cache).locate("Sign in", device)
    assert hit.rect == SIGN_IN
    cache.end_step()
    return hit.tier, store.get(key)


@pytest.mark.parametrize("xpaths", [[5], [None], [["//a"]], "//*[@id='signin']"])
def test_xpaths_that_are_no_xpaths_are_stale(xpaths):
    tier, after = _located({"type": "locate", "xpaths": xpaths, "tier": "ai"})
    assert tier == "text" and after["xpaths"] == ["//*[@id='signin']"]


def test_a_rect_that_is_no_rect_is_written_anew():
    tier, after = _located({"type": "locate", "xpaths": ["//*[@id='signin']"], "tier": "text",
                            "rect": ["ten", 100, 120, 40], "element": {"role": "button",
                                                                     "shown": ["sign in"]}})
    assert tier == "text" and after["rect"] == [10, 100, 120, 40]
