"""A case's ``line`` in results.json says where to look in its file: the step its verdict
names (the line the console's FAILED line prints), else where the case starts."""

from __future__ import annotations

import json

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore, RunSummary, write_json
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.run_console import failure_lines
from farm.suite.loader import load_suites

CASE = """name: sign in
web:
  url: https://example.com
tasks:
  - name: t
    flow:
      - aiTap: Sign in
      - assertText: {text}
"""
PAGE = UITree(source="dom", page_text="Shop Sign in", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])


def run_file(tmp_path, text: str):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(text=text))
    case = load_suites([tmp_path / "s"], env={})[0].cases[0]
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r", env={})
    return run_case(Job(case.id, "web", 1), case, FakeDevice(PAGE), services)


def test_a_failed_case_is_at_its_failing_step_in_results_json(tmp_path):
    result = run_file(tmp_path, "Welcome back")
    assert result.status == "failed" and result.error.step == 2
    summary = RunSummary(run_id="r", started="", cases=[result])
    write_json(tmp_path / "results.json", summary)
    [written] = json.loads((tmp_path / "results.json").read_text())["cases"]
    assert written["line"] == 8 == written["steps"][1]["line"]
    assert "c.yaml:8) — step 2: " in failure_lines(summary)[0]      # the console says the same


def test_a_passed_case_is_at_its_first_step(tmp_path):
    result = run_file(tmp_path, "Shop")
    assert result.status == "passed" and result.line == 7
