"""A verdict of false whose "thought" is missing or null failed 'aiAssert "…" failed: ' (a
colon and nothing) or 'failed: None', and beside a step's own errorMessage the step's output
read "the model: None". It now says the model gave no reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

CART = UITree(source="dom", page_text="Cart (0)", nodes=[])


@pytest.mark.parametrize("verdict", ['{"pass": false}', '{"pass": false, "thought": null}',
                                     '{"pass": false, "thought": " "}'])
def test_a_verdict_without_a_reason_says_so(verdict):
    agent = Agent(FakeDevice(CART), ModelSet.single(ScriptedModelClient([verdict])))
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_assert("the cart shows 1 item")
    assert str(failed.value) == ('aiAssert "the cart shows 1 item" failed: the model gave no '
                                 'reason')
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_wait_for("the cart shows 1 item", timeout_s=0, interval_s=0)
    assert str(failed.value) == ('aiWaitFor "the cart shows 1 item" not true within 0s: the '
                                 'model gave no reason')


def test_a_null_reason_beside_an_error_message_is_no_model_output(tmp_path):
    client = ScriptedModelClient(['{"pass": false, "thought": null}'])
    step = Step(kind="aiAssert", value="the cart shows 1 item",
                options={"errorMessage": "the cart is empty"})
    case = Case(id="s/cart", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[step])])
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=MemoryStore(),
                        model=ModelSet.single(client))
    result = run_case(Job(case.id, "web", 1), case, FakeDevice(CART), services)
    assert result.status == "failed" and result.error is not None
    assert result.error.message == ("Assertion failed: the cart is empty\n"
                                    "Reason: the model gave no reason")
    assert not result.steps[-1].output       # was "the model: None"
