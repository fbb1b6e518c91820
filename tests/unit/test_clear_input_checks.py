"""aiInput's clear (ClearInput) taps its field through the same checks as every other located
tap: a disabled field or one something covers fails the step (it was tapped and "cleared",
the step passed while the field kept its text), and a field the device's check moves (scrolled
from under a banner, swiped in from a phone's edge) is tapped where it went."""

from __future__ import annotations

from farm.agent.actions import ActionContext, registry
from farm.agent.locator import default_chain
from farm.agent.tasks import TaskRunner, build_tasks
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.plan import PlannedAction

FIELD = Rect(x=10, y=60, width=300, height=40)         # centre (160, 80)
COVER = '<div id="cookie-banner"> "We use cookies…"'


class Page(FakeDevice):
    def __init__(self, answer: tuple[int, int, str] | None, enabled: bool = True) -> None:
        super().__init__(UITree(source="dom", nodes=[
            UINode(id=0, role="input", name="Search", editable=True, enabled=enabled,
                   rect=FIELD)]))
        self.answer = answer

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return self.answer or (x, y, "")


def clear(dev: FakeDevice) -> str | None:
    chain = default_chain()
    tasks = build_tasks(PlannedAction(type="ClearInput", params={"locate": "Search"}),
                        registry(dev.platform))
    runner = TaskRunner(locate=lambda loc: chain.locate(loc.prompt, dev),
                        ctx=ActionContext(dev, lambda text: text))
    failed = runner.run(tasks)
    return None if failed is None else failed.error


def done(dev: FakeDevice) -> list[tuple]:
    return [a for a in dev.actions if a[0] in ("tap", "clear_text")]


def test_a_covered_field_is_not_cleared_and_the_step_says_what_covers_it() -> None:
    dev = Page((160, 80, COVER))
    assert clear(dev) == f'"Search" is covered by {COVER}: a tap there would hit that'
    assert done(dev) == []


def test_a_disabled_field_fails_the_step() -> None:
    dev = Page(None, enabled=False)
    assert clear(dev) == '"Search" is disabled: nothing can be cleared there'
    assert done(dev) == []


def test_a_field_the_check_moved_is_tapped_where_it_went() -> None:
    dev = Page((160, 300, ""))
    assert clear(dev) is None
    assert done(dev) == [("tap", 160, 300), ("clear_text",)]
