"""Two things a user saw disagree:

- a case that failed on both attempts of a ``--retries 1`` run, having passed the run before
  and failed before that, ended the terminal's line ``[flaky]`` while report.html and
  junit.xml called it *unstable across runs* (flaky is a pass on a retry: it never passed);
- a run a device error stopped before any case started left an empty farm.log (the error
  was on stderr alone) and a report header reading ``0.0% pass rate, 0 passed of 1
  finished``, though nothing finished.
"""

from __future__ import annotations

import json
import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from farm.report.html import render_html
from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import failure_lines
from tests.support.farm_cli import run_main


def _unstable_after_two_attempts() -> RunSummary:
    error = CaseError(kind="StepFailed", message="expected text 'Welcome' is not on screen",
                      step=2)
    first = CaseResult(run_id="r2", case_id="s1/login", name="login", file="s1/login.yaml",
                       platform="web", device="browser-1", attempt=1, status="failed",
                       error=error, line=7)
    case = first.model_copy(update={"attempt": 2, "previous": [first], "since_last": "flaky"})
    summary = RunSummary(run_id="r2", started="2026-12-06T14:25:50+00:00", cases=[case])
    summary.recount()
    return summary


def test_a_red_case_whose_verdict_flips_reads_the_same_everywhere(tmp_path: Path) -> None:
    summary = _unstable_after_two_attempts()
    [line] = failure_lines(summary)
    assert line.startswith("FAILED s1/login (s1/login.yaml:7) after 2 attempts — ")
    assert line.endswith(" [unstable across runs]")
    assert "[flaky]" not in line
    facts = ET.parse(write_junit(summary, tmp_path / "junit.xml")).getroot().find(
        ".//testcase/system-out").text.splitlines()
    assert "since_last: unstable across runs" in facts
    page = render_html(summary)
    # (the case's row and its row in the Failures list: the same words)
    assert re.findall(r'class="since[^"]*"[^>]*>([^<]*)<', page) == ["unstable across runs"] * 2


def _closed_port() -> socket.socket:
    """A loopback port bound and never listened on: a connection to it is refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


def test_a_run_a_device_error_stops_before_any_case_says_so_in_farm_log_and_the_header(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(
        "ios:\n  launch: com.example.shop\ntasks:\n  - name: t\n    flow:\n"
        "      - assertText: Welcome\n", encoding="utf-8")
    with _closed_port() as sock:
        monkeypatch.setenv("FARM_IOS_WDA_URLS", "http://127.0.0.1:%d" % sock.getsockname()[1])
        code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "ios:1",
                                  "--no-progress", "--report-dir", str(tmp_path / "out"))
    run_dir = tmp_path / "out"
    said = next(line for line in err.splitlines() if line.startswith("farm: error: "))
    error = said.removeprefix("farm: error: ")
    assert code == 4, out + err
    assert error in (run_dir / "farm.log").read_text(encoding="utf-8")
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    rate = re.search(r'<strong id="pass-rate">([^<]*)</strong>.*?'
                     r'<small id="pass-rate-of">([^<]*)</small>', page, re.S)
    assert rate.groups() == ("—", "nothing finished: the run stopped before any case started")
    assert "The run stopped before any case started: " in page
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    assert (results["exit_code"], results["counts"]["error"], results["counts"]["total"]) == \
        (4, 1, 1)
    assert [(c["status"], c["reason"]) for c in results["cases"]] == [("error", "not run")]
    failure = ET.parse(run_dir / "junit.xml").getroot().find(".//testcase/error")
    assert failure.get("type") == "ConfigError"
    assert "passed of" not in out + err
