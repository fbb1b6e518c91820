"""A locate-cache entry a model made for an icon (a button that shows no text) is trusted only
while its XPath still selects an element like it: the app moved id="gear" from the grey gear
icon to a "Delete everything" button, and a replay tapped it ("EVERYTHING DELETED", the step
passed from the cache). An element that shows text where the icon showed none, or whose size
is far from the icon's, is stale: located again (the model), the step counts it stale and
farm.log says what changed. Replays that were right stay so."""

from __future__ import annotations

import logging

import pytest

from farm.agent.api import zero_token_chain
from farm.agent.locator import LocateContext, LocateHit
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel

NS = Namespace("s1/basic", "web")
PROMPT = "the grey gear button"
GEAR = Rect(x=8, y=114, width=32, height=32)
DELETE = Rect(x=8, y=130, width=120, height=21)


def page(*buttons: tuple[str, Rect, str], source: str = "dom",
         size: tuple[int, int] = (1024, 700)) -> FakeDevice:
    """A page of buttons (id, rect, text) under a body; each id selects its button."""
    nodes = [UINode(id=0, role="body", rect=Rect(x=0, y=0, width=size[0], height=size[1]))]
    for i, (rid, rect, text) in enumerate(buttons, 1):
        nodes.append(UINode(id=i, parent=0, role="button", rect=rect, clickable=True,
                            resource_id=rid, text=text))
    by_id = {"dom": "//*[@id='{}']", "ios": "//button[@name='{}']",
             "uiautomator": "//node[@resource-id='android:id/{}']"}[source]
    xpaths = {by_id.format(rid): [rect] for rid, rect, _ in buttons}
    return FakeDevice(UITree(source=source, nodes=nodes), xpaths=xpaths, size=size)


def model_found(store: MemoryStore, device: FakeDevice, rect: Rect = GEAR,
                prompt: str = PROMPT) -> dict:
    """The entry an earlier run's AI locate left for ``prompt`` (the model's box ``rect``)."""
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    LocateCacheTier(cache).remember(prompt, LocateHit(rect, "ai"), LocateContext(device))
    return store.get(NS.key("locate", prompt, 0))


def replay(store: MemoryStore, device: FakeDevice, prompt: str = PROMPT):
    """The next run's locate with no model: (the hit, or None when the zero-token tiers do
    not find the target now: a model would be asked; what the step's cache did)."""
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    try:
        hit = zero_token_chain(lambda t: t, cache).locate(prompt, device)
    except (NeedsModel, LocateError):   # (the text tier's near miss: the id "gear")
        hit = None
    return hit, cache.end_step()


def test_an_icon_s_id_moved_to_a_button_with_text_is_stale_not_tapped(caplog):
    store = MemoryStore()
    entry = model_found(store, page(("gear", GEAR, "")))
    assert entry["xpaths"] == ["//*[@id='gear']"]
    assert entry["element"] == {"role": "button", "shown": [], "size": [32, 32]}
    hit, use = replay(store, page(("gear", GEAR, "")))
    assert hit is not None and (hit.tier, hit.rect) == ("cache", GEAR)     # the same page
    moved = page(("gear", DELETE, "Delete everything"),
                 ("cog", Rect(x=132, y=114, width=32, height=32), ""))
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        hit, use = replay(store, moved)
    assert hit is None                  # not "Delete everything": only a model finds it now
    assert (use.hits, use.stale) == (0, 1)
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == ["locate cache entry for 'the grey gear button' is stale: its XPath "
                    "//*[@id='gear'] now selects a button \"delete everything\" (120×21), "
                    "where the ai tier stored a button showing no text (32×32); locating "
                    "again"], said


@pytest.mark.parametrize("now, stale", [
    (Rect(x=8, y=114, width=32, height=32), False),     # where it was
    (Rect(x=300, y=50, width=36, height=30), False),    # moved, a little bigger: re-laid out
    (Rect(x=8, y=114, width=96, height=32), True),      # three times as wide: another one
    (Rect(x=8, y=114, width=32, height=16), True),      # half as tall
])
def test_an_icon_whose_size_changed_far_is_stale(now, stale):
    """An icon that still shows no text but is no longer icon-sized (an id moved to a wide
    empty button, a divider) is not trusted; one moved or a little resized still is."""
    store = MemoryStore()
    model_found(store, page(("gear", GEAR, "")))
    hit, use = replay(store, page(("gear", now, "")))
    assert (hit is None, use.stale) == (stale, int(stale))


def test_a_wider_screen_that_scales_the_icon_keeps_it():
    """A phone of another density: the screen and the icon both twice as wide."""
    store = MemoryStore()
    model_found(store, page(("gear", GEAR, ""), source="ios", size=(400, 800)))
    big = Rect(x=16, y=228, width=64, height=64)
    hit, use = replay(store, page(("gear", big, ""), source="ios", size=(800, 1600)))
    assert hit is not None and (hit.tier, hit.rect) == ("cache", big)


def test_an_android_row_half_scrolled_out_is_still_the_one():
    """uiautomator rects are cut to what shows: a smaller element there is not stale, a
    larger one is."""
    store = MemoryStore()
    model_found(store, page(("gear", GEAR, ""), source="uiautomator"))
    cut = Rect(x=8, y=684, width=32, height=16)
    hit, _ = replay(store, page(("gear", cut, ""), source="uiautomator"))
    assert hit is not None and hit.rect == cut
    wide = Rect(x=8, y=114, width=120, height=32)
    hit, use = replay(store, page(("gear", wide, ""), source="uiautomator"))
    assert hit is None and use.stale == 1


def test_a_text_button_found_by_the_model_with_its_text_unchanged_replays():
    """A model's find that showed text ("the blue primary button" for "Sign in") keeps the
    old rule: the same text, whatever its size; and an entry from before sizes were kept
    (its rect the model's box) is judged by that box."""
    store = MemoryStore()
    sign_in = Rect(x=10, y=100, width=120, height=40)
    model_found(store, page(("login", sign_in, "Sign in")), sign_in, "the blue primary button")
    wider = Rect(x=10, y=100, width=300, height=40)
    hit, use = replay(store, page(("login", wider, "Sign in")), "the blue primary button")
    assert hit is not None and (hit.tier, use.stale) == ("cache", 0)
    old = model_found(MemoryStore(), page(("gear", GEAR, "")))
    del old["element"]["size"]
    store = MemoryStore()
    store.put(NS.key("locate", PROMPT, 0), {**old, "rect": [8, 114, 33, 33]}, None)
    hit, _ = replay(store, page(("gear", GEAR, "")))
    assert hit is not None and hit.tier == "cache"
    hit, use = replay(store, page(("gear", DELETE, "")))
    assert hit is None and use.stale == 1
