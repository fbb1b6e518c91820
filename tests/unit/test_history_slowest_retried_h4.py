"""The history page's slowest cases compare a case's runs like with like: a night it passed
on a retry (two 10 s attempts) showed "last 20 s, +100 %", a slowdown that was none, because
a retried case's duration is the sum of its attempts. Its sample is now its last attempt's
own time, as the durations history (longest-first) keeps it."""

from __future__ import annotations

from pathlib import Path

from farm.report.history_page import render_history
from farm.report.trends import analyse
from farm.results import CaseResult, RunSummary, summed
from farm.results_history import RunRecord, record_for


def _attempt(run: str, status: str, seconds: float, attempt: int = 1) -> CaseResult:
    return CaseResult(run_id=run, case_id="shop/checkout", name="Checkout", file="c.yaml",
                      platform="web", device="browser-1", attempt=attempt, status=status,
                      started="2026-12-01T02:00:00+00:00", duration=seconds)


def _night(day: int, *attempts: CaseResult) -> RunRecord:
    final = attempts[-1].model_copy(update={"previous": list(attempts[:-1])})
    summary = RunSummary(run_id=f"r{day}", started=f"2026-12-{day:02d}T02:00:00+00:00",
                         cases=[summed(final)])
    summary.recount()
    return record_for(summary)


def test_a_night_that_passed_on_a_retry_is_no_slowdown(tmp_path: Path):
    runs = [_night(1, _attempt("r1", "passed", 10.0)), _night(2, _attempt("r2", "passed", 10.0)),
            _night(3, _attempt("r3", "failed", 10.0), _attempt("r3", "flaky", 10.0, 2))]
    assert runs[-1].cases[0].duration == 20.0       # the run's own record: both attempts
    (slow,) = analyse(runs).slowest
    assert (slow.median, slow.last, slow.change, slow.samples) == (10.0, 10.0, 0.0,
                                                                   [10.0, 10.0, 10.0])
    html = render_history(runs, tmp_path)
    row = html[html.index('id="slowest"'):].split("</tr>")[0]
    assert "+0%" in row and "+100%" not in row
