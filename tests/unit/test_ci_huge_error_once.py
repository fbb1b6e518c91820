"""A page's error may be megabytes (a script that throws its data). junit.xml and the Allure
results held it twice: whole in the failure text, whole again in the step log / the step's
details (6 MB for a 3 MB error). The second copy is cut as report.html cuts it, saying how
many more characters results.json holds."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from farm.report.allure import write_allure
from farm.report.junit import build_junit
from farm.results import CaseError, CaseResult, RunSummary, StepRecord

HUGE = "Error: " + "x" * 300_000
CUT = f"… ({len(HUGE) - 10_000:,} more characters in results.json)"


def _summary() -> RunSummary:
    step = StepRecord(task="pay", index=1, kind="javascript", label="javascript: pay()",
                      status="failed", error=HUGE, started="2026-12-04T10:00:00+00:00")
    case = CaseResult(run_id="r", case_id="s/pay", name="pay", file="s/pay.yaml",
                      platform="web", status="failed", started="2026-12-04T10:00:00+00:00",
                      error=CaseError(kind="StepFailed", message=HUGE, step=1), steps=[step])
    summary = RunSummary(run_id="r", started="", cases=[case])
    summary.recount()
    return summary


def test_junit_holds_the_error_whole_once_and_the_step_log_cut():
    xml = build_junit(_summary())
    case = ET.fromstring(xml).find("./testsuite/testcase")
    assert HUGE in case.find("failure").text
    assert xml.count(HUGE) == 1 and len(xml) < len(HUGE) + 20_000
    assert HUGE[:10_000] + CUT in case.find("system-out").text


def test_allure_holds_the_error_whole_once_and_the_step_details_cut(tmp_path):
    write_allure(_summary(), tmp_path, tmp_path / "al")
    [result] = [json.loads(p.read_text()) for p in (tmp_path / "al").glob("*-result.json")]
    assert result["statusDetails"]["message"] == "StepFailed: " + HUGE
    assert result["steps"][0]["statusDetails"]["message"] == HUGE[:10_000] + CUT
