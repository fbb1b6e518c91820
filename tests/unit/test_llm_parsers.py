"""Reply parsers: tolerant of noise, never a silent finish on garbage."""

import json

import pytest
from hypothesis import given, strategies as st

from farm.llm.plan import ReplyParseError, parse_plan

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)


@given(text, st.sampled_from(["xml", "autoglm", "uitars"]))
def test_garbage_is_an_error_or_a_plan_never_a_crash(junk, grammar):
    try:
        plan = parse_plan(junk, grammar)
    except ReplyParseError:
        return
    # if something parsed, it is because the text really contained a call or a tag
    assert plan.actions or plan.complete or plan.error or "do(" in junk or "(" in junk


@given(st.text(alphabet="abc xyz,.!?", max_size=40), st.text(alphabet="abcdef ", max_size=30),
       st.lists(st.integers(0, 2000), min_size=4, max_size=4), st.booleans())
def test_xml_action_survives_prose_and_fences(prose, prompt, bbox, fenced):
    params = json.dumps({"locate": {"prompt": prompt, "bbox": bbox}})
    if fenced:
        params = f"```json\n{params}\n```"
    reply = (f"{prose}\n<thought>{prose}</thought>\n<action-type>Tap</action-type>\n"
             f"<action-param-json>{params}</action-param-json>\n{prose}")
    plan = parse_plan(reply, "xml")
    assert plan.actions[0].type == "Tap" and plan.actions[0].params["locate"]["bbox"] == bbox
    assert not plan.complete


def test_xml_complete_false_and_missing_closing_tags():
    plan = parse_plan('<thought>no cart<complete success="false">item gone', "xml")
    assert plan.complete and not plan.success and plan.message == "item gone"
    assert plan.thought == "no cart"


def test_xml_broken_json_is_a_parse_error():
    with pytest.raises(ReplyParseError, match="not valid JSON"):
        parse_plan("<action-type>Tap</action-type><action-param-json>{locate: </action-param-json>",
                   "xml")


@given(st.text(alphabet="abc \"'xyz", max_size=30))
def test_autoglm_type_keeps_inner_quotes(value):
    plan = parse_plan(f'<think>x</think><answer>do(action="Type", text="{value}")</answer>',
                      "autoglm")
    assert plan.actions[0].params["value"] == value


def test_autoglm_traps():
    plan = parse_plan('<think>later I will finish(message="x")</think>'
                      '<answer>do(action="Tap", element=[500,120])</answer>', "autoglm")
    assert not plan.complete and plan.actions[0].params["locate"]["bbox"] == [500, 120]
    assert parse_plan('finish(message="ok")</answer>', "autoglm").complete
    with pytest.raises(ReplyParseError):
        parse_plan("<think>hmm</think><answer>I am not sure</answer>", "autoglm")


@given(st.integers(0, 1000), st.integers(0, 1000),
       st.sampled_from(["Action: ", "Action：", "Reflection: ok\nAction: ", ""]),
       st.sampled_from(["'({x},{y})'", "'<|box_start|>({x},{y})<|box_end|>'",
                        "'[{x},{y},{x},{y}]'"]))
def test_uitars_click_forms(x, y, prefix, box):
    key = "start_box"
    reply = f"Thought: go\n{prefix}click({key}={box.format(x=x, y=y)})"
    plan = parse_plan(reply, "uitars")
    assert plan.actions[0].type == "Tap"
    assert plan.actions[0].params["locate"]["bbox"][:2] == [x, y]


def test_uitars_point_tag_type_enter_and_several_actions():
    plan = parse_plan("Thought: t\nAction: click(point='<point>10 20</point>')\n\n"
                      "type(content='mug\\n')", "uitars")
    assert [a.type for a in plan.actions] == ["Tap", "Input", "KeyboardPress"]
    assert plan.actions[1].params["value"] == "mug"
    assert parse_plan("Thought: done\nAction: finished(content='ok')", "uitars").message == "ok"


def test_tags_with_attributes_and_sub_goals_with_text_still_read():
    """What the linear-time patterns must still accept (they stop at the next tag instead of
    rescanning a garbage reply for every unclosed one)."""
    plan = parse_plan('<thought lang="en">a < b</thought><update-plan-content>'
                      '<sub-goal index="1" status="pending">price < 5 & qty > 2</sub-goal>'
                      '<sub-goal index="2">open <b>cart</b>'            # unclosed: dropped
                      '<sub-goal index="3">pay</sub-goal></update-plan-content>'
                      '<complete success="true">ok</complete>', "xml")
    assert plan.thought == "a < b"
    assert [(g.index, g.text) for g in plan.sub_goals] == [(1, "price < 5 & qty > 2"),
                                                           (3, "pay")]


def test_autoglm_reads_the_first_think_block_and_the_first_argument_of_a_name():
    plan = parse_plan('<think>one</think><think>two</think>'
                      '<answer>do(action="Type", text="a "quoted" word", text="b")</answer>',
                      "autoglm")
    assert plan.thought == "one" and plan.actions[0].params["value"] == 'a "quoted" word'
    unclosed = parse_plan('<think>never closed do(action="Back")', "autoglm")
    assert unclosed.actions[0].type == "Back"
