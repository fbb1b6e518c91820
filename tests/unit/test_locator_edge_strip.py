"""A phone's target that shows only a strip at the screen's edge on the first read (a button
mostly below the fold) is swiped in once before the tap, not tapped on the strip (where a
phone's home-gesture bar takes the tap), or the step fails when it does not come in. One
check does it for every tier's find (`farm.devices.phone_edges.tap_point`, what Android's
and iOS's `tap_point` run before each located tap): the text tier swiped such a target in
while locating and the tap's check swiped it again, so a strip that does not scroll in (the
last row of a list at its end) was swiped twice."""

from __future__ import annotations

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import default_chain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices import phone_edges
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

ANDROID, IOS = (1080, 2400), (390, 844)


def tree(source: str, button: tuple[int, int], size: tuple[int, int]) -> UITree:
    w, h = size
    return UITree(source=source, nodes=[
        UINode(id=0, parent=None, role="View", rect=Rect(x=0, y=0, width=w, height=h)),
        UINode(id=1, parent=0, role="Button", clickable=True, text="Pay now",
               rect=Rect(x=100, y=button[0], width=300, height=button[1]))])


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

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return phone_edges.tap_point(self, self.last, node, x, y)


def android(*buttons: tuple[int, int]) -> Phone:
    return Phone("android", [tree("uiautomator", b, ANDROID) for b in buttons], ANDROID)


def ios(*buttons: tuple[int, int]) -> Phone:
    return Phone("ios", [tree("wda", b, IOS) for b in buttons], IOS)


def tap(dev: Phone, xpath: str | None = None) -> str | None:
    chain = default_chain()
    locate = {"prompt": "Pay now"} if xpath is None else {"xpath": xpath}
    tasks = build_tasks(PlannedAction(type="Tap", params={"locate": locate}),
                        registry(dev.platform))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev, loc.xpath),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def swipes(dev: Phone) -> list[tuple]:
    return [a[1:] for a in dev.actions if a[0] == "swipe"]


def taps(dev: Phone) -> list[tuple]:
    return [a[1:] for a in dev.actions if a[0] == "tap"]


def test_android_a_strip_at_the_bottom_edge_is_swiped_in_once_and_tapped_whole():
    dev = android((2396, 4), (1200, 150))            # 4 px of it show, then all of it
    assert tap(dev) is None
    [(x1, y1, x2, y2, _)] = swipes(dev)
    assert x1 == x2 and y1 - y2 == 2396 - 1200      # its top edge to the screen's middle
    assert taps(dev) == [(250, 1275)]


def test_a_strip_that_does_not_come_in_is_swiped_once_then_tapped_as_it_is():
    """A dump's bounds are clipped to what shows: a strip that stays may be all there is."""
    dev = android((2396, 4))
    assert tap(dev) is None
    assert len(swipes(dev)) == 1 and taps(dev) == [(250, 2398)]


def test_ios_a_button_whose_frame_is_mostly_below_the_screen_is_swiped_in():
    for first in ((842, 2), (842, 44)):        # clipped to what shows (`shown_parts`), or not
        dev = ios(first, (422, 44))
        assert tap(dev) is None
        assert len(swipes(dev)) == 1 and taps(dev) == [(250, 444)]


def test_a_strip_at_the_top_edge_is_swiped_down_into_view():
    dev = ios((0, 3), (380, 44))
    assert tap(dev) is None
    [(_, y1, _, y2, _)] = swipes(dev)
    assert y2 - y1 == 422 - 3                  # its bottom edge to the screen's middle
    assert taps(dev) == [(250, 402)]


def test_a_frame_that_stays_past_the_edge_fails_the_tap_naming_the_bar():
    dev = ios((842, 44))                        # (a tree that does not clip)
    assert tap(dev) == ('"Pay now" is cut by the screen\'s edge: a tap there would hit the '
                        "system's bar: it shows 2 of its 44 pt at the bottom edge of the "
                        "screen, and a swipe does not bring it in")
    assert len(swipes(dev)) == 1 and taps(dev) == []


def test_a_small_control_away_from_the_screen_s_edge_is_not_swiped():
    dev = android((2000, 40))
    assert tap(dev) is None and swipes(dev) == [] and taps(dev) == [(250, 2020)]


def test_a_fully_shown_button_at_the_bottom_edge_is_not_swiped():
    for dev, y in ((android((2250, 150)), 2325), (ios((800, 44)), 822)):
        assert tap(dev) is None and swipes(dev) == [] and taps(dev) == [(250, y)]
