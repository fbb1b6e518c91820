"""Replies whose verdict a parser used to get wrong: a finish (a pass) read from text that only
quotes one, and a failure read as a success.

* XML: a tag quoted inside <thought> (or an Input value) is not the answer: "I will answer
  <complete success="true"> once the cart shows 1" then a Tap is a Tap, not a finished task;
* XML: <complete success=false> (no quotes), "no", "0" are failures; a value that is neither
  true nor false is unreadable (one retry), never a pass;
* AutoGLM with no <think>/<answer> tags: prose quoting finish(message="…") before the real
  do(...) is passed over, and a finish(...) followed by more text is never read as a finish.
"""

from __future__ import annotations

import pytest

from farm.llm.plan import ReplyParseError, parse_plan

TAP = ('<action-type>Tap</action-type>'
       '<action-param-json>{"locate": {"prompt": "Buy"}}</action-param-json>')


@pytest.mark.parametrize("reply", [
    '<thought>Once the cart shows 1 I will answer <complete success="true">done</complete>.'
    '</thought>' + TAP,
    '<thought>not yet: <complete success="true"></thought>' + TAP,
    '<thought>t</thought><log>then <complete>done</complete></log>' + TAP,
    '<planning>I must not write <error>x</error> yet</planning>' + TAP,
])
def test_a_tag_quoted_in_the_thought_is_not_the_answer(reply):
    plan = parse_plan(reply, "xml")
    assert not plan.complete and not plan.error
    assert [a.type for a in plan.actions] == ["Tap"]


def test_a_tag_inside_an_input_value_is_typed_not_obeyed():
    plan = parse_plan('<thought>t</thought><action-type>Input</action-type><action-param-json>'
                      '{"value": "<complete success=\\"true\\">", "locate": {"prompt": "Note"}}'
                      '</action-param-json>', "xml")
    assert not plan.complete
    assert plan.actions[0].params["value"] == '<complete success="true">'


@pytest.mark.parametrize("attr", ['success=false', 'success="False"', "success='no'",
                                  'success="0"', 'success = "false"'])
def test_every_spelling_of_false_is_a_failure(attr):
    plan = parse_plan(f"<thought>t</thought><complete {attr}>no button</complete>", "xml")
    assert plan.complete and plan.success is False and plan.message == "no button"


@pytest.mark.parametrize("attr", ["", ' success="true"', " success=TRUE", ' success="yes"'])
def test_true_or_no_attribute_is_a_success(attr):
    plan = parse_plan(f"<complete{attr}>done</complete>", "xml")
    assert plan.complete and plan.success is True


def test_a_success_that_is_neither_true_nor_false_is_unreadable():
    with pytest.raises(ReplyParseError, match='success="partly"'):
        parse_plan('<complete success="partly">half</complete>', "xml")


def test_the_unreadable_reply_is_quoted_as_the_model_wrote_it():
    with pytest.raises(ReplyParseError) as got:
        parse_plan("<thought>just thinking</thought>", "xml")
    assert "just thinking" in str(got.value)


def test_json_cut_short_says_so():
    with pytest.raises(ReplyParseError, match="for Tap is not a JSON object"):
        parse_plan('<action-type>Tap</action-type><action-param-json>{"locate": '
                   '{"prompt": "", "bbox": [1, 2, 3, 4]}</action-param-json>', "xml")


@pytest.mark.parametrize("reply", [
    'I should tap Buy. finish(message="done") comes later. do(action="Tap", element=[500,120])',
    'I should tap Buy; finish(message="done") comes later.\n'
    'do(action="Tap", element=[500,120])\nThat is my answer.',
    '<think>later: finish(message="x")</think><answer>do(action="Tap", element=[500,120])'
    '</answer>',
])
def test_autoglm_prose_quoting_finish_is_not_a_finish(reply):
    plan = parse_plan(reply, "autoglm")
    assert not plan.complete
    assert plan.actions[0].type == "Tap"
    assert plan.actions[0].params["locate"]["bbox"] == [500, 120]


def test_autoglm_finish_followed_by_text_is_unreadable_not_a_pass():
    with pytest.raises(ReplyParseError, match="text follows finish"):
        parse_plan('I will finish(message="bought") once the cart shows 1', "autoglm")


@pytest.mark.parametrize("reply, message", [
    ('All done. finish(message="bought")', "bought"),
    ('<answer>finish(message="I did do(action=\\"Tap\\") twice")</answer>',
     'I did do(action=\\"Tap\\") twice'),
    ('finish(message="ok"', "ok"),
])
def test_autoglm_a_real_finish_still_finishes(reply, message):
    plan = parse_plan(reply, "autoglm")
    assert plan.complete and plan.success and plan.message == message


@pytest.mark.parametrize("value", ['finish(message="x")', 'say "finish(message=" now'])
def test_autoglm_type_text_that_quotes_finish_is_typed(value):
    plan = parse_plan(f'do(action="Type", text="{value}")', "autoglm")
    assert not plan.complete and plan.actions[0].params["value"] == value


@pytest.mark.parametrize("reply", ['<think>done soon: finish(message="x")</think>',
                                   "<think>thinking</think><answer></answer>"])
def test_autoglm_a_thought_alone_is_unreadable_and_says_so(reply):
    with pytest.raises(ReplyParseError, match="has its <think> but no do"):
        parse_plan(reply, "autoglm")


@pytest.mark.parametrize("duration, ms", [("2 seconds", 2000), ("500 ms", 500), ("3", 3000),
                                          ("1 minute", 60_000), ("1.5s", 1500)])
def test_autoglm_wait_reads_its_unit(duration, ms):
    """("500 ms" waited 500 seconds, "1 minute" one second.)"""
    plan = parse_plan(f'<answer>do(action="Wait", duration="{duration}")</answer>', "autoglm")
    assert plan.actions[0].params == {"timeMs": ms}
