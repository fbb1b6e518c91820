"""aiNumber "the price of the Blue Mug" on a page with no price: the model answered
{"data": null, "thought": "no price is shown"}, farm asked it again for "a number" (inviting it
to make one up) and then ended the case an infrastructure error, "its query reply could not be
parsed twice", without the model's reason (and aiString's output was the text "null", typed
where a later step used it). A null to aiNumber / aiBoolean / aiString is now an answer about
the screen: the step fails (the app's failure), saying what the model saw."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

CART = UITree(source="dom", page_text="Cart (0)", nodes=[])


def run(step: Step, client: ScriptedModelClient, tmp_path: Path) -> CaseResult:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[step])])
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={}, model=ModelSet.single(client))
    return run_case(Job(case.id, "web", 1), case, FakeDevice(CART), services)


@pytest.mark.parametrize("kind, said", [
    ("aiNumber", "found no number on the screen"),
    ("aiBoolean", "could not tell true or false from the screen"),
    ("aiString", "found no such text on the screen"),     # (its output was the text "null")
])
def test_a_null_answer_fails_the_step_with_the_models_reason(tmp_path, kind, said):
    client = ScriptedModelClient(['{"data": null, "thought": "no price is shown"}'])
    res = run(Step(kind=kind, value="the price of the Blue Mug"), client, tmp_path)
    assert res.status == "failed" and res.error.kind == "StepFailed", res.error
    assert res.error.message == (f'{kind} "the price of the Blue Mug": the model {said} (it '
                                 "answered null): no price is shown")
    assert client.calls == 1          # not asked again for a value it says is not there


def test_a_null_without_a_reason_says_so(tmp_path):
    client = ScriptedModelClient(['{"data": null}'])
    res = run(Step(kind="aiNumber", value="the price"), client, tmp_path)
    assert res.status == "failed", res.error
    assert res.error.message.endswith("(it answered null): it gave no reason")


def test_a_null_to_a_free_query_is_still_its_output(tmp_path):
    client = ScriptedModelClient(['{"data": null, "thought": "nothing"}'])
    res = run(Step(kind="aiQuery", value="the coupon codes", name="codes"), client, tmp_path)
    assert res.status == "passed", res.error
    assert res.steps[0].output is None


# aiAssert answered {"pass": null, "thought": "..."}: farm asked the model again for "true or
# false" (inviting a made-up verdict) and passed the step on the second answer.
COULD_NOT_TELL = ('the model could not tell whether it holds (it answered null): the cart is '
                  "hidden behind a dialog")


def test_an_assertion_the_model_could_not_tell_fails_and_is_not_asked_again(tmp_path):
    client = ScriptedModelClient(['{"pass": null, "thought": "the cart is hidden behind a '
                                  'dialog"}', '{"pass": true, "thought": "made up"}'])
    res = run(Step(kind="aiAssert", value="the cart shows 1 item"), client, tmp_path)
    assert res.status == "failed" and res.error.kind == "AssertionFailed", res.error
    assert res.error.message == f'aiAssert "the cart shows 1 item": {COULD_NOT_TELL}'
    assert client.calls == 1


def test_a_null_verdict_beside_a_custom_error_message_is_the_steps_output(tmp_path):
    client = ScriptedModelClient(['{"pass": null, "thought": "the cart is hidden behind a '
                                  'dialog"}'])
    step = Step(kind="aiAssert", value="the cart shows 1 item",
                options={"errorMessage": "cart not updated"})
    res = run(step, client, tmp_path)
    assert res.status == "failed" and res.error.message == (
        f"Assertion failed: cart not updated\nReason: {COULD_NOT_TELL}"), res.error
    assert res.steps[0].output == f"the model: {COULD_NOT_TELL}"
    no_reason = ScriptedModelClient(['{"pass": null}'])
    res = run(Step(kind="aiAssert", value="the cart shows 1 item"), no_reason, tmp_path)
    assert res.error.message.endswith("(it answered null): it gave no reason"), res.error
