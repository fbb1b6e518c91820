"""A batch's ``summary:`` keeps farm's keys and adds Midscene's (its CLI's
execution-summary.ts: ``summary: {total, successful, failed, partialFailed, notExecuted,
totalDuration, generatedAt}`` and ``results: [{script, success, resultType, output, report,
error, duration}]``), so a CI step reading ``.summary.failed`` works on farm's file too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.run_outputs import _batch_summaries
from farm.suite.loader import load_suites
from farm.suite.model import Batch

CASE = ("web:\n  url: https://example.com\n{output}tasks:\n"
        "  - name: main\n    flow:\n      - aiTap: Sign in\n"
        "  - name: extra\n    continueOnError: true\n    flow:\n      - aiTap: Help\n")


@pytest.fixture
def cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    for name in ("ok", "main_fails", "extra_fails", "after"):
        output = "  output: out/ok.json\n" if name == "ok" else ""
        (tmp_path / "web").mkdir(exist_ok=True)
        (tmp_path / "web" / f"{name}.yaml").write_text(CASE.format(output=output))
    [suite] = load_suites([tmp_path / "web"])
    return {c.name: c for c in suite.cases}


def result(case, status, failed_task=None, reason=None) -> CaseResult:
    steps = [StepRecord(task=failed_task, index=1, kind="aiTap", label="x", status="failed")] \
        if failed_task else []
    return CaseResult(run_id="r1", case_id=case.id, name=case.name, file=f"web/{case.name}.yaml",
                      platform="web", status=status, reason=reason, steps=steps,
                      duration=0.0 if status == "skipped" else 1.5,
                      error=CaseError(kind="StepFailed", message="no element") if failed_task
                      else None)


def test_midscene_keys_beside_farms(tmp_path, cases):
    results = [result(cases["ok"], "passed"),
               result(cases["main_fails"], "failed", "main"),
               result(cases["extra_fails"], "failed", "extra"),
               result(cases["after"], "skipped",
                      reason="not run: main_fails.yaml failed (the batch has "
                             "continueOnError: false)")]
    batch = Batch(file="index.yaml", summary=str(tmp_path / "report" / "summary.json"),
                  case_ids=[r.case_id for r in results])
    summary = RunSummary(run_id="r1", started="", cases=results)
    assert _batch_summaries([batch], summary, list(cases.values()),
                            tmp_path / ".farm" / "runs" / "r1") == []
    data = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert (data["total"], data["passed"], data["failed"], data["skipped"]) == (4, 1, 2, 1)
    assert data["files"][3]["reason"].startswith("not run: main_fails.yaml failed")
    counts = {k: v for k, v in data["summary"].items() if k != "generatedAt"}
    assert counts == {"total": 4, "successful": 1, "failed": 1, "partialFailed": 1,
                      "notExecuted": 1, "totalDuration": 4500}
    assert [r["resultType"] for r in data["results"]] == [
        "success", "failed", "partialFailed", "notExecuted"]
    ok, main, _, after = data["results"]
    assert ok == {"script": "../web/ok.yaml", "success": True, "resultType": "success",
                  "output": "../out/ok.json",
                  "report": f"../.farm/runs/r1/report.html#case={cases['ok'].id}",
                  "error": None, "duration": 1500}
    assert main["error"] == "no element" and not main["success"]
    assert after["error"].startswith("not run:") and after["report"] is None
