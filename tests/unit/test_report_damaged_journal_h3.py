"""`farm report RUN_DIR` of a killed run whose journal (results.jsonl) is damaged: a line
garbled in the middle was passed over in silence (its case came back "not run", nothing said
of the file), and one byte that is not UTF-8 refused the whole rebuild naming no line. Now
each damaged line is named by file and line and skipped; a line that is not UTF-8 is named
with what to do."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from farm.results import CaseResult
from tests.support.farm_cli import run_main as farm

RUN = "20261206-020000-ab12"
STARTED = "2026-12-06T02:00:00.000+00:00"


def _case(cid: str) -> CaseResult:
    return CaseResult(run_id=RUN, case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", status="passed", device="browser-1",
                      started="2026-12-06T02:00:01.000+00:00", duration=1.0)


def _journal(run_dir: Path, garbled: bytes) -> None:
    """A run of cases a, b, c killed outright: b's result line replaced by ``garbled``,
    the last line (c's result) cut off as it was written."""
    run_dir.mkdir()
    cases = [_case("a"), _case("b"), _case("c")]
    head = {"journal": "run", "run_id": RUN, "started": STARTED, "planned": [
        {"case_id": c.case_id, "name": c.name, "file": c.file, "platform": "web"}
        for c in cases]}
    lines = [json.dumps(head).encode(), cases[0].model_dump_json().encode(), garbled,
             cases[2].model_dump_json().encode()[:40]]
    (run_dir / "results.jsonl").write_bytes(b"\n".join(lines))


def _here(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)


def _report(run_dir: Path, tmp_path: Path, monkeypatch):
    from farm.cli import cli
    _here(tmp_path, monkeypatch)
    return CliRunner().invoke(cli, ["report", str(run_dir)])


def test_damaged_journal_lines_are_named_and_skipped(tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    _journal(run_dir, b'{"run_id": "' + RUN.encode() + b'", "case_id": "s/b", "na')
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    journal = run_dir / "results.jsonl"
    assert out.stderr.splitlines()[:2] == [
        f"farm: warning: {journal}:3: not a journal line (the file is damaged there): skipped",
        f"farm: warning: {journal}:4: cut off (farm was killed as it wrote it): skipped"]
    statuses = {c["case_id"]: c["status"]
                for c in json.loads((run_dir / "results.json").read_text())["cases"]}
    assert statuses["s/a"] == "passed"      # what could be read is kept


def test_a_line_that_is_not_utf8_is_named_and_skipped(tmp_path, monkeypatch, capsys):
    """(It stopped the whole rebuild; now it costs its own line, as any damaged line.)"""
    run_dir = tmp_path / "run"
    _journal(run_dir, b"\xff\xfe\x00garbage")
    _here(tmp_path, monkeypatch)
    code, out, err = farm(monkeypatch, capsys, "report", run_dir)
    assert code == 0, err
    assert err.splitlines()[0] == (f"farm: warning: {run_dir / 'results.jsonl'}:3: not UTF-8 "
                                   "text (the file is damaged there): skipped")
    statuses = {c["case_id"]: c["status"]
                for c in json.loads((run_dir / "results.json").read_text())["cases"]}
    assert statuses["s/a"] == "passed"


def _a_run(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(
        '{"run_id": "%s", "started": "%s", "cases": []}' % (folder.name, STARTED))


def test_a_folder_that_is_no_run_says_where_the_runs_are(tmp_path, monkeypatch, capsys):
    """`farm report .farm` (the state dir) and `farm report` alone said only '.farm/results.json
    does not exist' / 'give RUN_DIR': they name the newest run under .farm/runs now; a folder
    with no run anywhere in it is said to be no run directory."""
    _here(tmp_path, monkeypatch)
    monkeypatch.setenv("FARM_STATE_DIR", ".farm")
    newest = Path(".farm/runs/20261206-020000-bbbb")
    _a_run(Path(".farm/runs/20261205-020000-aaaa"))
    _a_run(newest)
    code, _, err = farm(monkeypatch, capsys, "report", ".farm")
    assert code == 4
    assert err.splitlines()[-1] == (
        "Error: .farm/results.json does not exist; .farm/runs holds 2 run folder(s): give one, "
        f"e.g. `farm report {newest}` (the newest)")
    code, _, err = farm(monkeypatch, capsys, "report")
    assert code == 4
    assert err.splitlines()[-1] == (f"Error: give RUN_DIR (the newest run: `farm report "
                                    f"{newest}`), or --history for the page across runs")
    Path("notes").mkdir()
    code, _, err = farm(monkeypatch, capsys, "report", "notes")
    assert code == 4
    assert err.splitlines()[-1] == (
        "Error: notes/results.json does not exist, nor notes/results.jsonl: notes is not a run "
        "directory (a run's --report-dir, or one under .farm/runs)")
