"""A hover, and a drag at either end, on a page target something else covers (a fixed
header) fails the step naming the cover, as a tap does: before, the pointer went to the
header and the step passed."""

from __future__ import annotations

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import default_chain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

HEADER = '<header> "Fixed banner"'
CARD = Rect(x=10, y=100, width=100, height=30)     # centre (60, 115)
BIN = Rect(x=300, y=300, width=100, height=30)     # centre (350, 315)


class Page(FakeDevice):
    """A page whose ``tap_point`` says ``covered`` nodes are under the header."""

    def __init__(self, covered: set[int]) -> None:
        super().__init__(UITree(source="dom", nodes=[
            UINode(id=1, role="div", text="Hidden search", clickable=True, rect=CARD),
            UINode(id=2, role="div", text="Trash bin", clickable=True, rect=BIN)]),
            platform="web")
        self.covered = covered

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return x, y, HEADER if node in self.covered else ""


def run(dev: FakeDevice, action: str, params: dict) -> str | None:
    chain = default_chain()
    tasks = build_tasks(PlannedAction(type=action, params=params), registry("web"))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def moved(dev: FakeDevice) -> list[tuple]:
    return [a for a in dev.actions if a[0] in ("hover", "swipe", "drag")]


def test_a_hover_on_a_covered_target_fails_naming_the_cover() -> None:
    dev = Page({1})
    assert run(dev, "Hover", {"locate": {"prompt": "Hidden search"}}) == \
        f'"Hidden search" is covered by {HEADER}: a hover there would hit that'
    assert moved(dev) == []


def test_a_hover_on_a_free_target_goes_there() -> None:
    dev = Page(set())
    assert run(dev, "Hover", {"locate": {"prompt": "Hidden search"}}) is None
    assert moved(dev) == [("hover", 60, 115)]


DRAG = {"from": {"prompt": "Hidden search"}, "to": {"prompt": "Trash bin"}}


def test_a_drag_from_a_covered_target_fails_naming_the_cover() -> None:
    dev = Page({1})
    assert run(dev, "DragAndDrop", DRAG) == \
        f'"Hidden search" is covered by {HEADER}: a drag there would hit that'
    assert moved(dev) == []


def test_a_drag_onto_a_covered_target_fails_naming_the_cover() -> None:
    dev = Page({2})
    assert run(dev, "DragAndDrop", DRAG) == \
        f'"Trash bin" is covered by {HEADER}: a drag ending there would hit that'
    assert moved(dev) == []


def test_a_drag_between_free_targets_goes_from_one_to_the_other() -> None:
    dev = Page(set())
    assert run(dev, "DragAndDrop", DRAG) is None
    assert [a[1:5] for a in moved(dev)] == [(60, 115, 350, 315)]
