"""A row the text tier's search swipes (Android's `swipe_to_find`: the dump lists only what
shows) bring on screen as a strip at the screen's edge is swiped in once before its tap, by the
tap's check (`farm.devices.phone_edges.tap_point`). The search swiped once more to bring it in
and the tap's check swiped again: at a list's end, where neither moves it, the strip was
swiped at twice for nothing."""

from __future__ import annotations

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import default_chain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices import phone_edges
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

SIZE = (400, 800)


def page(*rows: tuple[str, int, int]) -> UITree:
    return UITree(source="uiautomator", nodes=[
        UINode(id=0, parent=None, role="android.widget.ListView",
               rect=Rect(x=0, y=0, width=400, height=800))] + [
        UINode(id=i + 1, parent=0, role="android.widget.TextView", clickable=True, text=t,
               rect=Rect(x=0, y=y, width=400, height=h)) for i, (t, y, h) in enumerate(rows)])


FIRST = page(("Note 1", 100, 50), ("Note 2", 400, 50))
CUT = page(("Note 3", 100, 50), ("Note 4", 780, 20))          # 20 px of it at the bottom
WHOLE = page(("Note 3", 100, 50), ("Note 4", 400, 50))


class ListPhone(FakeDevice):
    """A phone showing ``pages`` of one list, top first: a search swipe or a swipe up moves
    it one page on (none past its end), with the real phones' pre-tap check."""

    def __init__(self, pages: list[UITree]) -> None:
        super().__init__(screens={str(i): p for i, p in enumerate(pages)}, start="0",
                         platform="android", size=SIZE)
        self.last: UITree | None = None

    def hierarchy(self) -> UITree:
        self.last = super().hierarchy()
        return self.last

    def _on(self) -> None:
        self.screen = str(min(int(self.screen) + 1, len(self.screens) - 1))

    def swipe_to_find(self, forward: bool) -> bool:
        self.actions.append(("swipe_to_find", forward))
        self._on()
        return True

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        super().swipe(x1, y1, x2, y2, duration_ms)
        self._on()

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return phone_edges.tap_point(self, self.last, node, x, y)


def tap(dev: ListPhone, prompt: str) -> str | None:
    chain = default_chain()
    tasks = build_tasks(PlannedAction(type="Tap", params={"locate": prompt}), registry("android"))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev, loc.xpath),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def moves(dev: ListPhone) -> list[str]:
    return [a[0] for a in dev.actions if a[0] in ("swipe", "swipe_to_find")]


def taps(dev: ListPhone) -> list[tuple]:
    return [a[1:] for a in dev.actions if a[0] == "tap"]


def test_at_the_list_s_end_a_strip_found_by_the_search_is_swiped_at_once():
    dev = ListPhone([FIRST, CUT])             # the list ends with the strip on the edge
    assert tap(dev, "Note 4") is None
    assert moves(dev) == ["swipe_to_find", "swipe"]         # (was: one more search swipe)
    assert taps(dev) == [(200, 790)]          # the strip as it is: all a dump says there is


def test_a_strip_found_by_the_search_is_swiped_in_once_and_tapped_whole():
    dev = ListPhone([FIRST, CUT, WHOLE])
    assert tap(dev, "Note 4") is None
    assert moves(dev) == ["swipe_to_find", "swipe"]
    assert taps(dev) == [(200, 425)]
