"""Upgrading from a farm that predates the results history: the runs it left under
``<state dir>/runs`` (results.json as those versions wrote it) start the history, so a case
failing every night is "still failing" after the upgrade, not a "new failure", and
``farm report --history`` shows those runs instead of none."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from farm.results import RunSummary
from farm.results_history import SqliteResults, open_results, since_last


def _case(case_id: str, status: str, started: str) -> dict:
    """A case as a farm from before the results history wrote it in results.json (no
    device_info, no since_last)."""
    error = None if status == "passed" else {
        "kind": "TestFailure", "message": 'expected text "Total" is not on screen', "step": 1}
    return {"run_id": "x", "case_id": case_id, "name": case_id, "file": "demo/x.yaml",
            "line": 0, "platform": "web", "device": "browser-1", "attempt": 1,
            "status": status, "reason": None, "error": error, "started": started,
            "duration": 0.5, "steps": [], "screenshot": None, "previous": [], "tags": [],
            "tokens": {}, "usage": None, "data": {}}


def _old_run(state: Path, run_id: str, started: str, failing: str = "failed") -> Path:
    run_dir = state / "runs" / run_id
    run_dir.mkdir(parents=True)
    cases = [_case("demo/ok", "passed", started), _case("demo/bad", failing, started)]
    counts = {"interrupted": 0, "failed": 1, "error": 0, "flaky": 0, "skipped": 0,
              "passed": 1, "total": 2}
    (run_dir / "results.json").write_text(json.dumps({
        "run_id": run_id, "started": started, "finished": started, "duration": 1.0,
        "devices": ["browser-1"], "counts": counts, "exit_code": 1, "interrupted": False,
        "cases": cases, "farm_version": "0.1.0", "quarantined": [], "deselected": []}))
    (run_dir / "report.html").write_text("<html></html>")
    return run_dir


def _settings(state: Path) -> SimpleNamespace:
    return SimpleNamespace(results_history_url=None, broker_url=None, state_dir=state,
                           cluster_prefix="farm")


def test_runs_from_before_the_history_start_it(tmp_path, capsys):
    state = tmp_path / "state"
    _old_run(state, "20250101-020000-aaaa", "2025-01-01T02:00:00+00:00")
    _old_run(state, "20250102-020000-bbbb", "2025-01-02T02:00:00+00:00")
    runs = open_results(_settings(state)).runs()
    assert [r.run_id for r in runs] == ["20250101-020000-aaaa", "20250102-020000-bbbb"]
    assert runs[0].counts["passed"] == 1 and runs[0].cases[1].status == "failed"
    assert runs[1].report == str((state / "runs" / "20250102-020000-bbbb" /
                                  "report.html").resolve())
    assert "started with the 2 earlier run(s)" in capsys.readouterr().err
    # the first run after the upgrade: the case that failed every night is still failing
    now = RunSummary.model_validate({
        "run_id": "20250103-020000-cccc", "started": "2025-01-03T02:00:00+00:00",
        "cases": [_case("demo/bad", "failed", "2025-01-03T02:00:01+00:00")]})
    store = open_results(_settings(state))
    assert since_last(store.recent(50), now) == {"demo/bad": "still failing"}
    assert capsys.readouterr().err == ""        # imported once


def test_an_existing_history_is_not_imported_into(tmp_path):
    state = tmp_path / "state"
    _old_run(state, "20250101-020000-aaaa", "2025-01-01T02:00:00+00:00")
    SqliteResults(state / "results.sqlite").add_many([])   # a history already (empty)
    assert open_results(_settings(state)).runs() == []


def test_an_unreadable_results_json_is_left_out_and_counted(tmp_path, capsys):
    state = tmp_path / "state"
    _old_run(state, "20250101-020000-aaaa", "2025-01-01T02:00:00+00:00")
    torn = state / "runs" / "20250102-020000-bbbb"
    torn.mkdir()
    (torn / "results.json").write_text('{"run_id": ')
    runs = open_results(_settings(state)).runs()
    assert [r.run_id for r in runs] == ["20250101-020000-aaaa"]
    assert "(1 unreadable results.json left out)" in capsys.readouterr().err


def test_no_earlier_runs_makes_no_file(tmp_path):
    state = tmp_path / "state"
    (state / "runs" / "20250101-020000-aaaa").mkdir(parents=True)   # never finished
    assert open_results(_settings(state)).runs() == []
    assert not (state / "results.sqlite").exists()


def test_an_explicit_history_file_is_never_filled_from_runs(tmp_path):
    state = tmp_path / "state"
    _old_run(state, "20250101-020000-aaaa", "2025-01-01T02:00:00+00:00")
    where = tmp_path / "shared.sqlite"
    settings = _settings(state)
    settings.results_history_url = str(where)
    assert open_results(settings).runs() == []
    assert not where.exists()
