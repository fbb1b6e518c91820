"""A retried case's time is every attempt's: results.json's ``duration`` and junit.xml's
``time`` were its last attempt's alone, so a user adding up device time (or reading why a
flaky case was slow) was misled. Each attempt's own time stays where attempts are listed.
Runs use the in-memory ``fake`` device kind (tests/support/devices.py): ``sleep`` sleeps,
``assertText`` fails; no browser."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from farm.report.html import format_duration
from farm.results import CaseResult, final_result
from tests.support.farm_cli import run_main as farm

FAILS = ("web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n"
         "      - sleep: 30\n      - assertText: Welcome back\n")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_FAIL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "pay.yaml").write_text(FAILS)
    return tmp_path


def test_a_retried_case_s_duration_and_junit_time_are_every_attempt_s(here, monkeypatch,
                                                                      capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--retries",
                          "2", "--no-progress", "--report-dir", "r")
    assert code == 1, out + err
    case = json.loads((here / "r" / "results.json").read_text())["cases"][0]
    times = [p["duration"] for p in case["previous"]] + [case["attempt_duration"]]
    assert len(times) == 3 and all(t > 0 for t in times)
    assert case["duration"] == round(sum(times), 3)
    testcase = ET.parse(here / "r" / "junit.xml").getroot().find(".//testcase")
    assert testcase.get("time") == str(case["duration"])
    said = testcase.findtext("system-out") or ""
    assert f"attempt_times: 1: {times[0]:g} s, 2: {times[1]:g} s, 3: {times[2]:g} s" in said
    page = (here / "r" / "report.html").read_text()
    assert f"{format_duration(case['duration'])} (3 attempts)" in page
    assert f"<b>attempt 3</b> ({format_duration(times[2])}) — earlier attempts:" in page
    assert f"attempt 1 failed on fake-1 ({format_duration(times[0])}): " in page
    assert f"s/pay: failed (attempt 3), {times[2]:.1f} s" in page     # its timeline bar


def _attempt(n: int, status: str, duration: float) -> CaseResult:
    return CaseResult(run_id="r", case_id="s/pay", name="pay", file="s/pay.yaml",
                      platform="web", device="browser-1", attempt=n, status=status,
                      started=f"2026-12-04T10:00:0{n}+00:00", duration=duration)


def test_a_failure_whose_retry_was_skipped_counts_both_attempts():
    verdict = final_result([_attempt(1, "failed", 2.5), _attempt(2, "skipped", 0.25)])
    assert (verdict.attempt, verdict.duration, verdict.attempt_duration) == (1, 2.75, 2.5)


def test_a_case_run_once_keeps_its_duration_and_no_attempt_duration():
    once = final_result([_attempt(1, "passed", 1.5)])
    assert (once.duration, once.attempt_duration) == (1.5, None)
