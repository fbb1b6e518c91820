"""Both iPhones dropped mid-run and came back; their cases passed on retries, and the run
ended `farm: 2 passed in 33.4s` (`lost` empty): the device errors were only in farm.log and
previous[]. The summary line says how many cases were retried after a device error; a test
failure's retry (flaky, "after 2 attempts") is not one."""

from __future__ import annotations

from farm.results import CaseError, CaseResult, RunSummary, final_result
from farm.run_console import summary_line


def _attempt(cid: str, n: int, status: str, kind: str = "") -> CaseResult:
    return CaseResult(run_id="r1", case_id=cid, name=cid, file=f"{cid}.yaml", platform="ios",
                      device=f"iphone-{n}", attempt=n, status=status,
                      error=CaseError(kind=kind, message="gone", step=6) if kind else None,
                      started="2026-12-07T00:00:00+00:00", duration=10.0)


def _summary(*cases: CaseResult) -> RunSummary:
    summary = RunSummary(run_id="r1", started="2026-12-07T00:00:00+00:00", duration=33.4,
                         cases=list(cases))
    summary.recount()
    return summary


def test_cases_retried_after_device_errors_are_counted():
    moved = [final_result([_attempt(c, 1, "error", "DeviceLost"), _attempt(c, 2, "passed")])
             for c in ("k/a", "k/b")]
    assert summary_line(_summary(*moved)) == \
        "farm: 2 passed in 33.4s; 2 retried after a device error (run r1)"


def test_a_test_retry_or_a_plain_run_says_nothing_more():
    flaky = final_result([_attempt("k/f", 1, "failed", "AssertionFailed"),
                          _attempt("k/f", 2, "passed")])
    assert summary_line(_summary(flaky, _attempt("k/p", 1, "passed"))) == \
        "farm: 1 passed, 1 flaky in 33.4s (run r1)"
