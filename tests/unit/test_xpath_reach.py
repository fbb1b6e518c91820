"""A step located by `xpath:` was tapped at its rect's point unchecked: a button under an
overlay passed (the click went to the overlay), one a scroll container clips was tapped
where the container's other content is. On a device that can tell what a tap would hit (the
web's ``tap_point``) the XPath's element is now its tree node and is checked as the text
tier's find is; a phone (no ``tap_point``) reads no tree for it and taps as before."""

from __future__ import annotations

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import LocatorChain, XPathTier
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

PAY = Rect(x=10, y=60, width=100, height=30)          # centre (60, 75)
XPATH = "//*[@id='pay']"
COVER = '<div id="veil">'


class WebPage(FakeDevice):
    """A page whose ``tap_point`` answers ``answer`` (None: the point as asked)."""

    def __init__(self, answer: tuple[int, int, str] | None, platform: str = "web") -> None:
        super().__init__(UITree(source="dom", nodes=[
            UINode(id=0, role="div", rect=Rect(x=0, y=0, width=800, height=50)),
            UINode(id=1, role="button", clickable=True, rect=PAY),
            UINode(id=2, role="span", parent=1, text="Pay", rect=PAY)]),
            platform=platform, xpaths={XPATH: [PAY]})
        self.answer = answer
        self.asked: list[tuple[int, int, int]] = []

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        self.asked.append((node, x, y))
        return self.answer or (x, y, "")


def run(dev: FakeDevice) -> str | None:
    chain = LocatorChain([XPathTier()])
    tasks = build_tasks(PlannedAction(type="Tap", params={"locate": {"xpath": XPATH}}),
                        registry(dev.platform))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev, xpath=loc.xpath),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def taps(dev: FakeDevice) -> list[tuple]:
    return [a for a in dev.actions if a[0] == "tap"]


def test_an_xpath_target_under_an_overlay_fails_the_step_naming_the_cover() -> None:
    dev = WebPage((60, 75, COVER))
    assert run(dev) == f"XPath {XPATH} is covered by {COVER}: a tap there would hit that"
    assert dev.asked == [(1, 60, 75)] and taps(dev) == []     # the outermost node of its rect


def test_an_xpath_target_scrolled_into_view_is_tapped_where_it_went() -> None:
    dev = WebPage((60, 400, ""))
    assert run(dev) is None
    assert taps(dev) == [("tap", 60, 400)]


def test_an_xpath_target_off_screen_that_no_scroll_brings_in_says_so() -> None:
    dev = WebPage((-340, 75, "the edge of the page"))
    dev.xpaths[XPATH] = [Rect(x=-400, y=60, width=100, height=30)]
    dev.tree.nodes[1].rect = dev.xpaths[XPATH][0]
    w, h = dev.size()
    assert run(dev) == (f"XPath {XPATH} is outside the page's {w}x{h} viewport, and scrolling "
                        "the page does not bring it in where a tap reaches it: it would hit "
                        "the edge of the page")


def test_a_phone_reads_no_tree_for_an_xpath_and_taps_as_before() -> None:
    dev = FakeDevice(WebPage(None).tree, platform="android", xpaths={XPATH: [PAY]})
    assert run(dev) is None
    assert dev.hierarchies == 0 and taps(dev) == [("tap", 60, 75)]


def test_a_disabled_xpath_target_fails_the_step_and_is_not_tapped() -> None:
    dev = WebPage(None)
    dev.tree.nodes[1].enabled = False
    assert run(dev) == f"XPath {XPATH} is disabled: a tap does nothing there"
    assert taps(dev) == []
