"""A locate-cache entry replays only what the tier that stored it would still decide.

An older farm's OCR tier took the label "Username" for `aiInput: User name` (a near miss the
text tier rejects) and the cache kept it: every later run passed with `tier: cache`, the
entry checked like a model's description. An entry the text or OCR tier stored (or one with
no tier recorded) must match its target as the text tier does; one that never did is dropped
and the tiers decide. A model's entry keeps the description check."""

from __future__ import annotations

import logging

import pytest

from farm.agent.api import zero_token_chain
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel

NS = Namespace("qa/typo", "web")
LABEL, FIELD, BUTTON = (8, 81, 65, 17), (77, 80, 153, 21), (240, 80, 52, 21)
LABEL_XPATH = "//label[normalize-space(.)='Username']"


def R(rect):
    return Rect(x=rect[0], y=rect[1], width=rect[2], height=rect[3])


def login_form() -> FakeDevice:
    """The user's form: a label "Username" for its field, and a "Log in" button."""
    nodes = [UINode(id=0, role="form", rect=R((0, 70, 600, 40))),
             UINode(id=1, parent=0, role="label", rect=R(LABEL), text="Username"),
             UINode(id=2, parent=0, role="input:text", rect=R(FIELD), editable=True,
                    resource_id="u", label="Username"),
             UINode(id=3, parent=0, role="button", rect=R(BUTTON), clickable=True,
                    text="Log in")]
    return FakeDevice(UITree(source="dom", nodes=nodes), xpaths={
        LABEL_XPATH: [R(LABEL)], "//*[@id='u']": [R(FIELD)],
        "//button[normalize-space(.)='Log in']": [R(BUTTON)]})


def entry(tier: str | None, xpath: str, rect, role: str, shown: list[str]) -> dict:
    value = {"type": "locate", "xpaths": [xpath], "rect": list(rect), "screen": [1280, 800],
             "element": {"role": role, "shown": shown}}
    return value if tier is None else {**value, "tier": tier}


NEAR_MISS = entry("ocr", LABEL_XPATH, LABEL, "label", ["username"])


def locate(store, prompt, device=None, mode="read-write", resolve=lambda t: t):
    """One zero-token locate of ``prompt`` with the cache (OCR off: the page's tree reads all
    its text, where farm does not run OCR): (hit or the error raised, the step's cache use)."""
    cache = CaseCache(store, NS, mode)
    cache.begin_step()
    try:
        hit = zero_token_chain(resolve, cache, off=("ocr",)).locate(
            prompt, device or login_form(), resolve=resolve)
    except (LocateError, NeedsModel) as exc:
        hit = exc
    return hit, cache.end_step()


def test_an_ocr_near_miss_is_no_pass_and_is_dropped(caplog):
    store = MemoryStore()
    store.put(NS.key("locate", "User name", 0), {"prompt": "User name", **NEAR_MISS})
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        found, use = locate(store, "User name")
    assert isinstance(found, LocateError), found
    assert str(found).splitlines()[0] == ('no element matches "User name"; the closest on '
                                          'screen is "Username" (label)')
    assert (use.hits, use.stale, use.written) == (0, 1, 0)
    assert store.get(NS.key("locate", "User name", 0)) is None
    [said] = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert said.levelno == logging.WARNING
    assert said.getMessage() == (
        "locate cache entry for 'User name' dropped: the ocr tier stored a label \"username\" "
        "for it, and the text tier does not take that for 'User name' (none of its text, "
        "name, label or placeholder matches); locating again")
    found, use = locate(store, "User name")         # the next run: no entry, the same miss
    assert isinstance(found, LocateError) and (use.misses, use.stale) == (1, 0)


def test_read_only_keeps_the_entry_but_never_passes_on_it(caplog):
    store = MemoryStore()
    store.put(NS.key("locate", "User name", 0), NEAR_MISS)
    with caplog.at_level(logging.WARNING, logger="farm.cache"):
        for _ in range(2):
            found, use = locate(store, "User name", mode="read-only")
            assert isinstance(found, LocateError) and use.stale == 1
    assert store.get(NS.key("locate", "User name", 0)) is not None
    assert caplog.text.count("locate cache entry for 'User name' not used (kept: the cache "
                             "is read-only): the ocr tier stored") == 2, caplog.text


def test_a_dropped_near_miss_does_not_say_an_earlier_run_found_it():
    """With nothing like the target on screen a wrong entry made the miss a failure ("an
    earlier run found it here"): the text tier alone says it needs a model (a skip)."""
    store = MemoryStore()
    store.put(NS.key("locate", "Sign up", 0),
              entry("ocr", LABEL_XPATH, LABEL, "label", ["username"]))
    found, use = locate(store, "Sign up")
    assert isinstance(found, NeedsModel), found
    assert "earlier run" not in str(found) and use.stale == 1


@pytest.mark.parametrize("tier", ["ocr", None])
def test_an_entry_the_text_tier_would_take_still_replays(tier):
    """"Username" is the field's label: the text tier takes the field for it (an entry with
    no tier recorded, edited by hand, is judged the same way)."""
    store = MemoryStore()
    store.put(NS.key("locate", "Username", 0),
              entry(tier, "//*[@id='u']", FIELD, "input:text", ["username"]))
    hit, use = locate(store, "Username")
    assert (hit.tier, hit.rect, use.hits, use.stale) == ("cache", R(FIELD), 1, 0)


def test_an_entry_with_no_tier_recorded_is_judged_by_the_text_rule():
    store = MemoryStore()
    store.put(NS.key("locate", "User name", 0),
              entry(None, LABEL_XPATH, LABEL, "label", ["username"]))
    found, use = locate(store, "User name")
    assert isinstance(found, LocateError) and use.stale == 1


def test_a_model_entry_keeps_the_description_check():
    """A model found the label for "the user name label": a description names no text on
    screen, so the element only has to be what it was."""
    store = MemoryStore()
    store.put(NS.key("locate", "the user name label", 0),
              entry("ai", LABEL_XPATH, LABEL, "label", ["username"]))
    hit, use = locate(store, "the user name label")
    assert (hit.tier, hit.rect, use.hits) == ("cache", R(LABEL), 1)


def test_an_ocr_entry_whose_element_holds_no_text_in_the_tree_replays():
    """OCR read "Start game" on a canvas the tree has no text for: only the pixels say what
    it shows, so the entry is checked by its element's role, as before."""
    canvas = UINode(id=0, role="canvas", rect=R((40, 300, 220, 64)), clickable=True,
                    resource_id="game")
    device = FakeDevice(UITree(source="dom", nodes=[canvas]),
                        xpaths={"//*[@id='game']": [R((40, 300, 220, 64))]})
    store = MemoryStore()
    store.put(NS.key("locate", "Start game", 0),
              entry("ocr", "//*[@id='game']", (40, 300, 220, 64), "canvas", []))
    hit, use = locate(store, "Start game", device)
    assert (hit.tier, use.hits) == ("cache", 1)


def test_a_target_with_a_variable_is_matched_with_its_value():
    """`aiInput: ${FIELD}` (FIELD=Username): the entry is checked against what the text tier
    matches, the value; the entry and farm.log keep the reference."""
    store = MemoryStore()
    store.put(NS.key("locate", "${FIELD}", 0),
              entry("ocr", "//*[@id='u']", FIELD, "input:text", ["username"]))
    hit, use = locate(store, "${FIELD}", resolve=lambda t: t.replace("${FIELD}", "Username"))
    assert (hit.tier, use.hits) == ("cache", 1)
    store.put(NS.key("locate", "${FIELD}", 0), NEAR_MISS)
    found, use = locate(store, "${FIELD}",
                        resolve=lambda t: t.replace("${FIELD}", "User name"))
    assert isinstance(found, LocateError) and use.stale == 1
