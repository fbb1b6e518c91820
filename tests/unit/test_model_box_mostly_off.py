"""A model's box mostly outside the screenshot (its middle off it) is a model mistake told to
the model, as a box wholly outside is: it used to be clipped to the strip on the screenshot's
edge and tapped there."""

from __future__ import annotations

import json

import pytest

from farm.agent.api import Agent
from farm.errors import LocateError
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts
from tests.unit.test_model_mistakes import DONE, shop, tapped, xml

# 1280×800: x 10..110 on "Sign in", but y 790..1190: 10 px on the screenshot, 390 below it
MOSTLY_BELOW = [10, 790, 110, 1190]
SAID = ("the model's box [10,790,110,1190] is mostly outside the 1280×800 screen: its middle "
        "is off it")


def test_an_ai_locate_box_mostly_off_the_screen_is_not_tapped_and_says_why():
    dev = shop()
    agent = Agent(dev, ModelSet.single(ScriptedModelClient([json.dumps(
        {"bbox": MOSTLY_BELOW})])))
    with pytest.raises(LocateError) as failed:
        agent.ai_tap("the big primary button")
    assert SAID in failed.value.candidates, failed.value.candidates
    assert tapped(dev) == []


def test_the_planner_s_box_mostly_off_the_screen_goes_back_to_the_model():
    def model(messages, i):
        said = "\n".join(message_texts({"messages": messages[-1:]}))
        if "Steps done so far" in said:
            return DONE
        if SAID in said:
            return xml("Tap", {"locate": {"prompt": "Sign in", "bbox": [20, 65, 100, 85]}})
        return xml("Tap", {"locate": {"prompt": "the thing", "bbox": MOSTLY_BELOW}})

    dev = shop()
    Agent(dev, ModelSet.single(ScriptedModelClient(model))).ai_act("sign in")
    assert tapped(dev) == [(60, 75)] and dev.screen == "home"
