"""The end of a run says why cases were skipped, as it says why they failed. On CI (--no-progress)
a mistyped target with no model configured is a skip ("needs a model …"), and the log's only
line was "farm: 1 skipped in 7.7s": green, saying nothing. A retried failure says so too."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.run_console import print_end

NO_MATCH = 'needs a model (set FARM_MODEL): no zero-token match for "Frobnicate" on screen'


def _case(cid: str, status: str, reason: str | None = None, **kw) -> CaseResult:
    return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml", line=3,
                      platform="web", device="browser-1", status=status, reason=reason, **kw)


def _end(*cases: CaseResult, tmp_path: Path, **kw) -> list[str]:
    summary = RunSummary(run_id="r1", started="", duration=7.7, cases=list(cases), **kw)
    summary.recount()
    out = io.StringIO()
    print_end(summary, tmp_path, out)
    return out.getvalue().splitlines()


def test_a_skipped_case_says_why_at_the_end_of_the_run(tmp_path: Path):
    step = StepRecord(task="t", index=2, kind="aiTap", label='aiTap "Frobnicate"', line=9,
                      status="skipped")
    lines = _end(_case("typo", "skipped", NO_MATCH, steps=[step]), tmp_path=tmp_path)
    assert lines == [f"SKIPPED s/typo (s/typo.yaml:3) — {NO_MATCH}",     # its first step's
                     "farm: 1 skipped in 7.7s (run r1)",
                     "farm: 1 case(s) skipped (exit 0): --fail-on-skip makes a skip fail the "
                     "run"]


def test_cases_skipped_for_one_reason_share_a_line(tmp_path: Path):
    ai = "needs a model (set FARM_MODEL): ai at line 7"
    cases = [_case(f"t{i}", "skipped", NO_MATCH) for i in range(1, 8)]
    lines = _end(_case("ok", "passed"), *cases[:3], _case("ai", "skipped", ai), *cases[3:],
                 _case("bad", "failed", error=CaseError(kind="AssertionFailed", step=1,
                                                        message="Total is not on screen")),
                 tmp_path=tmp_path)
    assert lines[:2] == [
        f"SKIPPED 7 cases (s/t1, s/t2, s/t3, s/t4, s/t5 and 2 more) — {NO_MATCH}",
        f"SKIPPED s/ai (s/ai.yaml:3) — {ai}"]
    # the failures end nearest the tally, as before
    assert lines[2:4] == ["FAILED s/bad (s/bad.yaml:3) — step 1: Total is not on screen",
                          "farm: 1 passed, 1 failed, 8 skipped in 7.7s (run r1)"]


def test_many_reasons_are_capped_as_failures_are(tmp_path: Path):
    cases = [_case(f"c{i:02}", "skipped", f"needs a model: target {i}") for i in range(25)]
    lines = _end(*cases, tmp_path=tmp_path)
    assert len([x for x in lines if x.startswith("SKIPPED ")]) == 20
    assert "... and 5 more skipped: see the report" in lines


def test_cases_a_stop_left_unrun_are_counted_once_not_listed(tmp_path: Path):
    """--maxfail, Ctrl-C and the model budget each have their line "N case(s) not run
    (counted as skipped)": the same cases are not listed again as skips of their own."""
    interrupted = "not run: the run was interrupted"
    lines = _end(_case("bad", "failed"), _case("ai", "skipped", NO_MATCH),
                 _case("m1", "skipped", "not run: --maxfail 1 reached"),
                 _case("i1", "skipped", interrupted), _case("i2", "skipped", interrupted),
                 _case("b1", "skipped", "not run: the model budget --max-model-cost 1 is spent"),
                 _case("unit", "skipped", "not run: the batch's setup file s/login.yaml failed"),
                 tmp_path=tmp_path, interrupted=True,
                 stopped="the model budget --max-model-cost 1 is spent")
    skips = [x for x in lines if x.startswith("SKIPPED")]
    assert skips == [f"SKIPPED s/ai (s/ai.yaml:3) — {NO_MATCH}",
                     "SKIPPED s/unit (s/unit.yaml:3) — not run: the batch's setup file "
                     "s/login.yaml failed"]
    assert "farm: stopped after 1 failed case(s) (--maxfail 1): 1 case(s) not run " \
           "(counted as skipped)" in lines
    assert "farm: interrupted: 2 case(s) not run (counted as skipped)" in lines
    assert "farm: the model budget --max-model-cost 1 is spent: 1 case(s) not run" in lines


def test_a_retried_failure_says_how_many_attempts_it_had(tmp_path: Path):
    error = CaseError(kind="AssertionFailed", step=2, message='expected "Bananas" not on screen')
    first = _case("notfound", "failed", error=error)
    last = _case("notfound", "failed", error=error, attempt=2, previous=[first])
    lines = _end(last, _case("once", "failed", error=error), tmp_path=tmp_path)
    assert lines[:2] == [
        'FAILED s/notfound (s/notfound.yaml:3) after 2 attempts — step 2: expected "Bananas" '
        "not on screen",
        'FAILED s/once (s/once.yaml:3) — step 2: expected "Bananas" not on screen']


@pytest.mark.parametrize("statuses, what", [(("error",), "errored"),
                                            (("failed", "error"), "failed or errored")])
def test_a_maxfail_stop_by_an_error_is_not_called_a_failure(tmp_path: Path, statuses, what):
    """-x stopped by a timed-out (errored) case said "stopped after 1 failed case(s)"."""
    bad = [_case(f"bad{i}", status) for i, status in enumerate(statuses)]
    limit = len(statuses)
    lines = _end(*bad, _case("m1", "skipped", f"not run: --maxfail {limit} reached"),
                 tmp_path=tmp_path)
    assert f"farm: stopped after {limit} {what} case(s) (--maxfail {limit}): 1 case(s) not " \
           "run (counted as skipped)" in lines
