"""A step that needs a model inside a ``continueOnError: true`` task, on a run with no model:
the task ends there and the later tasks still run, but the case never reads as passed: its
check was never made (README: "the case is then skipped, never passed")."""
from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.report.junit import write_junit
from farm.results import ArtifactStore, RunSummary
from farm.run_console import skipped_lines
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

LOGIN = UITree(source="dom", page_text="Shop", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=60, width=100, height=30)),
])
HOME = UITree(source="dom", page_text="Welcome back, demo", nodes=[])
WAIT = "aiWaitFor at line 3"


def shop() -> FakeDevice:
    return FakeDevice(screens={"login": LOGIN, "home": HOME}, start="login",
                      transitions={"Sign in": "home"})


def run(tmp_path: Path, *tasks: Task):
    c = Case(id="s/soft", name="soft", file=Path("/tmp/s/soft.yaml"), suite_root=Path("/tmp/s"),
             platform="web", web=WebTarget(url="http://127.0.0.1:1/"), tasks=list(tasks))
    svc = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1", env={})
    return run_case(Job(c.id, "web", 1), c, shop(), svc)


def optional_wait() -> Task:
    """11_numbers_bool.yaml of the report: a tap that passes, then a check only a model makes."""
    return Task(name="inline", continue_on_error=True, steps=[
        Step(kind="aiTap", target="Sign in", line=3),
        Step(kind="aiWaitFor", value="Welcome", line=3)])


def test_an_optional_task_whose_check_needs_a_model_is_skipped_not_passed(tmp_path):
    res = run(tmp_path, optional_wait())
    assert [s.status for s in res.steps] == ["passed", "skipped"]
    assert res.status == "skipped"
    assert res.reason.startswith("needs a model (set FARM_MODEL)") and WAIT in res.reason
    summary = RunSummary(run_id="r1", started="", cases=[res])
    [line] = skipped_lines(summary)
    assert line.startswith(f"SKIPPED s/soft ({res.file}:3) — needs a model")
    write_junit(summary, tmp_path / "junit.xml")
    case = ElementTree.parse(tmp_path / "junit.xml").find(".//testcase")
    assert case.find("skipped") is not None and case.find("failure") is None


def test_the_later_tasks_still_run_and_the_case_is_skipped_when_they_pass(tmp_path):
    """09_continue.yaml: the optional task's model step is skipped, the later task runs (a
    failure there would fail the case) and passes; the case is skipped, with the reason."""
    soft = Task(name="soft", continue_on_error=True, steps=[
        Step(kind="aiAssert", value="there is no cookie banner", line=7)])
    hard = Task(name="hard", steps=[Step(kind="aiTap", target="Sign in", line=11),
                                    Step(kind="assertText", value="Welcome back", line=12)])
    res = run(tmp_path, soft, hard)
    assert [s.status for s in res.steps] == ["skipped", "passed", "passed"]
    assert res.status == "skipped" and "aiAssert at line 7" in res.reason
