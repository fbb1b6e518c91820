"""The results history keeps its newest runs and drops older ones as a run is added: a farm
running every few minutes grew `.farm/results.sqlite` (and Redis, ~2.4 KB a run) without end."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from farm.results import CaseResult, RunSummary
from farm.results_history import CONTEXT_MAX, KEEP_RUNS, SqliteResults, record_for

START = datetime(2026, 12, 1, 2, 0, tzinfo=timezone.utc)


def run(n: int) -> RunSummary:
    at = (START + timedelta(minutes=10 * n)).isoformat()
    case = CaseResult(run_id=f"r{n:03d}", case_id="demo/login", name="login", file="login.yaml",
                      platform="web", device="browser-1", status="passed", started=at,
                      duration=1.0)
    summary = RunSummary(run_id=f"r{n:03d}", started=at, cases=[case])
    summary.recount()
    return summary


def test_the_sqlite_history_keeps_its_newest_runs(tmp_path):
    store = SqliteResults(tmp_path / "results.sqlite", keep=5)
    for n in range(8):
        store.add(record_for(run(n)))
    assert [r.run_id for r in store.runs()] == ["r003", "r004", "r005", "r006", "r007"]
    con = sqlite3.connect(tmp_path / "results.sqlite")
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (5,)
    con.close()


def test_runs_added_at_once_out_of_order_keep_the_newest(tmp_path):
    store = SqliteResults(tmp_path / "results.sqlite", keep=3)
    store.add_many(record_for(run(n)) for n in (6, 1, 7, 0, 5))
    assert [r.run_id for r in store.runs()] == ["r005", "r006", "r007"]


def test_the_default_keeps_many_times_what_a_verdict_reads():
    assert KEEP_RUNS >= 4 * CONTEXT_MAX


def test_farm_results_history_keep_sets_how_many_and_0_keeps_all(tmp_path, monkeypatch):
    from farm.config import load_settings
    from farm.results_history import open_results
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FARM_RESULTS_HISTORY_KEEP", "2")
    store = open_results(load_settings())
    for n in range(4):
        store.add(record_for(run(n)))
    assert [r.run_id for r in store.runs()] == ["r002", "r003"]
    monkeypatch.setenv("FARM_RESULTS_HISTORY_KEEP", "0")
    store = open_results(load_settings())
    for n in range(4, 8):
        store.add(record_for(run(n)))
    assert len(store.runs()) == 6
