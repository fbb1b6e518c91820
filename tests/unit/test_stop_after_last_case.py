"""A stop signal that comes after the last case has ended (a CI runner's SIGTERM as the run
writes its last result): nothing was cut short, so the run is whole. It exited 2 under
"farm: 1 passed", and its report and results.json said "interrupted" over a complete run."""

from __future__ import annotations

import time

import pytest

from farm.executors.base import RunOutcome
from farm.results import NOT_RUN_INTERRUPTED, CaseResult
from farm.session import _summary


def _case(case_id: str, status: str, reason: str | None = None) -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=case_id, file=f"{case_id}.yaml",
                      platform="web", device="browser-1", status=status, reason=reason)


@pytest.mark.parametrize("cases,interrupted,code", [
    ([_case("s/a", "passed"), _case("s/b", "passed")], False, 0),     # the stop came late
    ([_case("s/a", "passed"), _case("s/b", "failed")], False, 1),
    ([_case("s/a", "passed"), _case("s/b", "skipped", "skip: not on CI")], False, 0),
    ([_case("s/a", "passed"), _case("s/b", "interrupted")], True, 2),  # it cut one short
    ([_case("s/a", "passed"), _case("s/b", "skipped", NOT_RUN_INTERRUPTED[0])], True, 2),
])
def test_a_stop_interrupts_the_run_only_when_it_cut_a_case_short(cases, interrupted, code):
    summary = _summary("r1", time.monotonic(), cases, RunOutcome(results=cases,
                                                                  interrupted=True))
    assert (summary.interrupted, summary.exit_code) == (interrupted, code)


def test_a_late_stop_takes_back_what_it_said_on_stderr(tmp_path):
    """The signal's "stopping; in-flight cases end interrupted" stood over "2 passed" and
    exit 0: the end of the run now says the stop cut nothing short, and why the code is 0."""
    import io

    from farm.run_console import print_end
    cases = [_case("s/a", "passed"), _case("s/b", "passed")]
    outcome = RunOutcome(results=cases, interrupted=True)
    summary = _summary("r1", time.monotonic(), cases, outcome)
    out = io.StringIO()
    print_end(summary, tmp_path, out, warnings=outcome.warnings)
    assert out.getvalue().splitlines()[0] == (
        "farm: warning: the stop came after the last case had ended: no case was cut short, "
        "so the run is not interrupted and its exit code is its results'")
    cut = [_case("s/a", "passed"), _case("s/b", "interrupted")]
    outcome = RunOutcome(results=cut, interrupted=True)
    _summary("r1", time.monotonic(), cut, outcome)
    assert outcome.warnings == []


def test_a_run_nobody_stopped_is_not_interrupted():
    cases = [_case("s/a", "interrupted")]    # (a case's own interruption is still exit 2)
    summary = _summary("r1", time.monotonic(), cases, RunOutcome(results=cases))
    assert (summary.interrupted, summary.exit_code) == (False, 2)
