"""A model that plans Input without "value" (it wrote "text", or nothing) is told its plan is
wrong; the field it meant is not emptied as if a Clear had been asked for and passed."""

import json

from farm.agent.actions import describe_actions
from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts


def xml(action, params):
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def search_page():
    return FakeDevice(screens={"search": UITree(source="dom", page_text="search", nodes=[
        UINode(id=0, role="input", placeholder="Search", editable=True,
               rect=Rect(x=10, y=10, width=200, height=30))])})


def test_input_without_value_is_fed_back_and_the_field_is_left_alone():
    dev = search_page()
    dev.values[("search", 0)] = "mug"            # what the user had typed before the step
    client = ScriptedModelClient([
        xml("Input", {"text": "tea", "locate": {"prompt": "Search"}}),
        '<complete success="true">typed</complete>'])
    Agent(dev, ModelSet.single(client)).ai_act("search for tea")
    assert dev.value_of(0) == "mug"              # not emptied by an Input of nothing
    feedback = "\n".join(message_texts({"messages": client.requests[1]}))
    assert 'bad parameters for Input: "value" is missing' in feedback


def test_mode_clear_needs_no_value_and_the_prompt_says_value_is_required():
    dev = search_page()
    dev.values[("search", 0)] = "mug"
    client = ScriptedModelClient([
        xml("Input", {"mode": "clear", "locate": {"prompt": "Search"}}),
        '<complete success="true">emptied</complete>'])
    Agent(dev, ModelSet.single(client)).ai_act("empty the search field")
    assert dev.value_of(0) == ""
    assert "- Input {value: str," in describe_actions("web")
