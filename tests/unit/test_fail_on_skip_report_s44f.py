"""A run --fail-on-skip made red (exit 1, no case failed) says so beyond the console: the
report's header carries a banner over its "100.0% pass rate", and farm.log a line, so a red CI
job whose report looks green can be told apart from one whose report is stale."""

from __future__ import annotations

import logging
import time

from farm.executors.base import RunOutcome
from farm.report.html import render_html
from farm.results import CaseResult
from farm.session import _summary

NEEDS_MODEL = "needs a model (set FARM_MODEL): aiAssert at line 9"


def _cases() -> list[CaseResult]:
    def case(cid: str, status: str, reason: str | None = None) -> CaseResult:
        return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                          platform="web", status=status, reason=reason, device="browser-1")
    return [case("ok", "passed"), case("ai1", "skipped", NEEDS_MODEL),
            case("ai2", "skipped", NEEDS_MODEL)]


def test_the_report_of_a_run_failed_by_its_skips_says_so(caplog):
    with caplog.at_level(logging.INFO, logger="farm"):
        summary = _summary("r1", time.monotonic(), _cases(), RunOutcome(results=[]),
                           fail_on_skip=True)
    assert summary.exit_code == 1
    page = render_html(summary)
    assert ("This run failed: 2 skipped case(s) with --fail-on-skip (exit 1).</p>") in page
    assert "This run failed: 2 skipped case(s) with --fail-on-skip (exit 1)" in caplog.text


def test_a_run_with_skips_that_passed_has_no_banner(caplog):
    with caplog.at_level(logging.INFO, logger="farm"):
        summary = _summary("r1", time.monotonic(), _cases(), RunOutcome(results=[]))
    assert summary.exit_code == 0
    assert "This run failed" not in render_html(summary)
    assert "fail-on-skip" not in caplog.text


def test_a_run_failed_by_a_case_says_its_skips_fail_it_too():
    """Its skips are said though a case failed it already: fixing the failure must not leave
    the job red the next night without warning (the j-shard CI engineer's run)."""
    cases = _cases()
    cases[0].status = "failed"
    summary = _summary("r1", time.monotonic(), cases, RunOutcome(results=[]), fail_on_skip=True)
    assert summary.exit_code == 1
    assert "2 skipped case(s) with --fail-on-skip" in render_html(summary)
