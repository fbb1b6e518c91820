import pytest

from farm.agent.locator import default_chain
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel


def node(i, role, parent=None, rect=(0, 0, 100, 30), **kw):
    return UINode(id=i, parent=parent, role=role, rect=Rect(x=rect[0], y=rect[1],
                  width=rect[2], height=rect[3]), **kw)


LOGIN = UITree(source="dom", nodes=[
    node(0, "form", rect=(0, 0, 600, 400)),
    node(1, "label", 0, (10, 10, 100, 20), text="Username", clickable=True),
    node(2, "input:text", 0, (120, 10, 200, 20), label="Username",
         placeholder="Enter your username", editable=True, clickable=True),
    node(3, "button", 0, (10, 100, 120, 40), clickable=True, name="Sign in"),
    node(4, "span", 3, (20, 110, 80, 20), text="Sign in"),
    node(5, "a", 0, (10, 200, 80, 20), text="Help", clickable=True),
    node(6, "a", 0, (100, 200, 80, 20), text="Help", clickable=True),
    node(7, "p", 0, (0, 900, 80, 20), text="Terms", visible=False),
])


def test_label_and_input_resolve_to_the_input():
    hit = default_chain().locate("username", FakeDevice(LOGIN))
    assert hit.tier == "text" and hit.rect.x == 120


def test_text_inside_button_resolves_to_the_button():
    hit = default_chain().locate("Sign  in", FakeDevice(LOGIN))
    assert (hit.rect.x, hit.rect.y) == (10, 100)


def test_placeholder_matches():
    assert default_chain().locate("Enter your username", FakeDevice(LOGIN)).rect.x == 120


def test_ambiguous_target_fails_with_candidates():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Help", FakeDevice(LOGIN))
    assert "ambiguous" in str(info.value) and len(info.value.candidates) == 2


def test_near_miss_is_a_test_failure_naming_what_was_seen():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Sign on", FakeDevice(LOGIN))
    assert any("Sign in" in c for c in info.value.candidates)


def test_offscreen_match_is_reported():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Terms", FakeDevice(LOGIN))
    assert "off-screen" in info.value.candidates[0]


def test_nothing_similar_needs_a_model():
    with pytest.raises(NeedsModel, match="FARM_MODEL"):
        default_chain().locate("the blue cart icon in the corner", FakeDevice(LOGIN))


def test_xpath_tier_wins_and_records_its_tier():
    dev = FakeDevice(LOGIN, xpaths={"//button": [Rect(x=1, y=2, width=3, height=4)]})
    tiers = []
    hit = default_chain(lambda t, ok: tiers.append((t, ok))).locate("Help", dev, xpath="//button")
    assert hit.tier == "xpath" and hit.rect.x == 1 and tiers == [("xpath", True)]


def test_xpath_miss_falls_through_to_text():
    hit = default_chain().locate("Sign in", FakeDevice(LOGIN), xpath="//nothing")
    assert hit.tier == "text"
