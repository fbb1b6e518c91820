"""The history page's "Newest run: what changed" after a run that was interrupted: it must not
read as an all-clear for the cases the interruption kept from running."""

from __future__ import annotations

from farm.report.history_page import render_history
from farm.results_history import SqliteResults, record_for
from tests.unit.test_results_history import _interrupted, report_of, summary


def _latest_section(html: str) -> str:
    return html[html.index('<section id="latest">'):html.index('<section id="flaky">')]


def test_an_interrupted_newest_run_says_so_above_what_changed(tmp_path):
    """Night 1: a case fails. Night 2 is stopped after one passing case: the failing case never
    ran. The section says the run was interrupted, and the red case stays in it, as the last
    complete run left it ("as of r1"), not gone as if it had turned green."""
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(summary("r1", 1, {"demo/ok": "passed", "demo/bad": "failed"}),
                         report_of(tmp_path / "r1")))
    store.add(record_for(_interrupted("r2", 2, {"demo/ok": "passed", "demo/bad": "skipped"}),
                         report_of(tmp_path / "r2")))
    latest = _latest_section(render_history(store.runs(), tmp_path))
    assert ">interrupted</span>" in latest
    assert "It was interrupted: 1 case(s) finished in it; for the 1 case(s) below that it " \
           "did not finish, their state in the last complete run (" in latest
    assert '<tr data-case="demo/bad">' in latest
    assert "new failure<div class=\"carried\">as of r1: not finished in the newest run" in latest
    assert "nothing still failing" not in latest


def test_a_finished_newest_run_has_no_interruption_note(tmp_path):
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(_interrupted("r1", 1, {"demo/ok": "passed", "demo/bad": "skipped"}),
                         report_of(tmp_path / "r1")))
    store.add(record_for(summary("r2", 2, {"demo/ok": "passed", "demo/bad": "passed"}),
                         report_of(tmp_path / "r2")))
    latest = _latest_section(render_history(store.runs(), tmp_path))
    assert "interrupted" not in latest
    assert "nothing fixed.</p>" in latest
