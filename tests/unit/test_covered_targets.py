"""A tap on a target found in the UI tree asks a device that can tell (the web's
``tap_point``) what the tap would hit: a covered target fails the step naming the cover, a
target scrolled from under it is tapped where it went. Devices without ``tap_point`` (phones)
and targets not found in the tree (XPath, OCR, model boxes) are tapped as before."""

from __future__ import annotations

import pytest

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import LocateHit, default_chain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

PAY = Rect(x=10, y=60, width=100, height=30)          # centre (60, 75)
COVER = '<div id="cookie-banner"> "We use cookies…"'


class WebPage(FakeDevice):
    """A page whose ``tap_point`` answers ``answer`` (None: the point as asked)."""

    def __init__(self, answer: tuple[int, int, str] | None, platform: str = "web") -> None:
        super().__init__(UITree(source="dom", nodes=[
            UINode(id=0, role="div", text="Shop", rect=Rect(x=0, y=0, width=800, height=50)),
            UINode(id=1, role="button", text="Pay now", clickable=True, rect=PAY)]),
            platform=platform)
        self.answer = answer
        self.asked: list[tuple[int, int, int]] = []

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        self.asked.append((node, x, y))
        return self.answer or (x, y, "")


def run(dev: FakeDevice, action: str, locate=None) -> str | None:
    chain = default_chain()
    tasks = build_tasks(PlannedAction(type=action, params={"locate": {"prompt": "Pay now"}}),
                        registry(dev.platform))
    runner = TaskRunner(locate=locate or (lambda loc: chain.locate(loc.prompt, dev)),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def pointer_actions(dev: FakeDevice) -> list[tuple]:
    return [a for a in dev.actions if a[0] in ("tap", "double_tap", "long_press", "right_click")]


def test_the_text_tier_says_which_tree_node_it_found() -> None:
    hit = default_chain().locate("Pay now", WebPage(None))
    assert (hit.tier, hit.node, hit.rect) == ("text", 1, PAY)


@pytest.mark.parametrize("action, act", [("Tap", "a tap"), ("DoubleClick", "a double-click"),
                                         ("LongPress", "a long press")])
def test_a_covered_target_fails_the_step_naming_the_cover(action: str, act: str) -> None:
    dev = WebPage((60, 400, COVER))
    assert run(dev, action) == f'"Pay now" is covered by {COVER}: {act} there would hit that'
    assert dev.asked == [(1, 60, 75)] and pointer_actions(dev) == []


def test_a_target_scrolled_from_under_its_cover_is_tapped_where_it_went() -> None:
    dev = WebPage((60, 400, ""))
    assert run(dev, "Tap") is None
    assert pointer_actions(dev) == [("tap", 60, 400)]


def test_an_uncovered_target_is_tapped_where_it_was_found() -> None:
    dev = WebPage(None)
    assert run(dev, "Tap") is None
    assert dev.asked == [(1, 60, 75)] and pointer_actions(dev) == [("tap", 60, 75)]


def test_a_phone_is_not_asked_and_taps_as_before() -> None:
    dev = FakeDevice(WebPage(None).tree, platform="android")
    assert run(dev, "Tap") is None
    assert pointer_actions(dev) == [("tap", 60, 75)]


def test_a_target_not_from_the_tree_is_not_checked() -> None:
    dev = WebPage((60, 400, COVER))
    assert run(dev, "Tap", locate=lambda loc: LocateHit(PAY, "ocr", "read on screen")) is None
    assert dev.asked == [] and pointer_actions(dev) == [("tap", 60, 75)]
