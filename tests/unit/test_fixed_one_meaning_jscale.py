"""*fixed* means one thing everywhere (README, History): a pass after red of a case neither
red nor flaky before that red streak in its window (a regression mended: green, red, green).
A pass after red of a case that went back and forth before (red, green, red, green) is
*unstable across runs*, never fixed: in `classify`, results.json's since_last, the console's
tally, report.html's header and the history page's FIXED column alike."""

from __future__ import annotations

from pathlib import Path

from farm.report.history_page import render_history
from farm.report.html import render_html
from farm.report.trends import analyse
from farm.results import CaseResult, RunSummary
from farm.results_history import classify, record_for, since_last
from farm.run_console import summary_line

WINDOW = 10      # farm.results_history.WINDOW, as the README says it


def _summary(run_id: str, day: int, statuses: dict[str, str]) -> RunSummary:
    cases = [CaseResult(run_id=run_id, case_id=cid, name=cid, file=f"{cid}.yaml", line=3,
                        platform="web", device="browser-1", status=status,
                        started=f"2026-01-{day:02d}T02:00:00+00:00")
             for cid, status in statuses.items()]
    s = RunSummary(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00", duration=5.0,
                   cases=cases)
    s.recount()
    return s


def test_classify_calls_a_pass_fixed_only_when_it_ends_the_only_red_streak():
    assert classify(["failed"], "passed") == "fixed"
    assert classify(["failed", "error", "failed"], "passed") == "fixed"
    assert classify(["passed"] * 9 + ["failed"], "passed") == "fixed"     # a regression mended
    assert classify(["passed", "failed", "failed"], "passed") == "fixed"
    # the j-scale flaky_03: fail, pass, pass, pass, fail, then passed
    assert classify(["failed", "passed", "passed", "passed", "failed"], "passed") == "unstable"
    assert classify(["flaky", "failed"], "passed") == "unstable"    # it passed on a retry before
    # the earlier red is older than the window: only this streak is in it
    assert classify(["failed"] + ["passed"] * (WINDOW - 1) + ["failed"], "passed") == "fixed"
    assert classify(["failed"] + ["passed"] * (WINDOW - 2) + ["failed"], "passed") == "unstable"
    assert classify(["failed", "passed"], "passed") is None
    # a night that skipped it or was cut short inside the red streak: still one regression
    assert classify(["passed", "failed", "interrupted", "failed"], "passed") == "fixed"
    assert classify(["passed", "failed", "skipped", "failed"], "passed") == "fixed"


def test_green_red_green_is_unstable_in_results_json_console_report_and_history(
        tmp_path: Path):
    """The j-scale nights: the console said ``28 passed (1 fixed)``, report.html ``1 fixed``,
    results.json ``fixed``, and the history page FIXED 0 for the same run."""
    nights = [_summary("r0", 1, {"s/flip": "failed", "s/fix": "passed", "s/ok": "passed"}),
              _summary("r1", 2, {"s/flip": "passed", "s/fix": "failed", "s/ok": "passed"}),
              _summary("r2", 3, {"s/flip": "failed", "s/fix": "failed", "s/ok": "passed"})]
    before = [record_for(n) for n in nights]
    now = _summary("r3", 4, {"s/flip": "passed", "s/fix": "passed", "s/ok": "passed"})
    verdicts = since_last(before, now)
    assert verdicts == {"s/flip": "unstable", "s/fix": "fixed"}
    for c in now.cases:
        c.since_last = verdicts.get(c.case_id)
    assert summary_line(now).startswith("farm: 3 passed (1 fixed) in")
    page = render_html(now)
    assert '<a href="#since=fixed"><b>1</b> fixed</a>' in page
    assert page.count('data-since="unstable"') == 1 and page.count('data-since="fixed"') == 1
    trends = analyse([*before, record_for(now)])
    assert trends.rows[-1].fixed == ["s/fix"]
    assert trends.rows[-1].unstable == ["s/flip"]
    html = render_history([*before, record_for(now)], tmp_path)
    newest = html[html.index('<tr data-run="r3"'):]
    newest = newest[:newest.index("<tr", 5)]
    assert 'title="s/fix">1<' in newest         # the FIXED column: what the console said
    assert 'title="s/flip">1<' in newest        # unstable across runs
