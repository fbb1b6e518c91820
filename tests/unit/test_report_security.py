"""Report outputs against a hostile run directory or results.json: a symlink planted where
farm writes its temporary file is never followed, and a screenshot path pointing outside the
run (a hand-edited or downloaded results.json given to ``farm report``) is never attached to
Allure (which copies the file) or JUnit (whose attachments plugin copies it on the CI host)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.report.allure import write_allure
from farm.report.history_page import write_history
from farm.report.html import write_html
from farm.report.junit import build_junit, write_junit
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.results_history import SqliteResults, record_for

PRECIOUS = "precious: must stay as it is\n"


def _summary(screenshot: str | None = None, after: str | None = None) -> RunSummary:
    step = StepRecord(task="t", index=1, kind="assertText", label='assertText "x"',
                      status="failed", error="not there", after=after)
    case = CaseResult(run_id="r1", case_id="s/one", name="One", file="s/one.yaml",
                      platform="web", device="browser-1", status="failed", steps=[step],
                      error=CaseError(kind="AssertionFailed", message="not there", step=1),
                      screenshot=screenshot, started="2026-01-01T02:00:00+00:00")
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", cases=[case])
    summary.recount()
    return summary


def _plant(path: Path, victim: Path) -> None:
    """What an attacker who can write the output's folder leaves there: the output's old
    temporary name as a symlink to a file of the victim."""
    victim.write_text(PRECIOUS)
    path.with_name(path.name + ".tmp").symlink_to(victim)


def _history(tmp_path: Path, out: Path) -> Path:
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(_summary()))
    return write_history(store, out)


@pytest.mark.parametrize("output", ["report.html", "junit.xml", "history.html"])
def test_an_output_never_writes_through_a_symlink_planted_at_its_temporary_name(
        tmp_path, output):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    victim = tmp_path / "victim.txt"
    _plant(run_dir / output, victim)
    write = {"report.html": lambda: write_html(_summary(), run_dir),
             "junit.xml": lambda: write_junit(_summary(), run_dir / "junit.xml"),
             "history.html": lambda: _history(tmp_path, run_dir / "history.html")}[output]
    written = write()
    assert victim.read_text() == PRECIOUS                  # the victim's file is untouched
    assert written == run_dir / output and not written.is_symlink()
    assert "r1" in written.read_text(encoding="utf-8")
    # and no temporary file of its own is left beside it (the planted one is not farm's)
    styles = {"report.html": ["report.css"], "history.html": ["history.html.css"]}
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(
        [output, output + ".tmp", *styles.get(output, [])])   # (the page's stylesheet beside it)


def test_an_output_replaces_a_symlink_in_its_place_rather_than_writing_through_it(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    (run_dir / "report.html").symlink_to(victim)
    write_html(_summary(), run_dir)
    assert victim.read_text() == PRECIOUS
    assert not (run_dir / "report.html").is_symlink()


def _outside(tmp_path: Path) -> tuple[Path, Path]:
    """A run dir with one real screenshot, and a file beside the run that is no artifact."""
    run_dir = tmp_path / "run"
    shot = run_dir / "artifacts" / "s-one" / "attempt-1" / "001.jpg"
    shot.parent.mkdir(parents=True)
    shot.write_bytes(b"\xff\xd8\xff in-run screenshot")
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY of the CI host")
    return run_dir, secret


@pytest.mark.parametrize("where", ["relative", "absolute", "symlink"])
def test_allure_and_junit_attach_only_files_inside_the_run(tmp_path, where):
    run_dir, secret = _outside(tmp_path)
    if where == "symlink":
        (run_dir / "artifacts" / "link.jpg").symlink_to(secret)
    rel = {"relative": "../id_rsa", "absolute": str(secret),
           "symlink": "artifacts/link.jpg"}[where]
    summary = _summary(screenshot=rel, after=rel)
    allure = tmp_path / "allure"
    write_allure(summary, run_dir, allure)
    copied = [p.read_bytes() for p in allure.iterdir() if "-attachment" in p.name]
    assert copied == []
    result = json.loads(next(allure.glob("*-result.json")).read_text())
    assert "attachments" not in result or result["attachments"] == []
    assert "[[ATTACHMENT|" not in build_junit(summary, run_dir)


def test_allure_and_junit_still_attach_the_runs_own_screenshots(tmp_path):
    run_dir, _ = _outside(tmp_path)
    rel = "artifacts/s-one/attempt-1/001.jpg"
    summary = _summary(screenshot=rel, after=rel)
    allure = tmp_path / "allure"
    write_allure(summary, run_dir, allure)
    copied = [p.read_bytes() for p in allure.iterdir() if "-attachment" in p.name]
    assert copied == [b"\xff\xd8\xff in-run screenshot"] * 2        # the step's and the case's
    assert f"[[ATTACHMENT|{(run_dir / rel).resolve()}]]" in build_junit(summary,
                                                                         run_dir.resolve())


def test_the_pushed_metric_totals_never_write_through_a_planted_temporary_name(tmp_path):
    from farm.pushgateway import _write_totals
    victim = tmp_path / "victim.txt"
    totals = tmp_path / "state" / "pushed.json"
    totals.parent.mkdir()
    _plant(totals, victim)
    _write_totals(totals, "job/farm", {"farm_cases_total": 3.0})
    assert victim.read_text() == PRECIOUS
    assert "farm_cases_total" in totals.read_text() and not totals.is_symlink()


def test_results_json_never_writes_through_a_planted_temporary_name(tmp_path):
    from farm.results import write_json
    victim = tmp_path / "victim.txt"
    _plant(tmp_path / "results.json", victim)               # results.json.tmp: its old name
    write_json(tmp_path / "results.json", _summary())
    assert victim.read_text() == PRECIOUS
    assert '"run_id": "r1"' in (tmp_path / "results.json").read_text()
