"""UI-TARS replies farm read as unreadable (a retry, then a model error) and now reads:
"Thought: … Action: click(…)" on one line, and a point or box written without quotes
(start_box=(197,525), start_box=[1,2,3,4])."""

from __future__ import annotations

import pytest

from farm.llm.plan import ReplyParseError, parse_plan


def taps(reply: str) -> list:
    return [a.params["locate"]["bbox"] for a in parse_plan(reply, "uitars").actions]


def test_thought_and_action_on_one_line():
    plan = parse_plan("Thought: the login button. Action: click(start_box='(197,525)')", "uitars")
    assert plan.thought == "the login button."
    assert [a.params["locate"]["bbox"] for a in plan.actions] == [[197, 525]]


@pytest.mark.parametrize("reply, box", [
    ("Thought: t\nAction: click(start_box=(197,525))", [197, 525]),
    ("Thought: t\nAction: click(start_box=[10,20,30,40])", [10, 20, 30, 40]),
    ("Action: long_press(start_box=(5, 6))", [5, 6]),
])
def test_an_unquoted_point_or_box(reply, box):
    assert parse_plan(reply, "uitars").actions[0].params["locate"]["bbox"] == box


def test_an_unquoted_drag():
    action = parse_plan("Action: drag(start_box=(1,2), end_box=(3,4))", "uitars").actions[0]
    assert action.params["from"]["bbox"] == [1, 2] and action.params["to"]["bbox"] == [3, 4]


def test_a_quoted_value_is_still_the_value():
    action = parse_plan("Action: type(content='x=(1,2)')", "uitars").actions[0]
    assert action.params["value"] == "x=(1,2)"


def test_an_action_word_in_the_thought_is_not_the_action():
    plan = parse_plan("Thought: my next Action: is unclear\nAction: click(start_box='(1,2)')",
                      "uitars")
    assert taps("Thought: my next Action: is unclear\nAction: click(start_box='(1,2)')") == [
        [1, 2]] and plan.thought == "my next Action: is unclear"


def test_a_finish_followed_by_text_on_one_line_is_still_unreadable():
    with pytest.raises(ReplyParseError):
        parse_plan("Thought: I think. Action: finished(content='x') no wait", "uitars")
