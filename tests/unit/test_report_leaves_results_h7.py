"""`farm report RUN_DIR` of a run whose results.json reads fine rebuilds report.html and
junit.xml from it and leaves results.json and the journal alone. It rewrote results.json
(dropping the fields this farm does not know, a missing exit_code turned into 0) and appended
another identical "end" line to results.jsonl at every call. A run rebuilt from its journal
still gets both written, and its end line once however often it is rebuilt."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from farm.results import CaseResult, RunSummary

RUN = "20261204-020000-cd34"


def _case(cid: str, status: str) -> CaseResult:
    return CaseResult(run_id=RUN, case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", status=status, device="browser-1",
                      started="2026-12-04T02:00:01.000+00:00", duration=1.0)


def _report(run_dir: Path, tmp_path: Path, monkeypatch):
    from farm.cli import cli
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    done = CliRunner().invoke(cli, ["report", str(run_dir)])
    assert done.exit_code == 0, done.output
    return done


def _finished_run(run_dir: Path) -> bytes:
    """A finished run's results.json (written by a newer farm: a field this one does not
    know; an older one's: no exit_code) and its journal with its end line."""
    run_dir.mkdir()
    cases = [_case("a", "passed"), _case("b", "failed")]
    summary = RunSummary(run_id=RUN, started="2026-12-04T02:00:00.000+00:00", cases=cases,
                         duration=2.0, exit_code=1)
    summary.recount()
    data = json.loads(summary.model_dump_json())
    del data["exit_code"]
    data["ci_build_url"] = "https://ci.example/build/7"
    results = json.dumps(data, indent=1).encode()
    (run_dir / "results.json").write_bytes(results)
    head = {"journal": "run", "run_id": RUN, "started": summary.started, "planned": [
        {"case_id": c.case_id, "name": c.name, "file": c.file, "platform": "web"}
        for c in cases]}
    end = {"journal": "end", "started": summary.started, "finished": "", "duration": 2.0,
           "exit_code": 1, "interrupted": False, "quarantined": [], "lost": {},
           "since_last": {}, "deselected": []}
    (run_dir / "results.jsonl").write_text("\n".join(
        [json.dumps(head), *(c.model_dump_json() for c in cases), json.dumps(end)]) + "\n")
    return results


def test_a_report_from_a_good_results_json_leaves_it_and_the_journal_as_they_were(
        tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    results = _finished_run(run_dir)
    journal = (run_dir / "results.jsonl").read_bytes()
    for _ in range(3):
        _report(run_dir, tmp_path, monkeypatch)
    assert (run_dir / "results.json").read_bytes() == results      # byte-identical
    assert (run_dir / "results.jsonl").read_bytes() == journal      # no end line added
    assert (run_dir / "report.html").is_file() and (run_dir / "junit.xml").is_file()


def test_a_run_rebuilt_from_its_journal_gets_results_json_and_one_end_line(
        tmp_path, monkeypatch):
    from farm.executors.base import NullEvents
    from farm.journal import JournalEvents
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    journal = JournalEvents(NullEvents(), run_dir, RUN, [("s/a", "a", "s/a.yaml", "web"),
                                                          ("s/b", "b", "s/b.yaml", "web")])
    journal.case_finished("browser-1", _case("a", "passed"), final=True)
    journal.case_started("browser-1", "s/b", "b", 1)      # killed here
    said = _report(run_dir, tmp_path, monkeypatch)
    assert "rebuilt from" in said.stderr
    first = json.loads((run_dir / "results.json").read_text())
    assert [c["status"] for c in first["cases"]] == ["passed", "interrupted"]
    for _ in range(2):            # results.json lost again: rebuilt again from the journal
        (run_dir / "results.json").unlink()
        _report(run_dir, tmp_path, monkeypatch)
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    assert sum(json.loads(line).get("journal") == "end" for line in lines) == 1
    assert json.loads((run_dir / "results.json").read_text())["cases"] == first["cases"]
