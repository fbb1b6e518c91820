"""A failed aiAssert is kept and worded as Midscene's player keeps and words it: its result
(the case's data, the ``output:`` file) is ``{pass, thought, message}``, and with the step's
``errorMessage`` the failure reads "Assertion failed: <errorMessage>\\nReason: <the model's
reason>". farm kept ``{pass: false, message}`` and the message was the errorMessage alone, so
the model's reason was in neither the output file nor junit.xml."""

from __future__ import annotations

from farm.llm.client import ScriptedModelClient
from farm.suite.model import Step
from tests.unit.test_agent_insight import STATEMENT, app, judge_of, run_steps

REASON = "a spinner is still shown (look 1)"


def test_a_failed_assert_with_an_error_message_keeps_and_says_the_model_s_reason(tmp_path):
    dev = app()
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT, options={"errorMessage": "login is broken",
                                                        "name": "login"})])
    said = f"Assertion failed: login is broken\nReason: {REASON}"
    assert res.status == "failed" and res.error.message == said
    assert res.data == {"login": {"pass": False, "thought": REASON, "message": said}}


def test_a_failed_assert_without_one_keeps_its_verdict_the_same_way(tmp_path):
    dev = app()
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT)])
    said = f'aiAssert "{STATEMENT}" failed: {REASON}'
    assert res.error.message == said
    assert res.data == {"0": {"pass": False, "thought": REASON, "message": said}}


def test_a_verdict_without_a_reason_keeps_no_thought(tmp_path):
    res = run_steps(tmp_path, app(), ScriptedModelClient(['{"pass": false}']), [
        Step(kind="aiAssert", value=STATEMENT, options={"errorMessage": "login is broken"})])
    said = "Assertion failed: login is broken\nReason: the model gave no reason"
    assert res.data == {"0": {"pass": False, "message": said}}
