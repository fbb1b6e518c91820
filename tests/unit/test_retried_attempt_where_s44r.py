"""A flaky case's earlier failure keeps where it failed: junit.xml's <flakyFailure> message
names its step and file:line and the case's screenshot attachment is that attempt's; the
report's "earlier attempts" box says the step (its text, a link to the YAML file at its line)
and shows the attempt's screenshot; the case's file:line is the line it flaked at everywhere
(junit.xml's file: fact, the report's header, farm.log's FLAKY line). A case's file:line in
report.html links to its YAML file where the file is there, and is plain text otherwise."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from farm.report.html import render_html
from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.run_log import ended_line

SHOT = "artifacts/s-flaky/attempt-1/003-step2.jpg"


def _steps(attempt: int, failed: bool) -> list[StepRecord]:
    return [StepRecord(task="status", index=1, kind="aiTap", label='aiTap "Check status"',
                       line=10),
            StepRecord(task="status", index=2, kind="waitForText",
                       label='waitForText "status: healthy"', line=11,
                       status="failed" if failed else "passed",
                       error="text did not appear" if failed else None,
                       after=SHOT if failed else None)]


def _flaky() -> CaseResult:
    first = CaseResult(run_id="r", case_id="s/flaky", name="Flaky", file="s/flaky.yaml",
                       line=11, platform="web", device="browser-1", status="failed",
                       steps=_steps(1, True), screenshot=SHOT,
                       error=CaseError(kind="AssertionFailed", message="text did not appear",
                                       step=2))
    return CaseResult(run_id="r", case_id="s/flaky", name="Flaky", file="s/flaky.yaml",
                      line=10, platform="web", device="browser-1", status="flaky", attempt=2,
                      steps=_steps(2, False), previous=[first],
                      reason="passed on attempt 2 after failing")


def _summary(*cases: CaseResult) -> RunSummary:
    summary = RunSummary(run_id="r", started="2024-05-01T10:00:00+00:00", duration=1.0,
                         cases=list(cases))
    summary.recount()
    return summary


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run dir under out/, the suite's file in the working directory, the attempt's shot."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "flaky.yaml").write_text("name: Flaky\n")
    run_dir = tmp_path / "out" / "run"
    (run_dir / SHOT).parent.mkdir(parents=True)
    (run_dir / SHOT).write_bytes(b"\xff\xd8jpeg")
    return run_dir


def test_junit_names_the_earlier_attempt_s_step_line_and_screenshot(run: Path) -> None:
    root = ET.parse(write_junit(_summary(_flaky()), run / "junit.xml")).getroot()
    case = root.find(".//testcase")
    flaky = case.find("flakyFailure")
    assert flaky.get("message") == ("attempt 1 failed on browser-1 at step 2 "
                                    "(s/flaky.yaml:11): text did not appear")
    assert 'Failed at step 2, line 11 [status]: waitForText "status: healthy"' in \
        flaky.find("stackTrace").text
    out = case.find("system-out").text
    assert "file: s/flaky.yaml:11\n" in out      # where it flaked, not its first step
    assert f"[[ATTACHMENT|{(run / SHOT).resolve()}]]" in out


def test_the_report_s_earlier_attempt_says_its_step_and_links_its_file(run: Path) -> None:
    page = render_html(_summary(_flaky()), run)
    box = re.search(r'<div class="previous">.*?</div>', page, re.S)[0]
    assert ('at step 2 · <a class="src" href="../../s/flaky.yaml" target="_blank" '
            'rel="noopener">s/flaky.yaml:11</a> · status: waitForText &quot;status: '
            'healthy&quot;') in box
    assert f'src="{SHOT}"' in box
    header = re.search(r'<span class="where">(.*?)</span>', page)[1]
    assert header == ('<a class="src" href="../../s/flaky.yaml" target="_blank" '
                      'rel="noopener">s/flaky.yaml:11</a>')


def test_a_file_that_is_not_there_stays_plain_text(run: Path) -> None:
    (run.parents[1] / "s" / "flaky.yaml").unlink()
    page = render_html(_summary(_flaky()), run)
    assert re.search(r'<span class="where">(.*?)</span>', page)[1] == "s/flaky.yaml:11"
    assert 'class="src"' not in page


def test_a_working_directory_deleted_under_the_run_leaves_the_place_plain(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI job's checkout removed while farm ran: the report is written, without links."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    page = render_html(_summary(_flaky()), run)
    assert re.search(r'<span class="where">(.*?)</span>', page)[1] == "s/flaky.yaml:11"


def test_farm_log_s_flaky_line_points_at_the_line_it_flaked_at() -> None:
    line = ended_line("browser-1", _flaky(), final=True)
    assert line.startswith("[browser-1] FLAKY s/flaky (attempt 2)")
    assert "(s/flaky.yaml:11)" in line
