"""aiInput on the web, as Playwright's fill: a text field the page's tree read found reachable
is filled without a tap (`BrowserDevice.fill_at`: focus and text in one round trip, where the
tap, the mouse moving in, the check that the target is still there and the fill were four);
the report marks the field typed into. Where the device cannot (None) the field is tapped and
filled as before; where it focused but nothing took the text (False) it is not tapped again:
the keys are typed."""

from __future__ import annotations

from typing import Any

from farm.agent.actions import ActionContext, Input, Locate
from farm.devices.base import Rect


class Web:
    platform = "web"

    def __init__(self, fill_at: Any) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self._fill_at = fill_at

    def fill_at(self, x: int, y: int, node: int, text: str) -> bool | None:
        self.calls.append(("fill_at", x, y, node, text))
        return self._fill_at

    def tap(self, x: int, y: int) -> None:
        self.calls.append(("tap", x, y))

    def fill(self, text: str) -> bool:
        self.calls.append(("fill", text))
        return True

    def clear_text(self) -> None:
        self.calls.append(("clear",))

    def type_text(self, text: str) -> None:
        self.calls.append(("type", text))


def run_input(device: Web, mode: str = "replace", node: int | None = 3) -> list[dict]:
    loc = Locate(prompt="Username", rect=Rect(x=100, y=40, width=200, height=20), node=node)
    acted: list[dict] = []
    ctx = ActionContext(device, lambda text: text.replace("${PW}", "s3cret"), acted=acted)
    Input(value="${PW}", locate=loc, mode=mode).run(ctx)
    return acted


def test_a_reachable_text_field_is_filled_without_a_tap_and_marked_as_typed_into():
    web = Web(fill_at=True)
    marks = run_input(web)
    assert web.calls == [("fill_at", 200, 50, 3, "s3cret")]     # the secret resolved here
    assert marks == [{"kind": "type", "points": [[200, 50]]}]


def test_where_the_device_cannot_the_field_is_tapped_then_filled():
    web = Web(fill_at=None)
    marks = run_input(web)
    assert web.calls == [("fill_at", 200, 50, 3, "s3cret"), ("tap", 200, 50), ("fill", "s3cret")]
    assert marks == [{"kind": "tap", "points": [[200, 50]]}]


def test_a_field_that_took_the_focus_but_not_the_text_gets_keys_not_a_second_tap():
    web = Web(fill_at=False)
    run_input(web)
    assert web.calls == [("fill_at", 200, 50, 3, "s3cret"), ("clear",), ("type", "s3cret")]


def test_typing_key_by_key_and_a_target_from_no_tree_read_keep_the_tap():
    web = Web(fill_at=True)
    run_input(web, mode="typeOnly")
    assert web.calls == [("tap", 200, 50), ("type", "s3cret")]
    web = Web(fill_at=True)
    run_input(web, node=None)        # (an XPath's or a box's target: no node of the read)
    assert web.calls == [("tap", 200, 50), ("fill", "s3cret")]
