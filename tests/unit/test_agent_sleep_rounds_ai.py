"""A model that waits (Sleep) for a page still loading is not a stuck agent: five Sleeps on a
screen that did not change failed the case 'agent stuck: Sleep repeated 5 times', though
waiting is what the step needed. A model that only ever waits still ends at the round cap,
and the failure says it only waited. Real litellm over HTTP against the scripted model
server (a thread), a FakeDevice and `run_case`; the in-process client for the cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.agent.loop import RAISE_CAP, LoopLimits
from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import CaseTimeout, StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import serve


def xml(action, params):
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


SLEEP = xml("Sleep", {"timeMs": 1})
LOADING = UITree(source="dom", page_text="Loading…", nodes=[])


def test_a_model_waiting_six_rounds_for_a_slow_page_passes_the_case(tmp_path, server):
    from farm.llm.litellm_client import LiteLLMClient
    srv = serve(server, [SLEEP] * 6 + ['<complete success="true">the report loaded</complete>'])
    case = Case(id="s/slow", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="wait for the report")])])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url)
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=MemoryStore(),
                        model=ModelSet.single(client))
    result = run_case(Job(case.id, "web", 1), case, FakeDevice(LOADING), services)
    assert result.status == "passed", result.error
    assert len(srv.requests) == 7


def test_a_model_that_only_waits_ends_at_the_round_cap_saying_so():
    """(A model may write the action's name in lower case: it runs all the same.)"""
    lower = xml("sleep", {"timeMs": 1})
    client = ScriptedModelClient(lambda m, i: lower if i % 2 else SLEEP)
    agent = Agent(FakeDevice(LOADING), ModelSet.single(client), limits=LoopLimits(cap=8))
    with pytest.raises(StepFailed) as failed:
        agent.ai_act("wait for the report")
    assert str(failed.value) == (
        "replanning limit 8 reached without <complete>: the model only waited (Sleep) in its "
        "last 8 rounds, on a screen that did not change" + RAISE_CAP)
    assert client.calls == 8


def test_the_same_tap_with_waits_between_is_still_stuck():
    """A Sleep between two taps of one target on an unchanged screen hides no loop."""
    tap = xml("Tap", {"locate": {"prompt": "Refresh"}})
    client = ScriptedModelClient(lambda m, i: tap if i % 2 else SLEEP)
    dev = FakeDevice(UITree(source="dom", page_text="Loading…", nodes=[
        UINode(id=0, role="button", text="Refresh", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))]))
    with pytest.raises(StepFailed, match='^agent stuck: Tap repeated 5 times on "Refresh"'):
        Agent(dev, ModelSet.single(client)).ai_act("wait for the report")


class _Spinner(FakeDevice):
    """A page whose spinner turns: each screenshot differs from the last."""

    def screenshot(self) -> bytes:
        self.screen = "b" if self.screen == "a" else "a"
        return super().screenshot()


def test_a_model_that_only_waits_on_a_moving_page_is_not_told_the_page_stood_still():
    client = ScriptedModelClient([SLEEP])
    dev = _Spinner(screens={"a": LOADING, "b": UITree(source="dom", page_text="Loading…", nodes=[
        UINode(id=0, role="img", text="", rect=Rect(x=600, y=350, width=80, height=80))])})
    with pytest.raises(StepFailed) as failed:
        Agent(dev, ModelSet.single(client), limits=LoopLimits(cap=6)).ai_act("wait")
    assert str(failed.value) == ("replanning limit 6 reached without <complete>: the model "
                                 "only waited (Sleep) in its last 6 rounds" + RAISE_CAP)


def test_one_wait_after_other_actions_is_not_called_only_waiting():
    tap = xml("Tap", {"locate": {"prompt": "Refresh"}})
    client = ScriptedModelClient(lambda m, i: SLEEP if i == 2 else tap)
    dev = FakeDevice(UITree(source="dom", page_text="Loading…", nodes=[
        UINode(id=0, role="button", text="Refresh", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))]))
    with pytest.raises(StepFailed) as failed:
        Agent(dev, ModelSet.single(client), limits=LoopLimits(cap=3)).ai_act("wait")
    assert str(failed.value) == "replanning limit 3 reached without <complete>" + RAISE_CAP


def test_a_case_whose_time_ran_out_while_the_model_waited_says_so():
    """The case's own timeout ends a model that only waits first, where its round cap is far
    (100 rounds of AutoGLM's Wait): it said 'case timed out during an ai step' alone."""
    end = {"at": float("inf")}

    def script(messages, i):
        if i == 3:
            end["at"] = 0.0             # the case's time runs out during this round's wait
        return SLEEP
    agent = Agent(FakeDevice(LOADING), ModelSet.single(ScriptedModelClient(script)),
                  deadline=lambda: end["at"])
    with pytest.raises(CaseTimeout) as timed_out:
        agent.ai_act("wait for the report")
    assert str(timed_out.value) == (
        "case timed out during sleep 1 ms: the model only waited (Sleep) in its last 4 rounds, "
        "on a screen that did not change")


def test_a_case_that_timed_out_doing_other_things_is_not_said_to_have_waited():
    end = {"at": float("inf")}

    def script(messages, i):
        end["at"] = 0.0 if i == 1 else end["at"]
        return xml("Tap", {"locate": {"prompt": "Refresh"}}) if i else SLEEP
    dev = FakeDevice(UITree(source="dom", page_text="Loading…", nodes=[
        UINode(id=0, role="button", text="Refresh", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))]))
    agent = Agent(dev, ModelSet.single(ScriptedModelClient(script)), deadline=lambda: end["at"])
    with pytest.raises(CaseTimeout, match="^case timed out during an ai step$"):
        agent.ai_act("wait for the report")
