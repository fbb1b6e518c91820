"""What an ai step's actions are called where the user (its output "steps") and the model
("Steps done so far", when the reply has no <log>: UI-TARS) read them: the text typed, the key,
the direction, the wait. They read "Input", "KeyboardPress", "Scroll": a UI-TARS model was told
it had pressed a key, not which, and could not tell what it had typed."""

from __future__ import annotations

from farm.agent.api import Agent
from farm.agent.loop import RAISE_CAP
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts


def search_page() -> FakeDevice:
    return FakeDevice(screens={"search": UITree(source="dom", page_text="search", nodes=[
        UINode(id=0, role="input", placeholder="Search", editable=True,
               rect=Rect(x=10, y=10, width=400, height=30))])})


def test_ui_tars_steps_say_what_was_typed_and_pressed():
    client = ScriptedModelClient([
        "Thought: search\nAction: click(start_box='(100,20)')\n\ntype(content='blue mug\\n')",
        "Thought: more\nAction: scroll(start_box='(500,500)', direction='Down')",
        "Thought: ok\nAction: finished(content='done')"], family="ui-tars")
    out = Agent(search_page(), ModelSet.single(client)).ai_act("search for a blue mug")
    assert out["steps"][1:] == ['Input "blue mug"', "KeyboardPress Enter",
                                "Scroll down box [500, 500] at [636, 396, 9, 9]"]
    told = message_texts({"messages": client.requests[1]})[-1]
    assert '- Input "blue mug"\n- KeyboardPress Enter' in told


def test_labels_of_planned_actions():
    from farm.agent.actions import registry
    from farm.agent.tasks import build_tasks
    from farm.llm.plan import PlannedAction

    def label(name, params):
        return build_tasks(PlannedAction(type=name, params=params), registry("web"))[-1].label
    assert label("Input", {"value": "${PW}", "locate": {"prompt": "Password"}}) == \
        'Input "${PW}" in "Password"'                       # the placeholder, never the value
    assert label("Input", {"value": "x" * 50}) == 'Input "' + "x" * 40 + '…"'
    assert label("KeyboardPress", {"keyName": "Tab", "locate": {"prompt": "Search"}}) == \
        'KeyboardPress Tab on "Search"'
    assert label("Scroll", {"scrollType": "scrollToBottom"}) == "Scroll scrollToBottom"
    assert label("Sleep", {"timeMs": 500}) == "Sleep 500 ms"
    assert label("Tap", {"locate": {"prompt": "Go"}}) == 'Tap "Go"'


def test_the_replanning_limit_names_the_familys_finish():
    """An AutoGLM user was told the model never answered <complete>, a tag of another
    grammar."""
    import pytest

    from farm.errors import StepFailed
    # (taking turns: the same one every round is a stuck model, failed at 5 rounds)
    client = ScriptedModelClient(lambda messages, i: '<answer>do(action="%s", message="reading")'
                                 '</answer>' % ("Note", "Call API")[i % 2], family="auto-glm")
    with pytest.raises(StepFailed) as failed:
        Agent(search_page(), ModelSet.single(client)).ai_act("read the page")
    assert str(failed.value) == "replanning limit 100 reached without finish(...)" + RAISE_CAP
