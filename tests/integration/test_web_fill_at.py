"""aiInput on a text field the page's last read found reachable fills it as Playwright's fill
does: the focus and the text in one round trip, no mouse (the page sees no click on it),
input events as typing through an input method gives; aiKeyboardPress on one focuses it the
same way, and the key goes to it. After another action the read is old: the field is tapped
first, as before. Real Chromium, the demo shop."""

from __future__ import annotations

from typing import Any

import pytest

from farm.agent.actions import ActionContext, Input, KeyboardPress, Locate

pytestmark = pytest.mark.integration

COUNT = ("window.__seen = {down: 0, input: 0};"
         "addEventListener('mousedown', () => window.__seen.down++, true);"
         "addEventListener('input', () => window.__seen.input++, true); 1")
# the login form's submit kept on the page (no navigation), counted with the keys it got
SUBMITS = ("window.__seen.keys = 0; window.__seen.submitted = 0;"
           "addEventListener('keydown', () => window.__seen.keys++, true);"
           "addEventListener('submit', (e) => { e.preventDefault(); e.stopImmediatePropagation();"
           " window.__seen.submitted++; }, true); 1")


def field(device: Any, label: str) -> Any:
    tree = device.hierarchy()
    return next(n for n in tree.nodes if n.editable and n.label == label)


def value(device: Any, field_id: str) -> str:
    return device.run_script(f"document.getElementById('{field_id}').value", 5)


def type_into(device: Any, label: str, text: str, read: bool = True) -> None:
    node = field(device, label) if read else None
    if not read:            # the tree read before an action: old by the time of the input
        node = field(device, label)
        device.run_script("document.body.dataset.touched = '1'", 5)
    loc = Locate(prompt=label, rect=node.rect, node=node.id, editable=True)
    Input(value=text, locate=loc).run(ActionContext(device, lambda t: t))


def test_a_reachable_field_is_filled_with_no_click_on_it(page: Any) -> None:
    page.run_script(COUNT, 5)
    type_into(page, "Username", "demo user")
    assert page.run_script("window.__seen", 5) == {"down": 0, "input": 1}
    assert value(page, "username") == "demo user"
    type_into(page, "Username", "")                  # emptied the same way
    assert value(page, "username") == ""


def test_after_another_action_the_field_is_tapped_first(page: Any) -> None:
    page.run_script(COUNT, 5)
    type_into(page, "Password", "farm-demo-pass", read=False)
    assert page.run_script("window.__seen", 5) == {"down": 1, "input": 1}
    assert value(page, "password") == "farm-demo-pass"


def test_a_key_on_a_reachable_field_goes_to_it_with_no_click(page: Any) -> None:
    page.run_script(COUNT, 5)
    page.run_script(SUBMITS, 5)
    type_into(page, "Password", "farm-demo-pass")
    node = field(page, "Password")
    loc = Locate(prompt="Password", rect=node.rect, node=node.id)
    KeyboardPress(keyName="Enter", locate=loc).run(ActionContext(page, lambda t: t))
    assert page.run_script("window.__seen", 5) == {"down": 0, "input": 1, "keys": 1,
                                                   "submitted": 1}
