"""A case that failed and, on its retry, was skipped (it reached a step that needs a model,
none being set) failed: its run said "1 skipped" and exited 0, the failure hidden as a skip
(as a retry that never ran no longer hides it: `Ledger.end`)."""

from __future__ import annotations

from farm.results import CaseError, CaseResult, exit_code_for, final_result

NEEDS_MODEL = "needs a model (set FARM_MODEL): ai at line 8"


def _attempt(n: int, status: str) -> CaseResult:
    error = CaseError(kind="StepFailed", message="javascript error: total is wrong", step=1) \
        if status == "failed" else None
    return CaseResult(run_id="r", case_id="s/pay", name="pay", file="s/pay.yaml",
                      platform="web", device="browser-1", attempt=n, status=status,
                      error=error, reason=NEEDS_MODEL if status == "skipped" else None,
                      started=f"2026-12-04T10:00:0{n}+00:00", duration=0.5)


def test_a_failure_then_a_skip_on_the_retry_is_a_failure_with_every_attempt_kept():
    verdict = final_result([_attempt(1, "failed"), _attempt(2, "failed"), _attempt(3, "skipped")])
    assert verdict.status == "failed" and verdict.attempt == 2
    assert verdict.error is not None and verdict.error.message.endswith("total is wrong")
    assert [(a.attempt, a.status) for a in verdict.previous] == [(1, "failed"), (3, "skipped")]
    assert verdict.reason is not None and "attempt 3 was skipped" in verdict.reason
    assert NEEDS_MODEL in verdict.reason
    assert exit_code_for([verdict]) == 1


def test_a_skip_after_a_device_error_or_alone_stays_a_skip():
    assert final_result([_attempt(1, "skipped")]).status == "skipped"
    assert final_result([_attempt(1, "error"), _attempt(2, "skipped")]).status == "skipped"
    flaky = final_result([_attempt(1, "failed"), _attempt(2, "passed")])
    assert flaky.status == "flaky" and [a.attempt for a in flaky.previous] == [1]


def test_the_timeline_marks_as_retried_the_attempts_a_later_one_followed():
    from farm.report.timeline import render_timeline
    from farm.results import RunSummary
    verdict = final_result([_attempt(1, "failed"), _attempt(2, "failed"), _attempt(3, "skipped")])
    html = render_timeline(RunSummary(run_id="r", started="", cases=[verdict]))
    assert "(attempt 1, retried)" in html and "(attempt 2, retried)" in html
    assert "(attempt 3, retried)" not in html and "(attempt 3)" in html


def test_allure_shows_the_failure_as_the_test_s_result_and_names_the_later_skip(tmp_path):
    import json

    from farm.report.allure import write_allure
    from farm.results import RunSummary
    verdict = final_result([_attempt(1, "failed"), _attempt(2, "failed"), _attempt(3, "skipped")])
    write_allure(RunSummary(run_id="r", started="", cases=[verdict]), tmp_path, tmp_path / "al")
    results = [json.loads(p.read_text()) for p in (tmp_path / "al").glob("*-result.json")]
    # Allure takes the latest attempt as the test's result: no later skip may outdate it
    latest = max(results, key=lambda r: r["start"])
    assert [r["status"] for r in results].count("skipped") == 0
    assert latest["status"] == "failed"
    assert "later attempt 3 skipped: " + NEEDS_MODEL in latest["statusDetails"]["message"]


def test_the_report_lists_the_later_skip_among_the_other_attempts():
    from farm.report.html import render_html
    from farm.results import RunSummary
    verdict = final_result([_attempt(1, "failed"), _attempt(2, "failed"), _attempt(3, "skipped")])
    summary = RunSummary(run_id="r", started="", cases=[verdict])
    summary.recount()
    html = render_html(summary)
    assert "<b>attempt 2</b> (500 ms) — other attempts:" in html
    assert "earlier attempts" not in html
    assert "attempt 3 skipped on browser-1 (500 ms): " + NEEDS_MODEL in html


def test_junit_has_no_rerun_failure_for_the_later_skip_and_names_it_in_the_failure():
    """The retry that was skipped did not fail: CI counted it as a <rerunFailure> (a case
    that failed on its retry too). Its earlier failed retry stays one; the skip is said in the
    failure's body, as the case's reason says it."""
    import xml.etree.ElementTree as ET

    from farm.report.junit import build_junit
    from farm.results import RunSummary
    verdict = final_result([_attempt(1, "failed"), _attempt(2, "failed"), _attempt(3, "skipped")])
    summary = RunSummary(run_id="r", started="", cases=[verdict])
    summary.recount()
    case = ET.fromstring(build_junit(summary)).find("./testsuite/testcase")
    assert [e.tag for e in case if e.tag != "system-out"] == ["failure", "rerunFailure"]
    assert "attempt 1 failed" in case.find("rerunFailure").get("message")
    assert f"attempt 3 was skipped: {NEEDS_MODEL}" in case.find("failure").text
