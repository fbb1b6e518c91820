"""`farm cache export RUN_DIR` of a run killed before it wrote results.json (its journal,
results.jsonl, is there): it said "neither a case file nor a run directory (no results.json)",
as of a folder that holds no run. Now it says the run stopped early and that `farm report
RUN_DIR` rebuilds results.json from the journal (exit 4 either way); so does an unreadable
results.json beside a journal."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main as farm


def test_a_killed_run_is_named_with_the_rebuild(tmp_path: Path, monkeypatch, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.jsonl").write_text('{"journal": "run", "run_id": "r1"}\n')
    monkeypatch.chdir(tmp_path)
    code, out, err = farm(monkeypatch, capsys, "cache", "export", "run")
    assert (code, out) == (4, "")
    assert err == ("farm: error: run: its run was stopped before it wrote results.json: `farm "
                   "report run` rebuilds it from the run's journal (results.jsonl), then export "
                   "again\n")
    (run / "results.json").write_text("{bad")
    code, out, err = farm(monkeypatch, capsys, "cache", "export", "run")
    assert (code, out) == (4, "")
    assert err.endswith(": `farm report run` rebuilds it from the run's journal "
                        "(results.jsonl), then export again\n")


def test_a_folder_with_no_run_is_still_said_to_be_none(tmp_path: Path, monkeypatch, capsys):
    (tmp_path / "notes").mkdir()
    monkeypatch.chdir(tmp_path)
    code, _, err = farm(monkeypatch, capsys, "cache", "export", "notes")
    assert (code, err) == (4, "farm: error: notes: neither a case file nor a run directory "
                              "(no results.json)\n")
