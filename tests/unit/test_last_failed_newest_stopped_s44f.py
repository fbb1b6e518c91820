"""Ctrl-C on `farm run s` (1 interrupted, 3 not run), then one run of other cases
(`farm run t -k …`), then `farm run s --lf`: it took every case, the stopped run forgotten
because it was no longer the newest. --lf finishes the newest run of the selected cases when
that one was stopped before its end; a complete run of them since has run them again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.results_history import CaseRecord, RunRecord, SqliteResults
from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""
STOPPED = "not run: the run was interrupted"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    for name in "abcdef":
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE.format(name=name))
    (tmp_path / ".farm").mkdir()
    (tmp_path / ".farm" / "lastfailed.json").write_text(json.dumps({"failed": []}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL",
                 "FARM_RESULTS_HISTORY_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _run(here: Path, run_id: str, at: float, interrupted: bool,
         *cases: tuple[str, str, str | None]) -> None:
    SqliteResults(here / ".farm" / "results.sqlite").add(RunRecord(
        run_id=run_id, started="2026-12-06T16:45:00+00:00", at=at, interrupted=interrupted,
        cases=[CaseRecord(case_id=c, status=s, reason=r) for c, s, r in cases]))


def _stopped_run_of_s(here: Path) -> None:
    _run(here, "20261206-164500-stop", 1.8e9, True, ("s/a", "passed", None),
         ("s/b", "passed", None), ("s/c", "interrupted", None),
         ("s/d", "skipped", STOPPED), ("s/e", "skipped", STOPPED), ("s/f", "skipped", STOPPED))


def _collected(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines() if line.startswith("s/")]


def test_lf_finishes_a_stopped_run_after_a_run_of_other_cases(here, monkeypatch, capsys):
    _stopped_run_of_s(here)
    _run(here, "20261206-165000-othr", 1.8e9 + 60, False, ("t/x", "passed", None))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--lf", "--collect-only")
    assert code == 0, out + err
    assert _collected(out) == ["s/c", "s/d", "s/e", "s/f"]
    assert ("farm: --last-failed: would run 1 interrupted, 3 not run in run "
            "20261206-164500-stop (stopped before its end)") in err.splitlines()


def test_a_complete_run_of_the_same_cases_since_ends_it(here, monkeypatch, capsys):
    _stopped_run_of_s(here)
    _run(here, "20261206-165000-full", 1.8e9 + 60, False,
         *((f"s/{n}", "passed", None) for n in "abcdef"))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--lf", "--collect-only")
    assert len(_collected(out)) == 6
    assert "farm: --last-failed: no failures recorded, would run every case" in err.splitlines()
