"""A phone's gesture that starts on a located target (Swipe or Scroll from it, DragAndDrop from
it, Pinch on it) goes through the check a tap does (`farm.devices.phone_edges.tap_point`): a
target showing only a strip at the screen's edge (2 px above the home-gesture bar) is swiped in
first, once, or the step fails saying the system's bar would take the gesture. Only taps went
through it: a swipe from such a strip began on the home-gesture bar (the phone went home) since
the text tier no longer swiped it in while locating. The target a Swipe or DragAndDrop ends on
is checked the same way (below)."""

from __future__ import annotations

import pytest

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import default_chain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices import phone_edges
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

ANDROID, IOS = (1080, 2400), (390, 844)


def tree(source: str, pay: tuple[int, int], drop_y: int, size: tuple[int, int]) -> UITree:
    """"Pay now" at (y, height) ``pay`` and "Drop here" at ``drop_y`` (150 high), in one
    list that swipes move."""
    w, h = size
    return UITree(source=source, nodes=[
        UINode(id=0, parent=None, role="View", rect=Rect(x=0, y=0, width=w, height=h)),
        UINode(id=1, parent=0, role="Button", clickable=True, text="Pay now",
               rect=Rect(x=100, y=pay[0], width=300, height=pay[1])),
        UINode(id=2, parent=0, role="View", text="Drop here",
               rect=Rect(x=500, y=drop_y, width=300, height=150))])


class Phone(FakeDevice):
    """A phone whose screens follow one another as swipes move them (the last stays), with
    the real phones' pre-tap check on the tree it read last."""

    def __init__(self, platform: str, screens: list[UITree], size: tuple[int, int]) -> None:
        super().__init__(screens={str(i): s for i, s in enumerate(screens)}, start="0",
                         platform=platform, size=size)
        self.last: UITree | None = None

    def hierarchy(self) -> UITree:
        self.last = super().hierarchy()
        return self.last

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        super().swipe(x1, y1, x2, y2, duration_ms)
        self.screen = str(min(int(self.screen) + 1, len(self.screens) - 1))

    def pinch(self, x: int, y: int, reach: int, spread: bool, duration_ms: int = 500) -> None:
        self._act("pinch", x, y)

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return phone_edges.tap_point(self, self.last, node, x, y)


def android_strip() -> Phone:
    """"Pay now" shows 4 px at the bottom edge; one swipe brings it in whole (by 1196 px)."""
    return Phone("android", [tree("uiautomator", (2396, 4), 1900, ANDROID),
                             tree("uiautomator", (1200, 150), 704, ANDROID)], ANDROID)


def run(dev: Phone, action: str, params: dict) -> str | None:
    chain = default_chain()
    tasks = build_tasks(PlannedAction(type=action, params=params), registry(dev.platform))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev, loc.xpath),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def done(dev: Phone, kind: str) -> list[tuple]:
    return [a[1:] for a in dev.actions if a[0] == kind]


BRING_IN = (250, 1798, 250, 602, phone_edges.BRING_IN_MS)   # its top edge to the middle


def test_a_swipe_from_a_strip_starts_on_the_target_swiped_in():
    dev = android_strip()
    assert run(dev, "Swipe", {"start": "Pay now", "direction": "up", "distance": 500}) is None
    assert done(dev, "swipe") == [BRING_IN, (250, 1275, 250, 775, 300)]


def test_a_scroll_on_a_strip_scrolls_on_the_target_swiped_in():
    dev = android_strip()
    assert run(dev, "Scroll", {"locate": "Pay now", "direction": "down",
                               "distance": 400}) is None
    assert done(dev, "swipe") == [BRING_IN] and done(dev, "scroll") == [(250, 1275, 0, 400)]


def test_a_drag_from_a_strip_ends_where_its_drop_target_went_with_the_list():
    dev = android_strip()
    assert run(dev, "DragAndDrop", {"from": "Pay now", "to": "Drop here"}) is None
    assert done(dev, "swipe") == [BRING_IN, (250, 1275, 650, 779, 600)]


def test_a_pinch_on_a_strip_pinches_the_target_swiped_in():
    dev = android_strip()
    assert run(dev, "Pinch", {"locate": "Pay now"}) is None
    assert done(dev, "swipe") == [BRING_IN] and done(dev, "pinch") == [(250, 1275)]


@pytest.mark.parametrize("action, params, act", [
    ("Swipe", {"start": "Pay now", "direction": "up"}, "a swipe"),
    ("Scroll", {"locate": "Pay now"}, "a scroll"),
    ("DragAndDrop", {"from": "Pay now", "to": "Drop here"}, "a drag"),
    ("Pinch", {"locate": "Pay now"}, "a pinch")])
def test_a_target_that_stays_cut_fails_the_gesture_naming_the_bar(action, params, act):
    dev = Phone("ios", [tree("wda", (842, 44), 300, IOS)], IOS)   # (a frame past the edge)
    assert run(dev, action, params) == (
        f'"Pay now" is cut by the screen\'s edge: {act} there would hit the system\'s bar: '
        "it shows 2 of its 44 pt at the bottom edge of the screen, and a swipe does not "
        "bring it in")
    assert len(done(dev, "swipe")) == 1            # (the try to bring it in)
    assert done(dev, "scroll") == done(dev, "pinch") == []


def test_a_gesture_on_a_target_away_from_the_edge_is_not_preceded_by_a_swipe():
    dev = Phone("android", [tree("uiautomator", (2000, 150), 1000, ANDROID)], ANDROID)
    assert run(dev, "Scroll", {"locate": "Pay now", "distance": 400}) is None
    assert done(dev, "swipe") == [] and done(dev, "scroll") == [(250, 2075, 0, 400)]


# ---- the end of a Swipe / DragAndDrop -----------------------------------------------------------
# Its end target was not checked: a drag onto a drop target showing 4 px above the
# home-gesture bar ended on the bar (the drop went nowhere, the step passed).
def drop_tree(source: str, pay: tuple[int, int], drop: tuple[int, int],
              size: tuple[int, int]) -> UITree:
    """"Pay now" at (y, height) ``pay``, "Drop here" at (y, height) ``drop``."""
    w, h = size
    return UITree(source=source, nodes=[
        UINode(id=0, parent=None, role="View", rect=Rect(x=0, y=0, width=w, height=h)),
        UINode(id=1, parent=0, role="Button", clickable=True, text="Pay now",
               rect=Rect(x=100, y=pay[0], width=300, height=pay[1])),
        UINode(id=2, parent=0, role="View", text="Drop here",
               rect=Rect(x=500, y=drop[0], width=300, height=drop[1]))])


def drop_strip(pay_y: int = 1500) -> Phone:
    """"Drop here" shows 4 px at the bottom edge; one swipe brings it in (by 1196 px), and
    "Pay now" with it."""
    return Phone("android", [drop_tree("uiautomator", (pay_y, 150), (2396, 4), ANDROID),
                             drop_tree("uiautomator", (pay_y - 1196, 150), (1200, 150), ANDROID)],
                 ANDROID)


DROP_IN = (650, 1798, 650, 602, phone_edges.BRING_IN_MS)


@pytest.mark.parametrize("action, params, ms", [
    ("DragAndDrop", {"from": "Pay now", "to": "Drop here"}, 600),
    ("Swipe", {"start": "Pay now", "end": "Drop here"}, 300)])
def test_a_gesture_onto_a_strip_ends_on_its_target_swiped_in(action, params, ms):
    dev = drop_strip()
    assert run(dev, action, params) is None
    # from "Pay now" where the swipe took it (1575 - 1196) to "Drop here" whole
    assert done(dev, "swipe") == [DROP_IN, (250, 379, 650, 1275, ms)]


def test_a_drop_target_that_stays_cut_fails_the_drag_naming_the_bar():
    dev = Phone("ios", [drop_tree("wda", (300, 44), (842, 44), IOS)], IOS)   # (frame past edge)
    assert run(dev, "DragAndDrop", {"from": "Pay now", "to": "Drop here"}) == (
        '"Drop here" is cut by the screen\'s edge: a drag ending there would hit the '
        "system's bar: it shows 2 of its 44 pt at the bottom edge of the screen, and a swipe "
        "does not bring it in")
    assert len(done(dev, "swipe")) == 1            # (the try to bring it in), no drag


def test_a_drop_target_brought_in_past_its_start_fails_saying_they_do_not_fit():
    dev = drop_strip(pay_y=100)       # "Pay now" near the top: the swipe takes it off
    assert run(dev, "DragAndDrop", {"from": "Pay now", "to": "Drop here"}) == (
        '"Pay now" and "Drop here" do not fit on the screen together: swiping "Drop here" in '
        'from the bottom edge took "Pay now" off it')
    assert done(dev, "swipe") == [DROP_IN]


def test_a_drag_between_strips_at_opposite_edges_fails_saying_so():
    """"Pay now" 4 px at the bottom is swiped in; "Drop here", 4 px at the top, goes further
    out with the list."""
    dev = Phone("android", [drop_tree("uiautomator", (2396, 4), (0, 4), ANDROID),
                            drop_tree("uiautomator", (1200, 150), (-1196, 4), ANDROID)], ANDROID)
    assert run(dev, "DragAndDrop", {"from": "Pay now", "to": "Drop here"}) == (
        '"Drop here" is cut by the screen\'s edge: a drag ending there would hit the system\'s '
        'bar, and swiping "Pay now" in did not bring it in')
    assert done(dev, "swipe") == [BRING_IN]
