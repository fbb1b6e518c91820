"""Replies real models write that farm read wrongly (REFERENCE.md §1-§2): each one here was
read as a different action than the model wrote, or as a finish it did not mean."""

from __future__ import annotations

import pytest

from farm.llm.plan import ReplyParseError, parse_plan


def steps(reply: str, grammar: str = "uitars") -> list[tuple[str, dict]]:
    return [(a.type, a.params) for a in parse_plan(reply, grammar).actions]


def at(*nums: float) -> dict:
    return {"prompt": "", "bbox": [float(n) for n in nums]}


# ---- UI-TARS: several calls, each on its own "Action:" line -----------------------------------
@pytest.mark.parametrize("reply, want", [
    # read as one click on the box [100,200,800,900]: a tap between the two points
    ("Thought: both boxes\nAction: click(start_box='(100,200)')\n"
     "Action: click(start_box='(800,900)')",
     [("Tap", {"locate": at(100, 200)}), ("Tap", {"locate": at(800, 900)})]),
    # read as typing "abc')\nhotkey(key='enter" into the field
    ("Thought: search\nAction: type(content='abc')\nAction：hotkey(key='enter')",
     [("Input", {"value": "abc", "mode": "typeOnly"}), ("KeyboardPress", {"keyName": "Enter"})]),
    # the click's point was added to the drag's end
    ("Thought: x\nAction: drag(start_box='(1,2)', end_box='(3,4)')\n"
     "Action: click(start_box='(5,6)')",
     [("DragAndDrop", {"from": at(1, 2), "to": at(3, 4)}), ("Tap", {"locate": at(5, 6)})]),
])
def test_calls_on_their_own_action_lines_are_each_run(reply, want):
    assert steps(reply) == want


def test_a_finish_on_its_own_action_line_after_a_click_still_finishes():
    plan = parse_plan("Thought: last tap\nAction: click(start_box='(1,2)')\n"
                      "Action: finished(content='ok')", "uitars")
    assert [a.type for a in plan.actions] == ["Tap"]
    assert plan.complete and plan.success and plan.message == "ok"


# ---- UI-TARS: content='…' is written with Python escapes (\', \", \n) -------------------------
@pytest.mark.parametrize("content, typed, enter", [
    (r"say \"hi\"", 'say "hi"', False),               # typed as: say \"hi\"
    (r"line one\nline two", "line one\nline two", False),   # typed with a backslash and an n
    (r"it\'s\n", "it's", True),
    (r"C:\\temp", "C:\\temp", False),                 # an escaped backslash is one backslash
])
def test_type_content_escapes_are_what_is_typed(content, typed, enter):
    want = [("Input", {"value": typed, "mode": "typeOnly"})]
    if enter:
        want.append(("KeyboardPress", {"keyName": "Enter"}))
    assert steps(f"Thought: fill it\nAction: type(content='{content}')") == want


def test_a_finish_message_is_shown_unescaped():
    plan = parse_plan("Thought: done\nAction: finished(content='it\\'s \\\"paid\\\"')", "uitars")
    assert plan.message == 'it\'s "paid"'


# ---- AutoGLM: one answer, two calls -----------------------------------------------------------
@pytest.mark.parametrize("answer", [
    'do(action="Tap", element=[500,880])\nfinish(message="Submitted the form")',
    'do(action="Type", text="done")  finish(message="typed it")',
])
def test_an_action_then_a_finish_is_unreadable_not_a_finish(answer):
    """Read as the finish alone: the case passed without the tap that submits the form."""
    with pytest.raises(ReplyParseError, match="one call"):
        parse_plan(f"<think>last step</think><answer>{answer}</answer>", "autoglm")


@pytest.mark.parametrize("reply", [
    '<think>do(action="Back") would not help</think><answer>finish(message="ok")</answer>',
    '<answer>finish(message="I pressed do(action=\\"Back\\") twice")</answer>',
])
def test_a_do_quoted_outside_the_answer_s_calls_leaves_the_finish(reply):
    plan = parse_plan(reply, "autoglm")
    assert plan.complete and plan.success and not plan.actions


# ---- read right already; not covered elsewhere --------------------------------------------------
def test_planning_is_read_as_the_thought_and_its_quoted_tags_are_not_obeyed():
    plan = parse_plan('<planning>tap login, then <complete success="true">done</complete>'
                      '</planning><action-type>Tap</action-type><action-param-json>'
                      '{"locate": {"prompt": "Login", "bbox": [1, 2, 3, 4]}}', "xml")
    assert plan.thought.startswith("tap login") and not plan.complete
    assert [a.type for a in plan.actions] == ["Tap"]


@pytest.mark.parametrize("family, answer, rect", [
    # gemini answers [y, x] on 0-1000: y 250 → 250·799/1000 = 199.75 → 200, x 1000 → 1279;
    # the point's box (±4 px) is clipped at the right edge
    ("gemini", [250, 1000], (1275, 196, 5, 9)),
    ("gemini", [0, 0, 1000, 1000], (0, 0, 1280, 800)),
    # qwen2.5-vl answers pixels of its image padded to ×28: 1279, 799 is the last real pixel
    ("qwen2.5-vl", [1279, 799], (1275, 795, 5, 5)),
    # 500·1279/1000 = 639.5 → 640; y 0 is the top row
    ("qwen3-vl", [500, 0], (636, 0, 9, 5)),
])
def test_edge_values_land_on_the_screen_edge(family, answer, rect):
    from farm.llm.families import FAMILIES, to_rect
    got = to_rect(answer, FAMILIES[family], (1280, 800))
    assert (got.x, got.y, got.width, got.height) == rect


def test_a_qwen25_point_in_the_padding_is_no_location():
    """1280 is padding added to reach 1288 (= 46·28), not a pixel of the screen."""
    from farm.llm.families import FAMILIES, OffImage, to_rect
    with pytest.raises(OffImage, match="outside the 1280×800 screen"):
        to_rect([1283, 400], FAMILIES["qwen2.5-vl"], (1280, 800))
