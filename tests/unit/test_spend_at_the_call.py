"""A worker sends the model spend of the step in progress at each model call, not only when
its watch thread next looks (every 0.1 s): a worker killed (kill -9) right after a call lost
that call's spend, which the run then never counted although it was paid for."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from farm.agent.api import Agent
from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.runner import run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from farm.usage import Usage
from worker.runtime import DeviceRuntime, _RunEvents

CART = UITree(source="dom", page_text="Cart (0)", nodes=[])
SLEEP = ("<action-type>Sleep</action-type>"
         f"<action-param-json>{json.dumps({'timeMs': 0})}</action-param-json>")


class Runtime:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def publish(self, run_id: str, event: dict[str, Any]) -> None:
        self.sent.append(event)


def spends(runtime: Runtime) -> list[int]:
    return [e["usage"]["calls"] for e in runtime.sent if e["type"] == "spend"]


def test_a_workers_spend_event_goes_out_at_the_model_call(tmp_path):
    runtime = Runtime()
    events = _RunEvents(runtime)
    seen: list[list[int]] = []        # the spend events sent when each model call began

    def script(messages: list[dict[str, Any]], index: int) -> str:
        seen.append(spends(runtime))
        return SLEEP if index == 0 else '<complete success="true">ok</complete>'
    worker = SimpleNamespace(settings=Settings(), _cache=None, events=events,
                             _models=ModelSet.single(ScriptedModelClient(script)))
    services = DeviceRuntime._services(worker, "r1", tmp_path,
                                       {"env": {}, "app_dirs": {}, "cache_mode": "off"})
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="aiAct", value="wait a moment")])])
    events.case_started("fake-1", case.id, case.name, 1)
    result = run_case(Job(case.id, "web", 1), case, FakeDevice(CART), services)
    assert result.status == "passed", result.error
    assert seen == [[], [1]]      # the first call's spend was out before the second began


def test_a_failed_call_s_spend_is_told_too_and_a_failing_hook_is_no_steps_error():
    told: list[int] = []
    down = ModelUnavailable("model scripted is down")
    down.usage = Usage(prompt_tokens=10, calls=1)

    def script(messages: list[dict[str, Any]], index: int) -> str:
        if index == 0:
            raise down
        return "yes"

    def on_spend() -> None:
        told.append(agent.usage.calls)
        raise RuntimeError("the outbox is gone")
    agent = Agent(FakeDevice(CART), model=ModelSet.single(ScriptedModelClient(script)),
                  on_spend=on_spend)
    msgs = [{"role": "user", "content": "hi"}]
    try:
        agent.ask("plan", msgs)
    except ModelUnavailable:
        pass
    assert agent.ask("plan", msgs) == "yes"
    assert told == [1, 2]
