"""A model that plans a target with nothing in it ({"prompt": ""}) is told to describe the
element, not "no element matches XPath None" (an XPath it never gave)."""

import json

import pytest

from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts


def xml(action, params):
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def page():
    return FakeDevice(screens={"p": UITree(source="dom", page_text="p", nodes=[
        UINode(id=0, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))])})


@pytest.mark.parametrize("action, params, field", [
    ("Tap", {"locate": {"prompt": ""}}, "locate"),
    ("Tap", {"locate": {"prompt": "  "}}, "locate"),
    ("DragAndDrop", {"from": {"prompt": ""}, "to": {"prompt": "Sign in"}}, "from"),
])
def test_an_empty_target_is_sent_back_asking_for_a_description(action, params, field):
    dev = page()
    client = ScriptedModelClient([xml(action, params), '<complete success="true">ok</complete>'])
    Agent(dev, ModelSet.single(client)).ai_act("sign in")
    feedback = message_texts({"messages": client.requests[1]})[-1]
    assert (f"bad parameters for {action}: {field}: the target has no description"
            in feedback)
    assert "XPath None" not in feedback
    assert not [a for a in dev.actions if a[0] == "tap"]


def test_an_empty_optional_target_means_no_target():
    """KeyboardPress / Input may name no element: an empty one is read as none given."""
    dev = page()
    client = ScriptedModelClient([xml("KeyboardPress", {"keyName": "Enter",
                                                         "locate": {"prompt": ""}}),
                                  '<complete success="true">ok</complete>'])
    Agent(dev, ModelSet.single(client)).ai_act("press enter")
    assert ("press", "Enter") in dev.actions
    assert "failed" not in message_texts({"messages": client.requests[1]})[-1]
