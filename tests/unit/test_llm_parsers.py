"""Reply parsers: tolerant of noise, never a silent finish on garbage.

Two properties for each grammar (XML, AutoGLM, UI-TARS):

* fuzz: any text (noise, the grammar's own fragments in any order, calls and tags with right
  and wrong names and arguments) either raises ReplyParseError or gives a well-formed Plan:
  something to do (an action farm knows, with readable boxes) or a finish that the text really
  wrote -- never another exception, never an empty plan, never a finish made up from garbage;
* round trip: a reply written for a random valid plan parses back to exactly that plan.
"""

import json
import math
import re

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from farm.agent.actions import registry
from farm.llm.plan import Plan, PlannedAction, ReplyParseError, SubGoal, parse_plan

GRAMMARS = ["xml", "autoglm", "uitars"]
# no per-example deadline and no "too slow" check: a loaded machine must not fail these
patient = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)

# ---- fuzz ------------------------------------------------------------------------------------
FRAGMENTS = {
    "xml": ["<thought>", "</thought>", "<log>", "</log>", "<memory>", "</memory>",
            "<action-type>", "</action-type>", "Tap", "Input", "<action-param-json>",
            "</action-param-json>", "{", "}", "[", "]", '"locate"', '"prompt"', '"bbox"', ":",
            ",", "1", "2.5", '"x"', "null", "```json\n", "```", "<complete", ' success="false"',
            ' success="true"', ">", "</complete>", "<error>", "</error>",
            "<update-plan-content>", "</update-plan-content>", '<sub-goal index="1">',
            "</sub-goal>", "<mark-sub-goal-done>", "</mark-sub-goal-done>", "\n", " ", "<", "/"],
    "autoglm": ["<think>", "</think>", "<answer>", "</answer>", "do(", "finish(", "action=",
                '"Tap"', '"Type"', '"Swipe"', '"Back"', '"Wait"', '"Long Press"', '"Note"',
                '"Take_over"', '"Fly"', "element=", "start=", "end=", "text=", "message=",
                "duration=", "app=", "[", "]", "500", "120", "-3", "1.5", ",", ", ", ")", '"',
                "'", "\n", " "],
    "uitars": ["Thought:", "Reflection:", "Action:", "Action：", "click(", "left_double(",
               "drag(", "type(", "hotkey(", "scroll(", "finished(", "call_user(", "wait(",
               "press_home(", "open_app(", "fly(", "start_box=", "end_box=", "point=",
               "content=", "key=", "direction=", "app_name=", "'", '"', "(", ")", "[", "]",
               "<point>", "</point>", "<|box_start|>", "<|box_end|>", "10", "20", "7.5", ",",
               ", ", " ", "\n", "\n\n", "\\n"],
}
# every farm action name the GUI grammars can produce (XML names are checked by the registry)
GUI_ACTIONS = {"Tap", "DoubleClick", "RightClick", "LongPress", "Hover", "DragAndDrop", "Input",
               "KeyboardPress", "Scroll", "Swipe", "Back", "Home", "Launch", "Sleep"}


def replies(grammar):
    """Text that is mostly the grammar's own pieces, in any order, with noise between them."""
    piece = st.one_of(st.sampled_from(FRAGMENTS[grammar]), text.map(lambda s: s[:12]))
    return st.lists(piece, max_size=40).map("".join)


# Near misses: calls and tags in the right order, with names and arguments right or wrong.
noise = st.text(alphabet="ab (),=[]'\"\n<>/1", max_size=8)
CALLS = {
    "xml": (["Tap", "Input", "Fly", "", " ", "`Tap`", "tap me"],
            ["locate", "value", "bbox", "prompt"],
            ['"x"', "[1, 2]", "[1,", "{}", "null", '{"prompt": "a", "bbox": [1, 2, 3, 4]}']),
    "autoglm": (["Tap", "Click", "Type", "Swipe", "Back", "Wait", "Launch", "Note", "Call_API",
                 "Take_over", "Long Press", "Fly", "", "tap"],
                ["action", "element", "text", "start", "end", "message", "app", "duration"],
                ["[1,2]", "[1]", "[1,2,3,4]", "[a,b]", '"x"', '"2 seconds"', "3", '""']),
    "uitars": (["click", "left_double", "drag", "type", "hotkey", "scroll", "finished",
                "call_user", "open_app", "wait", "press_back", "fly", "Click", ""],
               ["start_box", "end_box", "point", "content", "key", "direction", "app_name",
                "start_point", "end_point"],
               ["'(1,2)'", "'[1,2,3,4]'", "'<point>1 2</point>'", "'(1)'", "'x'", "'x\\n'",
                "'ctrl+c'", "''", "(1,2)"]),
}


@st.composite
def near_misses(draw, grammar):
    names, keys, values = CALLS[grammar]
    arg = st.tuples(st.sampled_from(keys), st.sampled_from(values)).map("=".join)
    args = ", ".join(draw(st.lists(arg, max_size=4)))
    name = draw(st.sampled_from(names))
    if grammar == "xml":
        body = (f"<action-type>{name}</action-type>"
                f"<action-param-json>{{{args.replace('=', ': ')}}}</action-param-json>")
        tail = draw(st.sampled_from(["", '<complete success="false">x</complete>',
                                     "<error>e</error>", "<complete>"]))
        return draw(noise) + f"<thought>{draw(noise)}</thought>" + body + tail
    if grammar == "autoglm":
        func = draw(st.sampled_from(["do", "finish", "Do", "done"]))
        call = f'{func}(action="{name}", {args})' if draw(st.booleans()) else f"{func}({args})"
        wrap = draw(st.sampled_from(["<answer>{}</answer>", "{}", "{}</answer>"]))
        return f"<think>{draw(noise)}</think>" + wrap.format(call + draw(noise))
    calls = [f"{draw(st.sampled_from(names))}({', '.join(draw(st.lists(arg, max_size=3)))})"
             for _ in range(draw(st.integers(1, 3)))]
    sep = draw(st.sampled_from(["\n\n", "\n", " "]))
    return f"Thought: {draw(noise)}\nAction: " + sep.join(calls) + draw(noise)


def boxes_in(params):
    """Every Locate-shaped value ({"bbox": ...}) in an action's params."""
    for value in params.values():
        if isinstance(value, dict) and "bbox" in value:
            yield value


def assert_well_formed(plan, grammar, reply):
    """What the agent loop may rely on in any plan a parser returns."""
    assert isinstance(plan, Plan)
    assert Plan.model_validate_json(plan.model_dump_json()) == plan     # plain, typed data
    low = reply.lower()
    if plan.complete:     # a finish comes from a finish marker, never from garbage
        marker = {"xml": r"<complete", "autoglm": r"\bfinish\s*\(|take.?over",
                  "uitars": r"finished\s*\(|call_user\s*\("}[grammar]
        assert re.search(marker, low), plan
    if grammar == "xml":
        assert plan.actions or plan.complete or plan.error, plan        # never an empty plan
        if plan.actions:
            assert "<action-type" in low and plan.actions[0].type.strip()
            assert isinstance(plan.actions[0].params, dict)
        return
    for action in plan.actions:
        assert action.type in GUI_ACTIONS, action
        for loc in boxes_in(action.params):
            assert len(loc["bbox"]) in (2, 4) and all(map(math.isfinite, loc["bbox"])), action
    if grammar == "autoglm" and not (plan.actions or plan.complete):
        # only AutoGLM's information-only calls leave nothing to do, and the log names them
        assert re.match(r"(note|call[ _]api|interact)\b", plan.log, re.I), plan
    elif grammar == "uitars":
        assert plan.actions or plan.complete, plan


def fuzz(grammar):
    return st.tuples(st.just(grammar), st.one_of(text, replies(grammar), near_misses(grammar),
                                                 near_misses(grammar)))


@settings(patient, max_examples=300)
@given(st.sampled_from(GRAMMARS).flatmap(fuzz))
@example(("autoglm", 'do(action="Fly", element=[1,2])'))      # unknown actions are errors,
@example(("uitars", "Thought: t\nAction: fly(start_box='(1,2)')"))    # not empty plans
@example(("xml", "<thought>just thinking</thought>"))
@example(("autoglm", "I would finish the task now"))           # no call: no finish
def test_garbage_is_an_error_or_a_well_formed_plan_never_a_crash(case):
    grammar, reply = case
    try:
        plan = parse_plan(reply, grammar)
    except ReplyParseError:
        return
    assert_well_formed(plan, grammar, reply)


@pytest.mark.parametrize("grammar", GRAMMARS)
@pytest.mark.parametrize("reply", [
    "<action-type>Tap</action-type><action-param-json>" + "[" * 100_000,
    '<action-type>Tap</action-type><action-param-json>{"locate": ' + "[" * 100_000 + "}",
    '<answer>do(action="Tap", element=[' + "1," * 50_000 + "])</answer>",
    "Action: click(start_box='(" + "(" * 50_000 + "))')",
], ids=["deep-json", "deep-json-in-object", "long-point", "nested-parens"])
def test_pathological_replies_are_parse_errors_not_crashes(grammar, reply):
    """A model can send JSON nested deeper than Python's recursion limit: that is an unreadable
    reply (fed back once, then a model error), not an internal error."""
    try:
        plan = parse_plan(reply, grammar)
    except ReplyParseError:
        return
    assert_well_formed(plan, grammar, reply)


# ---- round trips: a reply written for a random plan reads back as that plan ------------------
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,!?-éü中", max_size=24)
words = WORD.map(str.strip)
coord = st.integers(0, 1000)
point = st.lists(coord, min_size=2, max_size=2)
box = st.lists(coord, min_size=4, max_size=4)


def loc(bbox):
    return {"prompt": "", "bbox": [float(v) for v in bbox]}


# XML: every action name the web registry knows, JSON params of any shape the prompt allows.
xml_params = st.fixed_dictionaries({}, optional={
    "locate": st.fixed_dictionaries({"prompt": words}, optional={"bbox": st.one_of(point, box)}),
    "value": words, "keyName": st.sampled_from(["Enter", "Tab", "Escape"]),
    "direction": st.sampled_from(["up", "down", "left", "right"]),
    "timeMs": st.integers(0, 10_000), "deepLocate": st.booleans(), "url": words})


@st.composite
def xml_plans(draw):
    plan = Plan(thought=draw(words), log=draw(words), memory=draw(words))
    if draw(st.booleans()):
        plan.actions = [PlannedAction(type=draw(st.sampled_from(sorted(registry("web")))),
                                      params=draw(xml_params))]
    else:
        plan.complete, plan.success, plan.message = True, draw(st.booleans()), draw(words)
    if draw(st.booleans()):
        plan.error = draw(words.filter(bool))
    indexes = draw(st.lists(st.integers(1, 30), unique=True, max_size=4))
    plan.sub_goals = [SubGoal(index=i, status=draw(st.sampled_from(["pending", "finished"])),
                              text=draw(words)) for i in indexes]
    plan.done_goals = draw(st.lists(st.integers(1, 30), max_size=3))
    return plan


def write_xml(plan, fenced, prose):
    out = [prose, f"<thought>{plan.thought}</thought>", f"<log>{plan.log}</log>",
           f"<memory>{plan.memory}</memory>"]
    for a in plan.actions:
        params = json.dumps(a.params)
        if fenced:
            params = f"```json\n{params}\n```"
        out += [f"<action-type>{a.type}</action-type>",
                f"<action-param-json>{params}</action-param-json>"]
    if plan.complete:
        out.append(f'<complete success="{str(plan.success).lower()}">{plan.message}</complete>')
    if plan.error:
        out.append(f"<error>{plan.error}</error>")
    if plan.sub_goals:
        out.append("<update-plan-content>" + "".join(
            f'<sub-goal index="{g.index}" status="{g.status}">{g.text}</sub-goal>'
            for g in plan.sub_goals) + "</update-plan-content>")
    out += [f'<mark-sub-goal-done><sub-goal index="{i}" /></mark-sub-goal-done>'
            for i in plan.done_goals]
    return "\n".join(out + [prose])


@patient
@given(xml_plans(), st.booleans(), words)
def test_xml_round_trip(plan, fenced, prose):
    assert parse_plan(write_xml(plan, fenced, prose), "xml") == plan


# AutoGLM: (call, the farm action it means); coordinates 0-999 stay in the model's space.
glm_point = st.lists(st.integers(0, 999), min_size=2, max_size=2)
glm_text = words.filter(lambda s: '"' not in s)


@st.composite
def autoglm_calls(draw):
    kind = draw(st.sampled_from(["point", "Type", "Swipe", "Back", "Home", "Launch", "Wait",
                                 "finish", "Take_over"]))
    if kind == "point":
        name, farm = draw(st.sampled_from([("Tap", "Tap"), ("Click", "Tap"),
                                           ("Double Tap", "DoubleClick"),
                                           ("Long Press", "LongPress")]))
        p = draw(glm_point)
        return f'do(action="{name}", element=[{p[0]},{p[1]}])', PlannedAction(
            type=farm, params={"locate": loc(p)})
    if kind == "Type":
        v = draw(glm_text)
        return f'do(action="Type", text="{v}")', PlannedAction(
            type="Input", params={"value": v, "mode": "replace"})
    if kind == "Swipe":
        a, b = draw(glm_point), draw(glm_point)
        return (f'do(action="Swipe", start=[{a[0]},{a[1]}], end=[{b[0]},{b[1]}])',
                PlannedAction(type="Swipe", params={"start": loc(a), "end": loc(b)}))
    if kind in ("Back", "Home"):
        return f'do(action="{kind}")', PlannedAction(type=kind)
    if kind == "Launch":
        app = draw(glm_text)
        return f'do(action="Launch", app="{app}")', PlannedAction(type="Launch",
                                                                  params={"uri": app})
    if kind == "Wait":
        s = draw(st.integers(1, 30))
        return (f'do(action="Wait", duration="{s} seconds")',
                PlannedAction(type="Sleep", params={"timeMs": s * 1000}))
    message = draw(glm_text)
    if kind == "finish":
        return f'finish(message="{message}")', Plan(complete=True, success=True, message=message)
    return f'do(action="Take_over", message="{message}")', Plan(
        complete=True, success=False,
        message=f"the model asked a human to take over: {message}")


@patient
@given(autoglm_calls(), glm_text, st.booleans())
def test_autoglm_round_trip(call, thought, answer_tag):
    reply, meant = call
    expected = meant if isinstance(meant, Plan) else Plan(actions=[meant])
    expected.thought = thought
    body = f"<answer>{reply}</answer>" if answer_tag else reply
    got = parse_plan(f"<think>{thought}</think>{body}", "autoglm")
    assert got.model_dump(exclude={"log"}) == expected.model_dump(exclude={"log"})


# UI-TARS: one or more calls (a finish only last); coordinates 0-1000 stay in the model's space.
tars_text = words.filter(lambda s: "'" not in s)
BOX_FORMS = [("start_box", "'({0},{1})'"), ("start_box", "'<|box_start|>({0},{1})<|box_end|>'"),
             ("point", "'<point>{0} {1}</point>'"), ("start_box", "'[{0},{1},{2},{3}]'")]
KEYS = {"enter": "Enter", "tab": "Tab", "esc": "Escape", "backspace": "Backspace",
        "ctrl+c": "Ctrl+c", "ctrl shift t": "Ctrl+Shift+t"}


@st.composite
def tars_target(draw, key="start_box"):
    form_key, form = draw(st.sampled_from(BOX_FORMS))
    nums = draw(box) if "{3}" in form else draw(point)
    if key != "start_box":       # the end of a drag: end_box / end_point, same forms
        form_key = {"start_box": "end_box", "point": "end_point"}[form_key]
    return f"{form_key}={form.format(*nums)}", loc(nums)


@st.composite
def tars_calls(draw, last):
    kind = draw(st.sampled_from(
        ["finished", "call_user"] if last else
        ["click", "left_single", "left_double", "right_single", "long_press", "hover", "drag",
         "type", "hotkey", "scroll", "press_home", "press_back", "open_app", "wait"]))
    pointing = {"click": "Tap", "left_single": "Tap", "left_double": "DoubleClick",
                "right_single": "RightClick", "long_press": "LongPress", "hover": "Hover"}
    if kind in pointing:
        arg, target = draw(tars_target())
        return f"{kind}({arg})", [PlannedAction(type=pointing[kind],
                                                params={"locate": target})]
    if kind == "drag":
        (a, start), (b, end) = draw(tars_target()), draw(tars_target("end_box"))
        return f"drag({a}, {b})", [PlannedAction(type="DragAndDrop",
                                                 params={"from": start, "to": end})]
    if kind == "type":
        value, enter = draw(tars_text), draw(st.booleans())
        actions = [PlannedAction(type="Input", params={"value": value, "mode": "typeOnly"})]
        if enter:
            actions.append(PlannedAction(type="KeyboardPress", params={"keyName": "Enter"}))
        return f"type(content='{value}{chr(92) + 'n' if enter else ''}')", actions
    if kind == "hotkey":
        key = draw(st.sampled_from(sorted(KEYS)))
        return f"hotkey(key='{key}')", [PlannedAction(type="KeyboardPress",
                                                      params={"keyName": KEYS[key]})]
    if kind == "scroll":
        direction = draw(st.sampled_from(["up", "down", "left", "right"]))
        arg, target = draw(tars_target()) if draw(st.booleans()) else ("", None)
        args = ", ".join(filter(None, [arg, f"direction='{direction}'"]))
        return f"scroll({args})", [PlannedAction(type="Scroll", params={
            "scrollType": "singleAction", "direction": direction, "locate": target})]
    if kind in ("press_home", "press_back"):
        return f"{kind}()", [PlannedAction(type="Home" if kind == "press_home" else "Back")]
    if kind == "open_app":
        app = draw(tars_text)
        return f"open_app(app_name='{app}')", [PlannedAction(type="Launch", params={"uri": app})]
    if kind == "wait":
        return "wait()", [PlannedAction(type="Sleep", params={"timeMs": 5000})]
    message = draw(tars_text)
    if kind == "finished":
        return f"finished(content='{message}')", Plan(complete=True, success=True,
                                                      message=message)
    return f"call_user(content='{message}')", Plan(
        complete=True, success=False, message=f"the model asked for the user: {message}")


@patient
@given(st.lists(tars_calls(last=False), max_size=3), st.one_of(st.none(), tars_calls(last=True)),
       tars_text.filter(lambda s: ":" not in s), st.sampled_from(["Action: ", "Action："]))
def test_uitars_round_trip(calls, finish, thought, action_label):
    if not calls and finish is None:
        calls = [("wait()", [PlannedAction(type="Sleep", params={"timeMs": 5000})])]
    expected = Plan(thought=thought)
    for _, actions in calls:
        expected.actions += actions
    written = [call for call, _ in calls]
    if finish is not None:
        written.append(finish[0])
        expected.complete, expected.success = True, finish[1].success
        expected.message = finish[1].message
    reply = f"Thought: {thought}\n{action_label}" + "\n\n".join(written)
    assert parse_plan(reply, "uitars") == expected


# ---- traps each grammar must survive -----------------------------------------------------------
@patient
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


@patient
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


@patient
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
