"""aiWaitFor's checkIntervalMs is the least time between the STARTS of two checks, as
Midscene documents it ("at least checkIntervalMs apart"), not a pause after each answer: with
a judge that takes 2 s to answer and checkIntervalMs 3000, checks began 5 s apart (2 s answer
+ 3 s pause), so a 12 s wait judged 3 times instead of 4 and saw a change up to 2 s late. A
judge slower than the interval is asked again at once. Time is a fake clock: the wait's own
pauses and each judge call move it forward.
"""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet

STATEMENT = "the export has finished"


class FakeClock:
    """farm.agent.api's ``time``: ``sleep`` moves the clock instead of waiting."""

    def __init__(self) -> None:
        self.now, self.slept = 1000.0, []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def waited(monkeypatch, answer_s: float, timeout_s: float, interval_s: float
           ) -> tuple[list[float], list[float], str]:
    """(when each check began, the pauses, the failure) of a wait that never comes true,
    with a judge that takes ``answer_s`` to answer."""
    clock = FakeClock()
    monkeypatch.setattr("farm.agent.api.time", clock)
    began: list[float] = []

    def judge(messages, index):
        began.append(round(clock.now - 1000.0, 6))
        clock.now += answer_s
        return '{"pass": false, "thought": "the progress bar is at 40%"}'

    agent = Agent(FakeDevice(UITree(source="dom", page_text="Exporting 40%", nodes=[])),
                  ModelSet.single(ScriptedModelClient(judge)))
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_wait_for(STATEMENT, timeout_s=timeout_s, interval_s=interval_s)
    return began, clock.slept, str(failed.value)


def test_checks_start_check_interval_apart_however_long_the_judge_takes(monkeypatch):
    began, slept, message = waited(monkeypatch, answer_s=2, timeout_s=12, interval_s=3)
    assert began == [0, 3, 6, 9]          # not 0, 5, 10: the answer's 2 s are part of the 3
    assert slept == [1, 1, 1]
    assert message == (f'aiWaitFor "{STATEMENT}" not true within 12s: the progress bar is '
                       "at 40%")


def test_a_judge_slower_than_the_interval_is_asked_again_at_once(monkeypatch):
    began, slept, _ = waited(monkeypatch, answer_s=4, timeout_s=17, interval_s=3)
    assert began == [0, 4, 8, 12]
    assert all(pause == 0 for pause in slept)


def test_an_instant_judge_still_gets_a_last_check_as_late_as_fits(monkeypatch):
    began, slept, _ = waited(monkeypatch, answer_s=0, timeout_s=8, interval_s=3)
    assert began == [0, 3, 6, 8] and slept == [3, 3, 2]
