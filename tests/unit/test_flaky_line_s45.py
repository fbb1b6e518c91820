"""A flaky case's file:line is where its failed attempt failed: junit.xml, farm.log's FLAKY
line and the report's header said the failing step (:18) while results.json's ``line`` was its
passing attempt's first step (:9)."""

from __future__ import annotations

from farm.results import CaseResult, final_result


def _attempt(n: int, status: str, line: int) -> CaseResult:
    return CaseResult(run_id="r1", case_id="s/sync", name="sync", file="s/sync.yaml", line=line,
                      platform="web", device="browser-1", status=status, attempt=n)


def test_a_flaky_case_s_line_is_the_step_its_failed_attempt_failed_at():
    case = final_result([_attempt(1, "failed", 18), _attempt(2, "passed", 9)])
    assert (case.status, case.line) == ("flaky", 18)


def test_a_case_that_passed_first_time_keeps_its_first_step_s_line():
    case = final_result([_attempt(1, "passed", 9)])
    assert (case.status, case.line) == ("passed", 9)
