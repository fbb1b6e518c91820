"""The closest text a failed text check names: of texts difflib rates about as close, the
one sharing the expected text's longest start ("confirm=false" for "confirm=true", not the
"confirm" button, which difflib rates a little higher)."""

from __future__ import annotations

from farm.agent.screen_hint import closest, hint


def test_the_status_line_not_the_button_is_closest_to_an_expected_value_web49() -> None:
    screen = "Ask confirm\nconfirm\nconfirm=false"
    assert closest("confirm=true", screen) == "confirm=false"
    assert hint("confirm=true", "confirm\nconfirm=false", None) == \
        '; the closest text on it is "confirm=false"'


def test_closeness_still_decides_among_texts_far_apart_web49() -> None:
    # a typo: the one close text, whatever its start
    assert closest("Welcome back", "Wlecome back\nWe are closed") == "Wlecome back"
    # a number that differs
    assert closest("Total: 12.50", "Total: 12.05\nTotals") == "Total: 12.05"
    # nothing close: nothing said
    assert closest("confirm=true", "Hello world") is None
