"""The ai loop's limits at their defaults (REFERENCE.md section 4): 20 rounds for the XML
families, 40 for UI-TARS, each error saying which finish the model never gave; five execution
errors in one act are fed back and survived, the sixth fails it."""

from __future__ import annotations

import json
import re

import pytest

from farm.agent.api import Agent
from farm.agent.loop import RAISE_CAP
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet

DONE_XML = '<complete success="true">done</complete>'
MISSING = ("<action-type>Tap</action-type>"
           + f"<action-param-json>{json.dumps({'locate': {'prompt': 'Checkout'}})}"
           + "</action-param-json>")


def page() -> FakeDevice:
    return FakeDevice(UITree(source="dom", page_text="Cart", nodes=[
        UINode(id=0, role="button", text="Continue", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))]))


def failing_then_done(failures: int) -> ScriptedModelClient:
    """A planner that asks for a button the page does not have ``failures`` times (its AI
    locate finds nothing), then completes."""
    plans: list[int] = []

    def reply(messages, i):
        if "Find the element" in str(messages):
            return '{"bbox": []}'
        plans.append(i)
        return MISSING if len(plans) <= failures else DONE_XML
    return ScriptedModelClient(reply)


def test_ui_tars_plans_40_rounds_then_fails_naming_finished():
    clicks = [f"Thought: try\nAction: click(start_box='({10 + 20 * i},500)')"
              for i in range(45)]
    client = ScriptedModelClient(lambda m, i: clicks[i], family="ui-tars")
    with pytest.raises(StepFailed,
                       match=r"^replanning limit 40 reached without finished\(\.\.\.\)"
                             + re.escape(RAISE_CAP) + "$"):
        Agent(page(), ModelSet.single(client)).ai_act("find the checkout")
    assert client.calls == 40


def test_five_execution_errors_are_survived():
    client = failing_then_done(5)
    out = Agent(page(), ModelSet.single(client)).ai_act("check out")
    assert out["message"] == "done"


def test_the_sixth_execution_error_fails_the_act():
    client = failing_then_done(6)
    with pytest.raises(StepFailed, match="^more than 5 execution errors in one ai step; last: "
                                         'Locate "Checkout" failed'):
        Agent(page(), ModelSet.single(client)).ai_act("check out")
