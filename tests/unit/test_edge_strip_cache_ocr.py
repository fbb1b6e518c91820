"""A phone's target found by the locate cache or by OCR that shows only a strip at the
screen's edge is swiped in before the tap, as one the step's XPath or the text tier found:
their hits carried no tree node, so the tap's edge check (`phone_edges.tap_point`) never ran
for them and the tap landed on the strip (where the home-gesture bar takes it)."""

from __future__ import annotations

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import LocateContext, LocateHit, LocatorChain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.devices import phone_edges
from farm.devices.base import Rect, UITree
from farm.devices.fake import FakeDevice
from farm.devices.native_tree import parse_uiautomator, query_xml
from farm.llm.plan import PlannedAction

PROMPT = "the pay button"
NS = Namespace("shop/pay", "android")
W, H = 1080, 2400


def screen(top: int, bottom: int) -> str:
    return ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" '
            f'bounds="[0,0][{W},{H}]"><node class="android.widget.Button" '
            'resource-id="com.shop:id/pay" text="Pay now" clickable="true" '
            f'bounds="[100,{top}][400,{bottom}]"/></node></hierarchy>')


class Phone(FakeDevice):
    """An Android phone whose screens (dump XML) follow one another as swipes move them (the
    last stays), its XPaths evaluated as the driver does, with the real phones' pre-tap
    check on the tree it read last."""

    def __init__(self, *xml: str) -> None:
        self.xml = list(xml)
        super().__init__(screens={str(i): parse_uiautomator(x, W, H) for i, x in enumerate(xml)},
                         start="0", platform="android", size=(W, H))
        self.last: UITree | None = None

    def hierarchy(self) -> UITree:
        self.last = super().hierarchy()
        return self.last

    def query_xpath(self, xpath: str) -> list[Rect]:
        return query_xml(self.xml[int(self.screen)], xpath, self.tree)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        super().swipe(x1, y1, x2, y2, duration_ms)
        self.screen = str(min(int(self.screen) + 1, len(self.screens) - 1))

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return phone_edges.tap_point(self, self.last, node, x, y)


def tap(dev: Phone, chain: LocatorChain) -> str | None:
    tasks = build_tasks(PlannedAction(type="Tap", params={"locate": {"prompt": PROMPT}}),
                        registry(dev.platform))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def acted(dev: Phone) -> list[tuple]:
    return [(a[0], *a[1:3]) for a in dev.actions if a[0] in ("tap", "swipe")]


def test_a_cached_target_cut_by_the_bottom_edge_is_swiped_in_before_the_tap():
    store = MemoryStore()
    found = Phone(screen(1000, 1150))               # an earlier run: the model found it
    cache = CaseCache(store, NS, "read-write", package="com.shop")
    cache.begin_step()
    LocateCacheTier(cache).remember(PROMPT, LocateHit(found.tree.nodes[1].rect, "ai"),
                                    LocateContext(found))
    assert cache.end_step().written == 1
    dev = Phone(screen(2396, 2400), screen(1200, 1350))    # now 4 px of it show
    cache = CaseCache(store, NS, "read-write", package="com.shop")
    cache.begin_step()
    assert tap(dev, LocatorChain([LocateCacheTier(cache)])) is None
    assert acted(dev) == [("swipe", 250, 1798), ("tap", 250, 1275)]


def unlabelled(top: int, bottom: int) -> str:
    """A black-box app's screen: its button has no text in the tree (OCR reads it)."""
    return ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" '
            f'bounds="[0,0][{W},{H}]"><node class="android.view.View" clickable="true" '
            f'bounds="[100,{top}][400,{bottom}]"/></node></hierarchy>')


def test_a_target_read_by_ocr_cut_by_the_bottom_edge_is_swiped_in_before_the_tap(monkeypatch):
    from farm.agent import ocr

    def engine(image, use_cls=True):        # "Pay now" read 20-46 px below the button's top
        return [([[150, 2370], [350, 2370], [350, 2396], [150, 2396]], "Pay now", 0.9)], 0.0
    monkeypatch.setattr(ocr, "_engine", engine)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())
    dev = Phone(unlabelled(2350, 2400), unlabelled(1200, 1350))    # 50 px of it show
    chain = LocatorChain([ocr.OcrTier()])
    tasks = build_tasks(PlannedAction(type="Tap", params={"locate": {"prompt": "Pay now"}}),
                        registry(dev.platform))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev),
                        ctx=ActionContext(dev, lambda text: text))
    assert runner.run(tasks) is None
    [swipe, (_, x, y)] = acted(dev)
    assert swipe[0] == "swipe" and (x, y) == (250, 1233)   # the text, where it went
