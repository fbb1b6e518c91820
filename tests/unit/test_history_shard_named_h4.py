"""A run of ``--shard 1/8`` over 7 cases was "--shard ?/8" on the history page (its runs
table and partial mark): shard 8, which no case reached, had no deselected case either, so
two shards could have been the run's. Shards past the number of cases are empty."""

from __future__ import annotations

from pathlib import Path

from farm.results import CaseResult, DeselectedCase, RunSummary
from farm.results_history import selection_of
from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


def test_a_shard_beside_an_empty_one_is_named():
    cases = [_case(f"s/c{i}") for i in range(7)]
    sel = select_cases(cases, SelectOptions(shard=(1, 8)))
    assert len(sel.selected) == 1
    summary = RunSummary(run_id="r", started="", cases=[
        CaseResult(run_id="r", case_id=c.id, name=c.name, file="f", platform="web",
                   status="passed") for c in sel.selected], deselected=[
        DeselectedCase(case_id=d.case.id, name=d.case.name, file="f", platform="web",
                       reason=d.reason) for d in sel.deselected])
    assert selection_of(summary) == ["--shard 1/8"]
