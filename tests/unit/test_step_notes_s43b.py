"""A step whose xpath: matched nothing, its target found by its text instead, passes and says
so on the step: results.json's step (`notes`), the report's step row, and a warning at the end
of the run on the console (the rich view prints no passed case, --no-progress nothing: the
note was only in a plain-text progress line). A run with nothing to note writes the results.json
it wrote before (no `notes` key)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from farm.config import Settings
from farm.report.html import render_html
from farm.results import ArtifactStore, CaseResult, RunSummary
from farm.run_console import print_end
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.unit.test_cache_trust import login_page

NOTE = ("its xpath //*[@id='gone'] matched nothing; found \"login-button\" (button) by the "
        "text tier instead")


def _run(tmp_path: Path, xpath: str) -> RunSummary:
    case = Case(id="s/login", name="login", file=Path("s/login.yaml"), suite_root=Path("s"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[
                    Step(kind="aiTap", target="Sign in", xpath=xpath, line=9),
                    Step(kind="assertText", value="Sign in", line=11)])])
    services = Services(settings=Settings(), run_id="r1", env={},
                        artifacts=ArtifactStore(tmp_path))
    result: CaseResult = run_case(Job(case.id, "web", 1), case, login_page(), services)
    summary = RunSummary(run_id="r1", started="", duration=1.5, cases=[result])
    summary.recount()
    return summary


def test_a_stale_xpath_is_noted_on_its_step_everywhere_a_user_looks(tmp_path: Path):
    summary = _run(tmp_path, "//*[@id='gone']")
    case = summary.cases[0]
    assert case.status == "passed"
    steps = json.loads(summary.model_dump_json())["cases"][0]["steps"]
    assert steps[0]["notes"] == [NOTE]                  # results.json, on the step
    assert "notes" not in steps[1]                      # nothing to say: no key
    assert case.reason == f"step 1 (line 9): {NOTE}"    # the progress line, JUnit's note
    table = render_html(summary).split('<table class="steps">')[1].split("</table>")[0]
    tap, check = table.split("</thead>")[1].split("<tr")[1:]
    assert 'aiTap "Sign in" <i>line 9</i>' in tap
    assert f'<div class="snote"><b>Note:</b> {NOTE}</div>' in tap     # the report's step row
    assert "snote" not in check
    out = io.StringIO()
    print_end(summary, tmp_path, out)
    assert out.getvalue().splitlines() == [
        "farm: 1 passed in 1.5s (run r1)",
        f"farm: warning: s/login (s/login.yaml:9) step 1: {NOTE}"]


def test_a_run_with_nothing_to_note_writes_no_notes(tmp_path: Path):
    summary = _run(tmp_path, "//*[@id='login-button']")     # the xpath finds the button
    assert summary.cases[0].steps[0].tier == "xpath"
    assert '"notes"' not in summary.model_dump_json()
    assert summary.cases[0].reason is None
    out = io.StringIO()
    print_end(summary, tmp_path, out)
    assert out.getvalue().splitlines() == ["farm: 1 passed in 1.5s (run r1)"]
