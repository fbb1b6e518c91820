"""A target found only by an element's id says so on the step, and what an element shows
always wins over another element's id.

`aiTap: Greet` on a page with `<button id="greet">Forgot password?</button>` tapped "Forgot
password?" (text tier, no note): the step passed and only the next one failed, with nothing
in the report saying the tap went by an id to a button reading something else."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocatorChain, TextMatchTier
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError


def node(i: int, role: str, y: int, **kw) -> UINode:
    return UINode(id=i, role=role, rect=Rect(x=10, y=y, width=200, height=30), **kw)


def locate(prompt: str, *nodes: UINode, source: str = "dom", **hints: object):
    device = FakeDevice(UITree(source=source, nodes=list(nodes)))
    return LocatorChain([TextMatchTier()]).locate(prompt, device, **hints)


GREET = node(0, "button", 10, text="Forgot password?", resource_id="greet", clickable=True)
HELLO = node(1, "button", 50, text="Say hello", resource_id="b1", clickable=True)


def test_a_target_found_by_its_id_alone_says_what_the_element_reads() -> None:
    hit = locate("Greet", GREET, HELLO)
    assert hit.rect == GREET.rect and hit.tier == "text"
    assert hit.notes == ('matched by its id "greet"; it reads "Forgot password?"',)


def test_an_id_on_an_element_that_shows_no_text_is_said_too() -> None:
    close = node(2, "android.widget.ImageButton", 90, resource_id="close_button",
                 clickable=True)
    hit = locate("close_button", GREET, close, source="uiautomator")
    assert hit.rect == close.rect
    assert hit.notes == ('matched by its id "close_button"; it shows no text',)


def test_what_an_element_shows_wins_over_another_elements_id() -> None:
    """"Login" names the button reading "Login with Google" (whole words), not the one whose
    id is "login" and that reads "Sign up"; before, the id's exact match won."""
    signup = node(0, "button", 10, text="Sign up", resource_id="login", clickable=True)
    google = node(1, "button", 50, text="Login with Google", clickable=True)
    hit = locate("Login", signup, google)
    assert hit.rect == google.rect and hit.notes == ()
    exact = node(1, "button", 50, text="Login", clickable=True)
    hit = locate("Login", signup, exact)
    assert hit.rect == exact.rect and hit.notes == ()     # before: ambiguous, 2 elements


def test_an_id_that_agrees_with_the_text_says_nothing() -> None:
    hit = locate("Say hello", GREET, node(1, "button", 50, text="Say hello",
                                          resource_id="say hello", clickable=True))
    assert hit.notes == ()


def test_a_phone_field_named_by_its_label_and_id_is_still_typed_into() -> None:
    """Android shows a field's label as its own text node: the field carrying the label's
    words as its resource-id is the one to type into, as before, with no note."""
    label = node(0, "android.widget.TextView", 10, text="Username")
    field = node(1, "android.widget.EditText", 50, resource_id="username", editable=True,
                 clickable=True)
    hit = locate("Username", label, field, source="uiautomator", editable=True)
    assert hit.rect == field.rect and hit.notes == ()


def test_two_elements_with_that_id_are_ambiguous_not_a_guess() -> None:
    twin = node(1, "button", 50, text="Hello", resource_id="greet", clickable=True)
    with pytest.raises(LocateError, match='"Greet" is ambiguous: 2 elements match'):
        locate("Greet", GREET, twin)


def test_an_id_on_the_text_inside_a_button_names_that_id_not_the_buttons() -> None:
    button = node(0, "button", 10, resource_id="b3", clickable=True)
    span = UINode(id=1, parent=0, role="span", rect=Rect(x=12, y=12, width=100, height=20),
                  text="Forgot password?", resource_id="greet")
    hit = locate("Greet", button, span)
    assert hit.rect == button.rect
    assert hit.notes == ('matched by its id "Greet"; it reads "Forgot password?"',)
