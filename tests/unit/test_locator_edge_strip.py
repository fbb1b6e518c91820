"""A phone's target that shows only a strip at the screen's edge on the first read (a button
mostly below the fold) is swiped in before the tap, not tapped on the strip (where a phone's
home-gesture bar takes the tap), or refused when it does not come in."""
import pytest

from farm.agent.locator import default_chain
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError


def tree(source, button, size):
    w, h = size
    return UITree(source=source, nodes=[
        UINode(id=0, parent=None, role="View", rect=Rect(x=0, y=0, width=w, height=h)),
        UINode(id=1, parent=0, role="Button", clickable=True, text="Pay now",
               rect=Rect(x=100, y=button[0], width=300, height=button[1]))])


class Phone(FakeDevice):
    """A phone whose screens follow one another as swipes move them (the last stays)."""

    def __init__(self, platform, screens, size):
        super().__init__(screens={str(i): s for i, s in enumerate(screens)}, start="0",
                         platform=platform, size=size)

    def swipe(self, x1, y1, x2, y2, duration_ms=300):
        super().swipe(x1, y1, x2, y2, duration_ms)
        self.screen = str(min(int(self.screen) + 1, len(self.screens) - 1))


def swipes(dev):
    return [a[1:] for a in dev.actions if a[0] == "swipe"]


def test_android_a_strip_at_the_bottom_edge_is_swiped_in_before_it_is_tapped():
    size = (1080, 2400)
    dev = Phone("android", [tree("uiautomator", (2396, 4), size),        # 4 px of it show
                            tree("uiautomator", (1200, 150), size)], size)
    hit = default_chain().locate("Pay now", dev)
    assert hit.rect.y == 1200 and "scrolled into view" in hit.description
    [(x1, y1, x2, y2, _)] = swipes(dev)
    assert x1 == x2 and y1 - y2 == 2396 - 1200      # its top edge to the screen's middle


def test_ios_a_button_whose_frame_is_mostly_below_the_screen_is_swiped_in():
    size = (390, 844)
    for first in ((842, 2), (842, 44)):        # clipped to what shows (`shown_parts`), or not
        dev = Phone("ios", [tree("wda", first, size), tree("wda", (422, 44), size)], size)
        hit = default_chain().locate("Pay now", dev)
        assert hit.rect.y == 422 and len(swipes(dev)) == 1


def test_a_strip_at_the_top_edge_is_swiped_down_into_view():
    size = (390, 844)
    dev = Phone("ios", [tree("wda", (0, 3), size), tree("wda", (380, 44), size)], size)
    assert default_chain().locate("Pay now", dev).rect.y == 380
    [(_, y1, _, y2, _)] = swipes(dev)
    assert y2 - y1 == 422 - 3                  # its bottom edge to the screen's middle


def test_a_small_control_away_from_the_screen_s_edge_is_not_swiped():
    size = (1080, 2400)
    dev = Phone("android", [tree("uiautomator", (2000, 40), size)], size)
    assert default_chain().locate("Pay now", dev).rect.y == 2000 and swipes(dev) == []


def test_ios_a_button_that_does_not_scroll_in_is_refused_saying_why():
    size = (390, 844)
    dev = Phone("ios", [tree("wda", (842, 44), size)], size)
    with pytest.raises(LocateError) as info:
        default_chain().locate("Pay now", dev)
    assert "shows 2 of its 44 pt, at the bottom edge" in str(info.value)
    assert not [a for a in dev.actions if a[0] == "tap"]


def test_a_fully_shown_button_at_the_bottom_edge_is_not_swiped():
    size = (1080, 2400)
    dev = Phone("android", [tree("uiautomator", (2250, 150), size)], size)
    assert default_chain().locate("Pay now", dev).rect.y == 2250 and swipes(dev) == []
    dev = Phone("ios", [tree("wda", (800, 44), size := (390, 844))], size)
    assert default_chain().locate("Pay now", dev).rect.y == 800 and swipes(dev) == []


def test_an_android_strip_that_does_not_move_is_taken_as_it_is():
    """A dump's bounds are clipped to what shows: a strip that stays may be all there is."""
    size = (1080, 2400)
    dev = Phone("android", [tree("uiautomator", (2396, 4), size)], size)
    assert default_chain().locate("Pay now", dev).rect.y == 2396
