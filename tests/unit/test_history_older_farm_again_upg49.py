"""A results.sqlite upgraded by the current farm, then written again by an older farm (the team
went back to it for a night, then upgraded again): the rows that older farm added have no
failing step, and the current farm fills them from their results.json on its next open, once
(found by an indexed column, not by reading every row at each open)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.results_history import SCHEMA_VERSION, SqliteResults, open_results, record_for

# what the farm of 484e7aad (before the history kept failing steps) did not write
_NEWER = ("step", "selection", "attempt_duration", "model_seconds", "reason", "rebuilt")


def _run(run_id: str, day: int) -> RunSummary:
    steps = [StepRecord(task="main", index=1, kind="aiTap", label='aiTap "Toggle"',
                        status="passed"),
             StepRecord(task="main", index=2, kind="assertText", label='assertText "On"',
                        status="failed")]
    case = CaseResult(run_id=run_id, case_id="demo/toggleB", name="Toggle B", file="b.yaml",
                      platform="web", device="browser-1", status="failed", steps=steps,
                      error=CaseError(kind="AssertionFailed", message="not on", step=2),
                      duration=1.0)
    summary = RunSummary(run_id=run_id, started=f"2026-12-{day:02d}T02:00:00+00:00",
                         cases=[case])
    summary.recount()
    return summary


def _as_the_older_farm_wrote(summary: RunSummary, state: Path) -> None:
    """The run folder, and the row 484e7aad's SqliteResults.add_many wrote: INSERT OR REPLACE
    of (run_id, at, record) only, its record without the fields it did not know."""
    run_dir = state / "runs" / summary.run_id
    run_dir.mkdir(parents=True)
    (run_dir / "results.json").write_text(summary.model_dump_json(indent=2))
    (run_dir / "report.html").write_text("<html></html>")
    record = json.loads(record_for(summary, (run_dir / "report.html").resolve())
                        .model_dump_json(exclude_defaults=True))
    for key in _NEWER:
        record.pop(key, None)
    for case in record["cases"]:
        for key in _NEWER:
            case.pop(key, None)
    con = sqlite3.connect(state / "results.sqlite", timeout=30)
    con.executescript(SqliteResults._SCHEMA)
    with con:
        con.execute("INSERT OR REPLACE INTO runs(run_id, at, record) VALUES (?, ?, ?)",
                    (summary.run_id, record_for(summary).at, json.dumps(record)))
    con.close()


def _settings(state: Path) -> SimpleNamespace:
    return SimpleNamespace(results_history_url=None, broker_url=None, state_dir=state,
                           cluster_prefix="farm")


def _steps(state: Path) -> dict[str, int | None]:
    runs = open_results(_settings(state)).runs()
    return {r.run_id: (r.cases[0].step.index if r.cases[0].step else None) for r in runs}


def test_rows_an_older_farm_added_after_the_upgrade_get_their_step_upg49(tmp_path):
    state = tmp_path / "state"
    open_results(_settings(state)).add(record_for(_run("r1", 1)))    # the current farm's run
    con = sqlite3.connect(state / "results.sqlite")
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    con.close()
    _as_the_older_farm_wrote(_run("r2", 2), state)                  # back to the older farm
    _as_the_older_farm_wrote(_run("r3", 3), state)
    assert _steps(state) == {"r1": 2, "r2": 2, "r3": 2}             # upgraded again: filled
    store = open_results(_settings(state))
    assert store.upgrade(state / "runs") == 0                       # once, not at each open


def test_a_history_upgraded_before_rows_were_marked_gets_the_older_farms_rows_upg49(tmp_path):
    """A results.sqlite the current farm upgraded before this column (user_version 1, three
    columns), then written by the older farm: filled too."""
    state = tmp_path / "state"
    state.mkdir()
    con = sqlite3.connect(state / "results.sqlite")
    con.executescript(SqliteResults._SCHEMA)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    con.close()
    _as_the_older_farm_wrote(_run("r2", 2), state)
    assert _steps(state) == {"r2": 2}
