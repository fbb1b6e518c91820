"""Ctrl-C 45 s into a 400-case run, then `farm run suite --lf`: it took only the 20 failures of
an earlier complete run, not the 396 cases the stopped run never ran nor the 2 it interrupted,
so a stopped run could not be finished. When the last run was stopped before its end (Ctrl-C,
a kill rebuilt by `farm report`, --maxfail), --lf runs its failures, its interrupted and its
not-run cases, and says so; after a complete run it keeps its meaning."""

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
NAMES = ("a", "b", "c", "d", "e", "f")
STOPPED = "not run: the run was interrupted"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A suite ``s`` of six cases; state in .farm, where an earlier run recorded s/f failed."""
    (tmp_path / "s").mkdir()
    for name in NAMES:
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE.format(name=name))
    (tmp_path / ".farm").mkdir()
    (tmp_path / ".farm" / "lastfailed.json").write_text(json.dumps({"failed": ["s/f"]}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL",
                 "FARM_RESULTS_HISTORY_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _last_run(here: Path, interrupted: bool, *cases: tuple[str, str, str | None]) -> None:
    store = SqliteResults(here / ".farm" / "results.sqlite")
    store.add(RunRecord(run_id="20261206-164500-abcd", started="2026-12-06T16:45:00+00:00",
                        at=1.8e9, interrupted=interrupted,
                        cases=[CaseRecord(case_id=c, status=s, reason=r) for c, s, r in cases]))


def _collected(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines() if line.startswith("s/")]


def test_lf_after_a_stopped_run_finishes_it(here, monkeypatch, capsys):
    _last_run(here, True, ("s/a", "passed", None), ("s/b", "passed", None),
              ("s/c", "interrupted", None), ("s/d", "skipped", STOPPED),
              ("s/e", "skipped", STOPPED), ("s/f", "skipped", STOPPED))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--lf", "--collect-only")
    assert code == 0, out + err
    assert _collected(out) == ["s/c", "s/d", "s/e", "s/f"]
    assert ("farm: --last-failed: would run 1 failed earlier; 1 interrupted, 2 not run in run "
            "20261206-164500-abcd (stopped before its end)") in err.splitlines()


def test_lf_after_a_run_cut_short_by_maxfail_runs_what_it_left(here, monkeypatch, capsys):
    _last_run(here, False, ("s/a", "passed", None), ("s/f", "failed", None),
              ("s/e", "skipped", "not run: --maxfail 1 reached"))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--lf", "--collect-only")
    assert _collected(out) == ["s/e", "s/f"]


def test_lf_after_a_complete_run_runs_its_failures_alone(here, monkeypatch, capsys):
    _last_run(here, False, *((f"s/{n}", "passed", None) for n in "abcde"),
              ("s/f", "failed", None))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--lf", "--collect-only")
    assert _collected(out) == ["s/f"]
    assert "farm: --last-failed: would run 1 case(s) that failed last time" in err.splitlines()
