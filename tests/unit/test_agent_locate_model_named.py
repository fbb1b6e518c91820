"""A locate answer that could not be read twice said "the model's locate reply could not be
parsed twice", where a planning, an assertion or a query answer names its model: with a
separate planning model (FARM_PLANNING_MODEL) the user could not tell which model to look
at."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet


def test_an_unreadable_locate_answer_names_the_locate_model():
    planner = ScriptedModelClient(['<complete success="true">done</complete>'],
                                  name="openai/planner")
    locator = ScriptedModelClient(['{"bbox": ["left", "top", "right", "bottom"]}'],
                                  name="openai/locator")
    models = ModelSet(plan=planner, locate=locator, judge=locator, planner_locates=False)
    agent = Agent(FakeDevice(UITree(source="dom", page_text="", nodes=[])), models)
    with pytest.raises(ModelUnavailable) as info:
        agent.ai_tap("the Go control")
    assert str(info.value) == (
        'model openai/locator: its locate reply could not be parsed twice: bbox must be 2 or '
        '4 numbers, got ["left", "top", "right", "bottom"]')
    assert locator.calls == 2 and planner.calls == 0
