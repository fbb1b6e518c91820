"""A --matrix run names its results ``case@group``: a case's ``output:`` / its step log and a
batch's ``summary:`` were looked up by the plain case id, so none was written (a summary
listing no file). Each group's run writes its own, named after its group."""

from __future__ import annotations

import json
from pathlib import Path

from farm.results import CaseResult, RunSummary
from farm.run_outputs import _batch_summaries, _case_outputs
from farm.suite.loader import load_suites
from farm.suite.model import Batch


class _Plain:
    """Variables with nothing to resolve or mask."""

    def resolve(self, text: str) -> str:
        return text

    def mask(self, text: str) -> str:
        return text


def _result(case_id: str, status: str = "passed") -> CaseResult:
    return CaseResult(run_id="r", case_id=case_id, name=case_id, file="s/a.yaml",
                      platform="web", status=status, data={"value": case_id})


def _case(tmp_path: Path, output: Path):
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "a.yaml").write_text(f"web:\n  url: about:blank\n  output: {output}\ntasks:\n"
                                  "  - name: t\n    flow:\n      - sleep: 1\n")
    [case] = [c for s in load_suites([suite], env={}) for c in s.cases]
    return case


def test_each_group_run_writes_its_own_output(tmp_path):
    out = tmp_path / "out" / "a.json"
    case = _case(tmp_path, out)
    results = [_result(f"{case.id}@os14"), _result(f"{case.id}@os15", "failed")]
    assert _case_outputs([case], results, lambda c: _Plain()) == []
    assert sorted(p.name for p in out.parent.iterdir()) == ["a@os14.json", "a@os15.json"]
    assert json.loads((out.parent / "a@os15.json").read_text()) == {"value": "s/a@os15"}


def test_a_case_run_once_writes_its_output_as_named(tmp_path):
    out = tmp_path / "out" / "a.json"
    case = _case(tmp_path, out)
    assert _case_outputs([case], [_result(case.id)], lambda c: _Plain()) == []
    assert [p.name for p in out.parent.iterdir()] == ["a.json"]


def test_each_group_run_of_a_batch_writes_its_own_summary(tmp_path):
    batch = Batch(file="s/index.yaml", summary=str(tmp_path / "sum.json"),
                  case_ids=["s/a", "s/b"])
    summary = RunSummary(run_id="r", started="", cases=[
        _result("s/a@os14"), _result("s/b@os14", "failed"), _result("s/a@os15"),
        _result("s/b@os15"), _result("s/other@os14")])
    assert _batch_summaries([batch], summary) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sum@os14.json", "sum@os15.json"]
    os14 = json.loads((tmp_path / "sum@os14.json").read_text())
    assert (os14["group"], os14["total"], os14["passed"], os14["failed"]) == ("os14", 2, 1, 1)
    assert [f["case"] for f in os14["files"]] == ["s/a@os14", "s/b@os14"]


def test_a_case_whose_own_id_holds_an_at_sign_is_not_a_group_run(tmp_path):
    batch = Batch(file="s/index.yaml", summary=str(tmp_path / "sum.json"),
                  case_ids=["s/a", "s/a@home"])
    summary = RunSummary(run_id="r", started="", cases=[_result("s/a"), _result("s/a@home")])
    assert _batch_summaries([batch], summary) == []
    data = json.loads((tmp_path / "sum.json").read_text())
    assert [f["case"] for f in data["files"]] == ["s/a", "s/a@home"] and "group" not in data
