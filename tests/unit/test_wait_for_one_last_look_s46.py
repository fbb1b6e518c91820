"""aiWaitFor's one last check as late as it fits: a last check faster than the check before
it left room for another "last" check, and another (a 4 s wait with checkIntervalMs 3000
asked the model at 0, 3, 3.9 and 3.99 s: four paid calls where Midscene's pace makes three).
Time is a fake clock, as in test_wait_for_pace_h7."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.unit.test_wait_for_pace_h7 import FakeClock


def test_a_faster_last_check_makes_no_further_last_check(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr("farm.agent.api.time", clock)
    took = iter([0.1, 0.1, 0.01, 0.001, 0.0001])
    began: list[float] = []

    def judge(messages, index):
        began.append(round(clock.now - 1000.0, 3))
        clock.now += next(took)
        return '{"pass": false, "thought": "the order is not shipped"}'

    agent = Agent(FakeDevice(UITree(source="dom", page_text="Cart", nodes=[])),
                  ModelSet.single(ScriptedModelClient(judge)))
    with pytest.raises(AssertionFailed, match="not true within 4s: the order is not shipped"):
        agent.ai_wait_for("the order has shipped", timeout_s=4, interval_s=3)
    assert began == [0, 3, 3.9]
