"""With a separate assertion model (FARM_ASSERT_MODEL_*), an unreadable verdict names the
model that wrote it, as an ai step's unreadable plan does: the user knows which one to fix."""

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet


def agent(judge_reply, query_reply='{"data": 1}'):
    dev = FakeDevice(screens={"p": UITree(source="dom", page_text="Cart (1)")})
    planner = ScriptedModelClient([query_reply], name="openai/planner-vlm")
    judge = ScriptedModelClient([judge_reply], name="openai/judge-vlm")
    return Agent(dev, ModelSet(planner, planner, judge))


def test_an_unreadable_verdict_names_the_assertion_model():
    with pytest.raises(ModelUnavailable) as err:
        agent("looks fine to me").ai_assert("the cart shows 1")
    assert str(err.value).startswith("model openai/judge-vlm: its assert reply could not be "
                                     "parsed twice")


def test_an_unreadable_query_answer_names_the_model_asked():
    with pytest.raises(ModelUnavailable) as err:
        agent('{"pass": true}', query_reply="one").ai_query("the count", "aiNumber")
    assert str(err.value).startswith("model openai/planner-vlm: its query reply")
