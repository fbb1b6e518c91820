"""--fail-on-skip on a run that also failed: its skips were said nowhere (no RunFailedOnSkip
case in the junit, no console line, no report banner), exit 1 coming from the failure; once
the failure was fixed the job turned red the next night for the skips, a surprise. Now the
junit, the console and the report say the skips fail the run too (exit stays 1)."""

from __future__ import annotations

import io
import json
import time

from farm.executors.base import RunOutcome
from farm.report.html import render_html
from farm.report.junit import build_junit
from farm.results import CaseResult
from farm.run_console import print_end
from farm.session import _summary

NEEDS_MODEL = "needs a model (set FARM_MODEL): aiAssert at line 9"


def _cases(maxfail: bool = False) -> list[CaseResult]:
    def case(cid: str, status: str, reason: str | None = None) -> CaseResult:
        return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                          platform="web", status=status, reason=reason, device="browser-1")
    cases = [case("shopping", "failed"), case("g09", "skipped", NEEDS_MODEL)]
    if maxfail:
        cases.append(case("later", "skipped", "not run: --maxfail 1 reached"))
    return cases


def _end(summary, tmp_path) -> str:
    out = io.StringIO()
    print_end(summary, tmp_path, out, fail_on_skip=summary.fail_on_skip)
    return out.getvalue()


def test_a_failed_runs_skips_are_said_to_fail_it_too(tmp_path):
    summary = _summary("r1", time.monotonic(), _cases(maxfail=True), RunOutcome(results=[]),
                       fail_on_skip=True)
    assert summary.exit_code == 1
    junit = build_junit(summary)
    run_case = junit.split('<testcase name="run" classname="farm"')[1].split("</testcase>")[0]
    assert 'type="RunFailedOnSkip">' in run_case
    assert "farm run r1 failed (exit 1): 1 case(s) were skipped under --fail-on-skip" in run_case
    assert "skipped:\n  s/g09</error>" in run_case     # (not the --maxfail stop's s/later)
    end = _end(summary, tmp_path)
    assert "farm: 1 skipped case(s) fail this run too (--fail-on-skip): exit 1" in end
    assert "This run failed: 1 skipped case(s) with --fail-on-skip (exit 1)" in \
           render_html(summary)
    assert json.loads(summary.model_dump_json())["fail_on_skip"] is True


def test_without_fail_on_skip_a_failed_run_says_nothing_of_its_skips(tmp_path):
    summary = _summary("r1", time.monotonic(), _cases(), RunOutcome(results=[]))
    assert summary.exit_code == 1
    assert "RunFailedOnSkip" not in build_junit(summary)
    assert "fail this run" not in _end(summary, tmp_path)
    assert "This run failed:" not in render_html(summary)
    assert "fail_on_skip" not in json.loads(summary.model_dump_json())


def test_a_failed_run_whose_only_skips_are_a_maxfail_stops_has_no_skip_failure(tmp_path):
    cases = [c for c in _cases(maxfail=True) if c.case_id != "s/g09"]
    summary = _summary("r1", time.monotonic(), cases, RunOutcome(results=[]),
                       fail_on_skip=True)
    assert "RunFailedOnSkip" not in build_junit(summary)
    assert "fail this run" not in _end(summary, tmp_path)
