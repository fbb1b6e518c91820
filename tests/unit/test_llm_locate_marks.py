"""A stand-alone locate answered in the model's own marks instead of the JSON asked for (UI-TARS
answers with its action, doubao with <bbox>, AutoGLM with do(…, element=[x,y])): the one box
in them is the answer; none, several or a wrong count of numbers stay unreadable (one retry,
then a model error) — nothing guessed."""

from __future__ import annotations

import pytest

from farm.agent.model_tiers import _bbox_reply
from farm.llm.plan import ReplyParseError


@pytest.mark.parametrize("reply, box", [
    ("Thought: the Go button.\nAction: click(start_box='(500,437)')", [500, 437]),
    ("click(start_box='<|box_start|>(500,437)<|box_end|>')", [500, 437]),
    ("click(start_box='[400,375,600,500]')", [400, 375, 600, 500]),
    ("click(point='<point>500 437</point>')", [500, 437]),
    ("The Go button: <bbox>400 375 600 500</bbox>", [400, 375, 600, 500]),
    ('{"bbox": [400, 375, 600, 500]}', [400, 375, 600, 500]),
    ('<think>option [1] or [2]: the Go one</think><answer>do(action="Tap", element=[500,437])'
     '</answer>', [500, 437]),
])
def test_one_box_in_the_models_own_marks_is_read(reply, box):
    assert _bbox_reply(reply) == box


@pytest.mark.parametrize("reply", [
    "<point>1 2</point> or maybe <point>3 4</point>",      # two: which?
    "<bbox>1 2 3</bbox>",
    "click(start_box='(500)')",
    "It is the blue button at the top.",
])
def test_no_single_box_is_unreadable(reply):
    with pytest.raises(ReplyParseError):
        _bbox_reply(reply)


def test_not_found_stays_not_found_with_the_models_reason():
    assert _bbox_reply('{"bbox": [], "error": "no Go button"}') == "no Go button"
    assert _bbox_reply('{"bbox": []}') == ""


@pytest.mark.parametrize("reply", ['{"bbox": ["a", "b", "c", "d"]}', '{"bbox": [1, 2, null, 4]}',
                                   '{"bbox": [1, 2, NaN, 4]}', '{"bbox": [true, 2]}'])
def test_a_box_of_what_is_not_numbers_is_unreadable(reply):
    """(They were an internal error: "could not convert string to float: 'a'".)"""
    with pytest.raises(ReplyParseError, match="bbox must be 2 or 4 numbers, got"):
        _bbox_reply(reply)


def test_numbers_in_quotes_are_numbers():
    assert _bbox_reply('{"bbox": ["400", "300", "600", "400"]}') == [400, 300, 600, 400]
    assert _bbox_reply('{"bbox": "400, 300, 600, 400"}') == [400, 300, 600, 400]
