"""A case that failed and whose retry then lost its device (DeviceLost, the infrastructure
retries used up) ended as an *error*, exit 3: the failure it showed was hidden behind the
device's error, and it got no new failure / still failing verdict. It failed, as that attempt
says; the lost retry is named in its reason and kept among its attempts (as a skipped retry
is: test_retry_then_skip_rep.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from farm.attempts import RetryPolicy
from farm.executors.base import Ledger, NullEvents
from farm.report.allure import write_allure
from farm.report.junit import build_junit
from farm.results import CaseError, CaseResult, RunSummary, exit_code_for, final_result
from farm.results_history import CaseRecord, RunRecord, since_last
from farm.schedule import Job


def _attempt(n: int, status: str, kind: str, message: str) -> CaseResult:
    return CaseResult(run_id="r", case_id="s/pay", name="pay", file="s/pay.yaml",
                      platform="web", device=f"browser-{n}", attempt=n, status=status,
                      error=CaseError(kind=kind, message=message, step=1),
                      started=f"2026-12-04T10:00:0{n}+00:00", duration=0.5)


FAILED = ("failed", "StepFailed", "javascript error: total is wrong")
LOST = ("error", "DeviceLost", "browser-2: the browser process died")


def _verdict() -> CaseResult:
    """What the run's ledger makes of the two attempts (retries: 1, infra retries: 0)."""
    ledger = Ledger({}, "r", RetryPolicy(infra_retries=0, test_retries=1), NullEvents())
    retry = ledger.record(Job(case_id="s/pay", platform="web", expected_seconds=1.0),
                          _attempt(1, *FAILED), "browser-1")
    assert retry is not None
    assert ledger.record(retry, _attempt(2, *LOST), "browser-2") is None
    return ledger.results()[0]


def test_the_case_failed_as_its_first_attempt_says_and_names_the_lost_retry():
    verdict = _verdict()
    assert verdict.status == "failed" and verdict.attempt == 1
    assert verdict.error is not None and verdict.error.message.endswith("total is wrong")
    assert [(a.attempt, a.status) for a in verdict.previous] == [(2, "error")]
    assert verdict.reason == ("failed on attempt 1; attempt 2 was lost to a device error: "
                              "DeviceLost: browser-2: the browser process died")
    assert exit_code_for([verdict]) == 1


def test_it_gets_a_verdict_against_earlier_runs():
    summary = RunSummary(run_id="r", started="", cases=[_verdict()])
    before = RunRecord(run_id="r0", started="", cases=[CaseRecord(case_id="s/pay",
                                                                  status="passed")])
    assert since_last([before], summary) == {"s/pay": "new failure"}


def test_a_model_error_or_a_timeout_after_a_failure_stays_an_error():
    for kind in ("CaseTimeout", "ModelUnavailable"):
        last = _attempt(2, "error", kind, "no answer")
        assert final_result([_attempt(1, *FAILED), last]).status == "error"
    assert final_result([_attempt(1, *LOST)]).status == "error"


def test_junit_and_allure_report_the_failure_and_the_lost_retry(tmp_path):
    summary = RunSummary(run_id="r", started="", cases=[_verdict()])
    summary.recount()
    case = ET.fromstring(build_junit(summary)).find("./testsuite/testcase")
    assert [e.tag for e in case if e.tag != "system-out"] == ["failure"]
    assert "attempt 2 was lost to a device error: DeviceLost" in case.find("failure").text
    write_allure(summary, tmp_path, tmp_path / "al")
    results = [json.loads(p.read_text()) for p in (tmp_path / "al").glob("*-result.json")]
    assert [r["status"] for r in results] == ["failed"]
    assert ("later attempt 2 error: DeviceLost: browser-2: the browser process died"
            in results[0]["statusDetails"]["message"])
