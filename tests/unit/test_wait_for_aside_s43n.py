"""aiWaitFor's "(the time ran out while the model … judged again)" is said only when a judge
request was out as the step's time ran out. A user whose every judge call answered in
milliseconds read it on a wait whose last check had no time left to ask the model at all.
`run_case` with a FakeDevice and the in-process scripted model."""

from __future__ import annotations

from typing import Any

from farm.llm.client import DeadlineReached, ScriptedModelClient
from farm.llm.models import ModelSet
from farm.suite.model import Step
from farm.usage import Usage
from tests.unit.test_model_step_time import NOT_YET, run


def _wait(tmp_path, late: DeadlineReached):
    def script(messages: list[dict[str, Any]], index: int) -> str:
        if index:
            raise late
        return NOT_YET
    step = Step(kind="aiWaitFor", value="the cart holds a mug", timeout_ms=5000,
                options={"checkIntervalMs": 10})
    return run([step], ModelSet.single(ScriptedModelClient(script)), tmp_path)


def test_a_last_check_with_no_time_to_ask_says_no_judging_aside(tmp_path):
    # what LiteLLMClient raises when no time is left for a request: nothing sent, no call
    late = DeadlineReached("model scripted gave no answer in the time left (no time for "
                           "attempt 1)")
    late.usage = Usage()     # type: ignore[attr-defined]
    res = _wait(tmp_path, late)
    assert res.status == "failed" and res.error.kind == "AssertionFailed", res.error
    assert res.error.message == ('aiWaitFor "the cart holds a mug" not true within 5s: the '
                                 "badge still says Cart (0)")


def test_a_request_out_as_the_time_ran_out_says_how_long_it_had(tmp_path):
    late = DeadlineReached("model scripted gave no answer in the time left")
    late.usage = Usage(calls=1, latency_s=0.004, tokens_unknown=True)  # type: ignore
    res = _wait(tmp_path, late)
    assert res.error.message == ('aiWaitFor "the cart holds a mug" not true within 5s: the '
                                 "badge still says Cart (0) (the time ran out while the model "
                                 "scripted judged again, 4 ms after it was asked)")
