"""A case that reaches a device (a `farm worker`'s) without a value for one of its ``${NAME}``s
ended as "internal error: undefined variable ${SEC_PASSWORD}", a traceback in the log for each
case. It is the case's configuration, said as the suite loader says it: file:line and the
variable, no "internal error", no traceback; not retried."""

from __future__ import annotations

import logging
from pathlib import Path

from farm.attempts import Outcome, outcome
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="textbox", text="Password", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])


def test_an_undefined_variable_on_the_device_side_names_the_file_line_and_variable(
        tmp_path: Path, caplog) -> None:
    case = Case(id="shop/login", name="login", file=Path("shop/login.yaml"),
                suite_root=Path("shop"), platform="web",
                web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[
                    Step(kind="assertText", value="Welcome", line=6),
                    Step(kind="javascript", value="return '${SEC_PASSWORD}'", line=7)])],
                timeout=30)
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    caplog.set_level(logging.INFO)
    result = run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services)
    assert result.status == "error"
    said = result.error.message
    assert said.startswith("shop/login.yaml:7: undefined variable ${SEC_PASSWORD} (set it "), said
    assert "internal error" not in said
    assert result.error.kind == "UndefinedVariable"
    assert outcome(result) is Outcome.INTERNAL          # (never retried: the same everywhere)
    assert "Traceback" not in caplog.text and "internal error" not in caplog.text, caplog.text
