"""The history page's "Unstable across runs" table counts status changes between runs' final
statuses (never the attempts inside a run: at most runs - 1), and says so in its column; its
headline says when the line's last point is an interrupted run (how many of its cases
finished), with the last complete run's rate beside it."""

from __future__ import annotations

import re
from pathlib import Path

from farm.report.history_page import render_history
from farm.report.trends import analyse, flaky_ranking
from farm.results_history import Attempt, CaseRecord, RunRecord


def _rec(run_id: str, day: int, statuses: dict[str, str], interrupted: bool = False
         ) -> RunRecord:
    cases = []
    for cid, status in statuses.items():
        attempts = [Attempt(status="failed", device="browser-1",
                            error="AssertionFailed: no")] if status == "flaky" else []
        cases.append(CaseRecord(case_id=cid, status=status, duration=1.0, device="browser-1",
                                error="AssertionFailed: no" if status == "failed" else None,
                                attempts=attempts))
    return RunRecord(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00",
                     at=float(day), cases=cases, interrupted=interrupted)


def test_status_changes_are_between_runs_never_more_than_runs_minus_one():
    """A case flaky in both of its 2 runs was ranked with 3 status changes (each run's failed
    attempt and its pass counted as changes)."""
    runs = [_rec("r1", 1, {"s/twice": "flaky", "s/mix": "flaky", "s/blink": "passed"}),
            _rec("r2", 2, {"s/twice": "flaky", "s/mix": "failed", "s/blink": "failed"}),
            _rec("r3", 3, {"s/twice": "passed", "s/mix": "failed", "s/blink": "passed"}),
            _rec("r4", 4, {"s/twice": "passed", "s/mix": "passed", "s/blink": "failed"})]
    ranked = {f.case_id: f for f in analyse(runs).flaky}
    assert ranked["s/twice"].flips == 1         # flaky, flaky, passed, passed
    assert ranked["s/mix"].flips == 2           # flaky, failed, failed, passed
    assert ranked["s/blink"].flips == 3         # passed, failed, passed, failed
    assert all(f.flips <= f.runs - 1 for f in ranked.values())
    two = flaky_ranking({"s/a": ["flaky", "flaky"]}, {"s/a": (runs[0], runs[0].cases[0])},
                        {"s/a": "a"})
    assert [(f.runs, f.flips, f.flaky) for f in two] == [(2, 0, 2)]


def test_status_changes_column_says_what_it_counts(tmp_path: Path):
    runs = [_rec("r1", 1, {"s/a": "flaky"}), _rec("r2", 2, {"s/a": "flaky"})]
    html = render_history(runs, tmp_path)
    assert ">Status changes between runs<" in html
    ranking = html[html.index('<section id="flaky">'):]
    row = ranking[ranking.index('<tr data-case="s/a">'):]
    assert re.match(r'<tr data-case="s/a"><td class="n">1<td>.*?<td class="n">0 · 2 / 2'
                    r'<td class="n">0<', row), row[:400]


def test_headline_says_the_last_point_was_interrupted_and_gives_the_last_complete_run(
        tmp_path: Path):
    whole = {f"s/c{i}": "passed" for i in range(10)} | {"s/bad": "failed"}
    cut = {f"s/c{i}": ("passed" if i < 3 else "skipped") for i in range(10)} | \
        {"s/bad": "failed"}
    runs = [_rec("r1", 1, whole), _rec("r2", 2, cut, interrupted=True)]
    html = render_history(runs, tmp_path)
    line = re.search(r'<p class="chart-legend" id="latest-rate">(.*?)</p>', html).group(1)
    assert line == ("The line's last point: 75.0% of 4 case(s), run r2 (interrupted: 4 of "
                    "its 11 case(s) finished); the last complete run: 90.9% of 11 case(s), "
                    "run r1; hover a point for its run."), line
    html = render_history(runs[:1], tmp_path)
    line = re.search(r'<p class="chart-legend" id="latest-rate">(.*?)</p>', html).group(1)
    assert line == "The line's last point: 90.9% of 11 case(s), run r1; hover a point for its run."
