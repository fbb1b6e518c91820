"""Writing one run's Allure results into a --alluredir twice (`farm run --alluredir out`, then
`farm report RUN_DIR --alluredir out` after fixing something) leaves that run's results once:
Allure reads every *-result.json in the folder, and takes results of one historyId for retries
of one test."""

from __future__ import annotations

import json
from pathlib import Path

from farm.report.allure import write_allure
from farm.results import CaseError, CaseResult, RunSummary, StepRecord

STARTED = "2024-05-01T10:00:00+00:00"


def _summary(run_dir: Path) -> RunSummary:
    shot = run_dir / "artifacts" / "a" / "001.jpg"
    shot.parent.mkdir(parents=True)
    shot.write_bytes(b"\xff\xd8\xff\xd9")
    failed = CaseResult(run_id="r1", case_id="s/login", name="Login", file="login.yaml",
                        platform="web", device="browser-1", status="failed", started=STARTED,
                        error=CaseError(kind="AssertionFailed", message="no Welcome", step=1),
                        screenshot="artifacts/a/001.jpg",
                        steps=[StepRecord(task="t", index=1, kind="assertText",
                                          label='assertText "Welcome"', status="failed",
                                          started=STARTED, after="artifacts/a/001.jpg")])
    again = failed.model_copy(update={"attempt": 2, "started": "2024-05-01T10:00:05+00:00"})
    again.previous = [failed]
    summary = RunSummary(run_id="r1", started=STARTED, duration=9.0, cases=[again])
    summary.recount()
    return summary


def _results(out: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in out.glob("*-result.json")]


def test_a_run_written_twice_into_one_alluredir_is_there_once(tmp_path):
    """Each write added a copy of every attempt under a new random file name: a case that
    failed twice showed four attempts, three of them retries, and its attachments doubled."""
    run_dir, out = tmp_path / "run", tmp_path / "allure"
    summary = _summary(run_dir)
    write_allure(summary, run_dir, out)
    first = sorted(p.name for p in out.iterdir())
    write_allure(summary, run_dir, out)
    assert sorted(p.name for p in out.iterdir()) == first
    results = _results(out)
    assert sorted((r["fullName"], r["start"]) for r in results) == [
        ("s/login", 1714557600000), ("s/login", 1714557605000)]
    assert all(p.name == f"{r['uuid']}-result.json" for p in out.glob("*-result.json")
               for r in [json.loads(p.read_text(encoding="utf-8"))])
    for result in results:       # each attachment named is there
        for item in (result, *result["steps"]):
            assert all((out / a["source"]).is_file() for a in item.get("attachments", []))


def test_another_run_of_the_same_case_is_a_result_of_its_own(tmp_path):
    """Stable per run, not per case: the next run's results are added beside (Allure's
    history of the case), never written over an earlier run's."""
    run_dir, out = tmp_path / "run", tmp_path / "allure"
    summary = _summary(run_dir)
    write_allure(summary, run_dir, out)
    later = summary.model_copy(update={"run_id": "r2"})
    write_allure(later, run_dir, out)
    results = _results(out)
    assert len(results) == 4 and len({r["uuid"] for r in results}) == 4
    assert len({r["historyId"] for r in results}) == 1
