"""An attempt whose device call farm gave up on after kill() (`DeviceSlot._given_up`) keeps the
model spend of its steps so far, as a stopped run's attempt whose device did not come back
does (`farm.slot.so_far`): those calls were paid for. Before, its result had no usage and no
tokens: the run's spend, --max-model-cost's count and the report left them out."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.executors.base import DEVICE_THREAD
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.slot import DeviceSlot
from farm.suite.model import Case, Step, Task, WebTarget

CART = UITree(source="dom", page_text="Cart (0)", nodes=[])
SLEEP = ("<action-type>Sleep</action-type>"
         f"<action-param-json>{json.dumps({'timeMs': 0})}</action-param-json>")


@pytest.fixture
def release():
    before = set(threading.enumerate())
    gate = threading.Event()
    yield gate
    gate.set()              # the call farm gave up on ends with the test
    for thread in set(threading.enumerate()) - before:
        if thread.name.startswith(DEVICE_THREAD):
            thread.join(30)


def test_a_given_up_attempt_keeps_the_model_calls_it_made(tmp_path, release):
    def script(messages: list[dict[str, Any]], index: int) -> str:
        return SLEEP if index == 0 else '<complete success="true">ok</complete>'
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={}, model=ModelSet.single(ScriptedModelClient(script)))
    dev = FakeDevice(CART, name="spend-s47gu2", scripts={"spin": lambda d: release.wait(600)})
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"), timeout=2,
                tasks=[Task(name="t", steps=[Step(kind="aiAct", value="wait a moment"),
                                             Step(kind="javascript", value="spin")])])
    slot = DeviceSlot(dev, services, grace=0.2)
    assert slot.open()
    res = slot.run(Job(case.id, "web", 1), case)
    slot.close()
    assert res.status == "error" and "run_script() did not return" in res.error.message, res
    assert [s.status for s in res.steps] == ["passed", "error"]
    assert res.usage is not None and res.usage.calls == 2, res.usage
    assert res.tokens == {"prompt": res.usage.prompt_tokens,
                          "completion": res.usage.completion_tokens}
