"""aiTap on a described target the model misses: the failure's first line (the one a CI log
shows) says what the model answered, not only "no element matches"."""

import pytest

from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet


def page():
    return FakeDevice(screens={"p": UITree(source="dom", page_text="p", nodes=[
        UINode(id=0, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))])})


@pytest.mark.parametrize("reply, said", [
    ('{"bbox": [], "error": "there is no grey button"}',
     "the model did not find 'the grey button': there is no grey button"),
    ('{"bbox": [5000, 5000, 5100, 5100]}', "the model's box [5000,5000,5100,5100] is outside"),
])
def test_a_model_miss_says_the_models_answer_on_its_first_line(reply, said):
    dev = page()
    agent = Agent(dev, ModelSet.single(ScriptedModelClient([reply])))
    with pytest.raises(LocateError) as miss:
        agent.ai_tap("the grey button")
    first = str(miss.value).splitlines()[0]
    assert first.startswith('no element matches "the grey button"; ') and said in first
    assert not [a for a in dev.actions if a[0] == "tap"]
