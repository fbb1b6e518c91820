"""A failed text check says what the screen shows instead: an alert on it, and its text closest
to the expected one; nothing when nothing is close (no noise in a CI log)."""

from __future__ import annotations

from farm.agent.screen_hint import closest, hint
from farm.devices.base import Rect, UINode, UITree

BOX = Rect(x=0, y=0, width=10, height=10)


def _tree(*nodes: tuple[str, str, str]) -> UITree:
    return UITree(source="dom", nodes=[UINode(id=i, role=role, text=text, resource_id=rid,
                                              rect=BOX)
                                       for i, (role, text, rid) in enumerate(nodes)])


def test_a_number_that_differs_is_the_closest_text():
    screen = "Farm Shop\nProducts  Cart (0)  Log out\nBlue Mug $12.00"
    assert closest("Cart (1)", screen) == "Cart (0)"


def test_a_changed_name_in_a_line_is_found_inside_the_line():
    screen = "Farm Shop\nWelcome back, Ada. You have 3 orders.\nLog out"
    assert closest("Welcome back, demo", screen) == "Welcome back, Ada."


def test_nothing_close_and_part_of_the_expected_text_say_nothing():
    screen = "Farm Shop\nProducts\nWelcome\nLog out"
    assert closest("Order confirmed", screen) is None
    assert closest("Welcome back", screen) is None      # "Welcome": part of it, no other text
    assert hint("Order confirmed", screen, _tree(("p", "Products", ""))) == ""


def test_an_alert_is_named_on_web_ios_and_android():
    web = _tree(("p", "Sign in", ""), ("alert", "Invalid username   or password", ""))
    assert hint("Welcome back, demo", "Sign in\nInvalid username or password", web) == \
        '; the screen shows "Invalid username or password" (an alert)'
    ios = _tree(("XCUIElementTypeAlert", "No connection", ""))
    assert '"No connection" (an alert)' in hint("Saved", "No connection", ios)
    android = _tree(("android.widget.TextView", "Card declined", "android:id/message"))
    assert '"Card declined" (an alert)' in hint("Paid", "Card declined", android)


def test_an_alert_and_a_close_text_are_both_said_a_long_one_cut():
    tree = _tree(("alert", "x" * 300, ""))
    said = hint("Cart (1)", "Cart (0)\n" + "x" * 300, tree)
    assert said.startswith('; the screen shows "' + "x" * 119 + '…" (an alert)')
    assert said.endswith('; the closest text on it is "Cart (0)"')


def test_a_word_that_only_starts_the_expected_one_is_offered_not_two_buttons_joined():
    """Two buttons side by side are one line of the screen's text: the hint names the button
    ("Compute", the start of "Computed"), not a made-up "job Compute" across the two."""
    screen = "Farm jobs\nStart job Compute\nstatus: idle"
    assert closest("Computed", screen) == "Compute"


def test_a_close_text_that_differs_only_inside_a_secret_is_not_quoted_as_the_same_text():
    """The page greets another password than the case's: quoting both masked would read
    'expected "Hello, *** pw=0" … the closest text on it is "Hello, *** pw=0"'."""
    mask = lambda text: text.replace("s3cret-A", "***").replace("s3cret-B", "***")  # noqa: E731
    said = hint("Hello, s3cret-A pw=0", "Menu\nHello, s3cret-B pw=0", None, mask)
    assert said == "; the closest text on it differs from it only inside a hidden secret"
    assert hint("Hello, s3cret-A pw=1", "Hello, s3cret-B pw=0", None, mask) == \
        '; the closest text on it is "Hello, *** pw=0"'
