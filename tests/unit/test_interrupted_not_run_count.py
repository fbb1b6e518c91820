"""After Ctrl-C, the cases the run never started are listed as skipped: the console's end and
the report's banner say how many of the skips are that, so "8 skipped" does not read as eight
cases that skipped themselves (needs a model) when six never ran."""

from __future__ import annotations

import io
from pathlib import Path

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary
from farm.run_console import print_end

INTERRUPTED = "not run: the run was interrupted"


def _stopped_run(interrupted: bool = True) -> RunSummary:
    def case(cid: str, status: str, reason: str | None = None) -> CaseResult:
        return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                          platform="web", status=status, reason=reason,
                          device=None if reason == INTERRUPTED else "browser-1")
    cases = [case("ok", "passed"), case("slow", "interrupted", "interrupted: the run was stopped"),
             case("ai", "skipped", "needs a model (set FARM_MODEL): aiAssert at line 9"),
             case("later1", "skipped", INTERRUPTED), case("later2", "skipped", INTERRUPTED),
             case("cut", "skipped", "not run: --maxfail 1 reached")]     # said apart
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", duration=3.0,
                         cases=cases, interrupted=interrupted)
    summary.recount()
    return summary


def test_the_console_says_how_many_cases_the_interrupt_left_unrun(tmp_path: Path):
    out = io.StringIO()
    print_end(_stopped_run(), tmp_path, out)
    lines = out.getvalue().splitlines()
    assert "farm: interrupted: 2 case(s) not run (counted as skipped)" in lines
    assert lines[lines.index("farm: interrupted: 2 case(s) not run (counted as skipped)")
                 + 1].startswith("farm: 1 passed, 4 skipped, 1 interrupted in ")


def test_the_report_banner_says_how_many_cases_the_interrupt_left_unrun():
    page = render_html(_stopped_run())
    assert ('<p class="banner">Run interrupted — results are partial: 2 case(s) not run '
            '(counted as skipped).</p>') in page


def test_a_run_that_was_not_interrupted_says_nothing_of_it(tmp_path: Path):
    out = io.StringIO()
    run = _stopped_run(interrupted=False)
    run.cases = [c for c in run.cases if c.status != "interrupted"]
    run.recount()
    print_end(run, tmp_path, out)
    assert "interrupted" not in out.getvalue()
    assert "Run interrupted" not in render_html(run)


def test_a_killed_run_rebuilt_from_its_journal_counts_its_unstarted_cases_too():
    from farm.journal import NOT_STARTED
    run = _stopped_run()
    for case in run.cases:
        if case.reason == INTERRUPTED:
            case.reason = NOT_STARTED
    assert "2 case(s) not run (counted as skipped)" in render_html(run)
