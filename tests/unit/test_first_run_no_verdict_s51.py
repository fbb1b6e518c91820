"""A first run has no verdicts: nothing to compare with. A first night's failures were all
"new failures" on a CI runner's clean workspace; and a night after a first one that finished
no case (stopped in its first seconds, or every case skipped) is a first run too. After a run
that finished cases, a case new to the suite that fails is a new failure, as before."""

from __future__ import annotations

from farm.results_history import CaseRecord, RunRecord, since_last
from farm.results import CaseError, CaseResult, RunSummary


def _failed(case_id: str) -> CaseResult:
    return CaseResult(run_id="now", case_id=case_id, name=case_id, file=f"{case_id}.yaml",
                      platform="web", status="failed", attempt=1, device="browser-1",
                      error=CaseError(kind="AssertionFailed", message="no 'Total'", step=1))


def _run(run_id: str, *cases: tuple[str, str]) -> RunRecord:
    return RunRecord(run_id=run_id, started="", cases=[CaseRecord(case_id=c, status=s)
                                                       for c, s in cases])


NOW = RunSummary(run_id="now", started="", cases=[_failed("s/a"), _failed("s/b")])


def test_a_first_run_has_no_verdicts_s51() -> None:
    assert since_last([], NOW) == {}
    assert since_last([_run("now", ("s/a", "failed"))], NOW) == {}   # (its own record)


def test_runs_before_that_finished_no_case_leave_it_a_first_run_s51() -> None:
    stopped = _run("r0", ("s/a", "interrupted"), ("s/b", "skipped"))
    assert since_last([stopped], NOW) == {}


def test_after_a_run_that_finished_cases_a_new_case_is_a_new_failure_s51() -> None:
    assert since_last([_run("r0", ("s/a", "failed"))], NOW) == {
        "s/a": "still failing", "s/b": "new failure"}
