"""A failed case whose retry never ran (--maxfail reached, the model budget spent, farm killed
before it) carries why in its reason beside its error ("not retried: …"). report.html showed a
case's reason only when it had no error, and Allure's message only its error: a run with
--retries 2 listed the case failed on attempt 1, nothing saying why it was not retried."""

from __future__ import annotations

import json
from pathlib import Path

from farm.report.allure import write_allure
from farm.report.html import render_html
from farm.results import CaseError, CaseResult, RunSummary

WHY = "not retried: the model budget is spent"


def _summary() -> RunSummary:
    case = CaseResult(run_id="r", case_id="demo/pay", name="Pay", file="demo/pay.yaml",
                      platform="web", device="browser-1", status="failed",
                      started="2026-12-05T04:00:00+00:00", duration=2.0,
                      error=CaseError(kind="TestFailure", message="no 'Paid' on the page",
                                      step=3), reason=WHY)
    summary = RunSummary(run_id="r", started="", cases=[case])
    summary.recount()
    return summary


def test_the_report_says_why_a_failed_case_was_not_retried() -> None:
    page = render_html(_summary())
    assert f'<p class="reason"><b>Note:</b> {WHY}</p>' in page
    assert "TestFailure: no &#x27;Paid&#x27; on the page</pre>" in page


def test_allure_s_message_says_why_a_failed_case_was_not_retried(tmp_path: Path) -> None:
    write_allure(_summary(), tmp_path, tmp_path / "allure")
    [result] = [json.loads(p.read_text(encoding="utf-8"))
                for p in (tmp_path / "allure").glob("*-result.json")]
    assert result["statusDetails"]["message"] == (
        f"TestFailure: no 'Paid' on the page\n{WHY}")
