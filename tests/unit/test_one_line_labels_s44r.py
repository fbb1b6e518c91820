"""A multi-line step label (a ``javascript: |`` step's whole script) stays out of the one-line
summaries: farm.log's end line for its case is one line (the label's first line and "…"),
junit.xml's step log one row a step, an Allure step's name one line (the script whole in its
``step`` parameter); results.json and the report's step table keep the label whole."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from farm.report.allure import write_allure
from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.run_log import ended_line

SCRIPT = ("javascript \"const t = document.getElementById('total').textContent;\n"
          "if (t !== 'Total: $10') throw new Error('bad total: ' + t);\nreturn t;\n\"")


def _case() -> CaseResult:
    steps = [StepRecord(task="check", index=1, kind="assertText", label='assertText "Night"',
                        line=9),
             StepRecord(task="check", index=2, kind="javascript", label=SCRIPT, line=10,
                        status="failed", error="javascript error: bad total: Total: $12")]
    return CaseResult(run_id="r", case_id="s/js", name="js", file="s/js.yaml", line=10,
                      platform="web", device="browser-1", status="failed", steps=steps,
                      error=CaseError(kind="StepFailed",
                                      message="javascript error: bad total:\nTotal: $12",
                                      step=2))


def _summary() -> RunSummary:
    summary = RunSummary(run_id="r", started="2024-05-01T10:00:00+00:00", duration=1.0,
                         cases=[_case()])
    summary.recount()
    return summary


def test_farm_log_s_end_line_of_a_multi_line_step_is_one_line() -> None:
    line = ended_line("browser-1", _case(), final=True)
    assert "\n" not in line
    assert line == ("[browser-1] FAILED s/js (attempt 1) in 0.0s at step 2 javascript \"const t"
                    " = document.getElementById('total').textContent; … (s/js.yaml:10): "
                    "StepFailed: javascript error: bad total: ⏎ Total: $12")


def test_junit_s_step_log_is_one_row_a_step(tmp_path: Path) -> None:
    root = ET.parse(write_junit(_summary(), tmp_path / "junit.xml")).getroot()
    out = root.find(".//system-out").text
    rows = out.split("\n\n")[1].splitlines()
    assert len(rows) == 3       # two steps, the failed one's error below it
    assert rows[1].endswith("[check] javascript \"const t = "
                            "document.getElementById('total').textContent; …")
    # the failure's body keeps the script whole: it is the evidence
    assert SCRIPT in root.find(".//failure").text


def test_an_allure_step_s_name_is_one_line_its_script_a_parameter(tmp_path: Path) -> None:
    write_allure(_summary(), tmp_path, tmp_path / "allure")
    [result] = [json.loads(p.read_text()) for p in (tmp_path / "allure").glob("*-result.json")]
    step = result["steps"][1]
    assert step["name"] == "2. javascript \"const t = document.getElementById('total')" \
                           ".textContent; …"
    assert {"name": "step", "value": SCRIPT} in step["parameters"]
    assert all(p["name"] != "step" for p in result["steps"][0]["parameters"])
