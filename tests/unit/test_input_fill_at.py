"""aiInput on the web, as Playwright's fill: a text field the page's tree read found reachable
is filled without a tap (`BrowserDevice.fill_at`: focus and text in one round trip, where the
tap, the mouse moving in, the check that the target is still there and the fill were four);
the report marks the field typed into. Where the device cannot (None) the field is tapped and
filled as before; where it focused but nothing took the text (False) it is not tapped again:
the keys are typed. aiKeyboardPress on a field likewise focuses it without a tap (as
Playwright's press), and one on a covered element fails the step as a tap there does (the tap
went to the cover, the key with it, and the step passed)."""

from __future__ import annotations

from typing import Any

import pytest

from farm.agent.actions import ActionContext, Input, KeyboardPress, Locate
from farm.devices.base import Rect
from farm.errors import StepFailed


class Web:
    platform = "web"

    def __init__(self, fill_at: Any, cover: str = "") -> None:
        self.calls: list[tuple[Any, ...]] = []
        self._fill_at, self._cover = fill_at, cover

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return x, y, self._cover

    def focus_at(self, x: int, y: int, node: int) -> bool | None:
        self.calls.append(("focus_at", x, y, node))
        return self._fill_at

    def press(self, key: str) -> None:
        self.calls.append(("press", key))

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


def field(node: int | None = 3) -> Locate:
    return Locate(prompt="Username", rect=Rect(x=100, y=40, width=200, height=20), node=node)


def run_input(device: Web, mode: str = "replace", node: int | None = 3) -> list[dict]:
    acted: list[dict] = []
    ctx = ActionContext(device, lambda text: text.replace("${PW}", "s3cret"), acted=acted)
    Input(value="${PW}", locate=field(node), mode=mode).run(ctx)
    return acted


def press_on(device: Web, node: int | None = 3) -> list[dict]:
    acted: list[dict] = []
    KeyboardPress(keyName="Enter", locate=field(node)).run(
        ActionContext(device, lambda t: t, acted=acted))
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


def test_a_key_on_a_reachable_field_focuses_it_without_a_tap():
    web = Web(fill_at=True)
    assert press_on(web) == [{"kind": "tap", "points": [[200, 50]]}]
    assert web.calls == [("focus_at", 200, 50, 3), ("press", "Enter")]
    web = Web(fill_at=None)         # not so: tapped, as before
    assert press_on(web) == [{"kind": "tap", "points": [[200, 50]]}]
    assert web.calls == [("focus_at", 200, 50, 3), ("tap", 200, 50), ("press", "Enter")]


def test_a_key_on_a_covered_element_fails_and_presses_nothing():
    web = Web(fill_at=True, cover='<div id="cookie-banner">')
    with pytest.raises(StepFailed, match='"Username" is covered by <div id="cookie-banner">: '
                                         'a key press there would hit that'):
        press_on(web)
    assert web.calls == []
