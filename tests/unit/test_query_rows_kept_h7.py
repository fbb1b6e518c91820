"""A large query answer is kept whole: an aiQuery of 500 rows kept 200 in the case's data,
results.json and its ``output:`` file (lists were cut to 200 items, objects to 100 keys,
other values to 2,000 characters), and nothing said so. Secrets in it are still masked."""

from __future__ import annotations

import json
from pathlib import Path

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, RunSummary, write_json
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

ROWS = [{"order": f"#{n}", "total": n * 1.5} for n in range(500)]
WIDE = {f"column{n}": n for n in range(150)}


def run_queries(tmp_path: Path, *answers: object) -> tuple[object, dict]:
    """(the case's result, results.json as read back) of one aiQuery step per answer."""
    client = ScriptedModelClient([json.dumps({"data": a}) for a in answers])
    steps = [Step(kind="aiQuery", value=f"query {i}", options={"name": f"q{i}"})
             for i in range(len(answers))]
    case = Case(id="s/rows", name="rows", file=Path("/tmp/rows.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                secrets=["PIN"], vars={"PIN": "s3cr3t-pin"}, tasks=[Task(name="t", steps=steps)])
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path / "art"), env={},
                        model=ModelSet.single(client))
    page = UITree(source="dom", page_text="orders", nodes=[])
    result = run_case(Job(case.id, "web", 1), case, FakeDevice(page), services)
    write_json(tmp_path / "results.json", RunSummary(run_id="r", started=result.started,
                                                                 cases=[result]))
    return result, json.loads((tmp_path / "results.json").read_text())["cases"][0]


def test_an_ai_query_of_500_rows_keeps_500_rows(tmp_path):
    result, kept = run_queries(tmp_path, ROWS, WIDE, "x" * 5000)
    assert result.status == "passed", result.error
    assert len(kept["data"]["q0"]) == 500 and kept["data"]["q0"] == ROWS
    assert kept["data"]["q1"] == WIDE                         # 150 keys, not 100
    assert kept["data"]["q2"] == "x" * 5000
    assert len(kept["steps"][0]["output"]) == 500             # the report's step output too


def test_a_secret_deep_in_a_large_answer_is_still_masked(tmp_path):
    rows = ROWS[:300] + [{"order": "#300", "note": "pin s3cr3t-pin"}]
    _, kept = run_queries(tmp_path, rows)
    assert len(kept["data"]["q0"]) == 301
    assert "s3cr3t-pin" not in json.dumps(kept)
    assert kept["data"]["q0"][300]["note"] == "pin ***"
