"""A red case's verdict (new failure / still failing / flaky) is decided against the case's own
earlier runs, however many runs of other suites came between (a shared results history: a
smoke suite every few minutes, a nightly suite once a night)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from farm.config import Settings
from farm.report.history_page import write_history
from farm.results import CaseError, CaseResult, RunSummary
from farm.results_history import SqliteResults, record_for, remember_run

START = datetime(2026, 12, 1, 2, 0, tzinfo=timezone.utc)


def _run(run_id: str, at: datetime, statuses: dict[str, str]) -> RunSummary:
    cases = [CaseResult(run_id=run_id, case_id=case_id, name=case_id, file=f"{case_id}.yaml",
                        platform="web", device="browser-1", status=status,
                        started=at.isoformat(), duration=1.0,
                        error=CaseError(kind="AssertionFailed", message="broke", step=1)
                        if status == "failed" else None)
             for case_id, status in statuses.items()]
    summary = RunSummary(run_id=run_id, started=at.isoformat(), cases=cases)
    summary.recount()
    return summary


def _history(tmp_path, nightly: dict[str, str], smoke_runs: int) -> SqliteResults:
    """One nightly run, then ``smoke_runs`` runs of another suite."""
    store = SqliteResults(tmp_path / "state" / "results.sqlite")
    store.add(record_for(_run("night-1", START, nightly)))
    for n in range(smoke_runs):
        at = START + timedelta(hours=1, minutes=10 * n)
        store.add(record_for(_run(f"smoke-{n:03d}", at, {"smoke/login": "passed"})))
    return store


@pytest.mark.parametrize("smoke_runs", [80, 260])
def test_a_case_red_last_night_is_still_failing_after_many_runs_of_another_suite(
        tmp_path, smoke_runs):
    _history(tmp_path, {"nightly/pay": "failed", "nightly/cart": "passed",
                        "nightly/flip": "flaky"}, smoke_runs=smoke_runs)
    tonight = _run("night-2", START + timedelta(days=1),
                   {"nightly/pay": "failed", "nightly/cart": "failed",
                    "nightly/flip": "failed"})
    remember_run(Settings(state_dir=tmp_path / "state"), tonight, tmp_path / "report.html")
    verdicts = {c.case_id: c.since_last for c in tonight.cases}
    assert verdicts == {"nightly/pay": "still failing", "nightly/cart": "new failure",
                        "nightly/flip": "unstable"}


def test_the_history_page_window_agrees_with_the_run_s_own_report(tmp_path):
    store = _history(tmp_path, {"nightly/pay": "failed"}, smoke_runs=80)
    now = datetime.now(timezone.utc)
    tonight = _run("night-2", now - timedelta(hours=1), {"nightly/pay": "failed"})
    store.add(record_for(tonight))
    html = write_history(store, tmp_path / "history.html", since="1d").read_text()
    assert "still failing" in html and "new failure" not in html
