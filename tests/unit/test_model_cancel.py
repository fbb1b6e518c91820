"""Ctrl-C stops the model at once: a run that is stopping neither waits for a request in flight
nor waits out a retry's backoff nor sends another request (it used to wait up to
FARM_MODEL_TIMEOUT per attempt and send the retries after the interrupt). Real litellm over
HTTP against the scripted model server (a thread), a FakeDevice and `run_case`; the run's stop
event is `Services.cancel`, which Ctrl-C sets."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import NEVER_ANSWERS, Reply, serve

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])
PATIENCE_S = 60     # how long the test waits for the case to end: far less than the model's
#                     timeout (600 s) or the backoff (600 s) it must not wait out


def first_request_then(entry: Reply, arrived: threading.Event):
    """A script: ``entry`` for every request; ``arrived`` is set when the first one is in."""
    def script(body: dict, index: int) -> Reply:
        arrived.set()
        return entry
    return script


class BackingOff(logging.Handler):
    """Sets ``event`` when the client logs that it waits before its first retry."""

    def __init__(self, event: threading.Event) -> None:
        super().__init__(logging.INFO)
        self.event = event

    def emit(self, record: logging.LogRecord) -> None:
        if "retry 1 in" in record.getMessage():
            self.event.set()


def run_until_stopped(tmp_path: Path, client: object, ready: threading.Event
                      ) -> CaseResult:
    """run_case of one ai step; the run is stopped (Ctrl-C) once ``ready`` is set."""
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="log in")])], timeout=3000)
    services = Services(settings=Settings(cache="off"), artifacts=ArtifactStore(tmp_path),
                        run_id="r1", env={}, model=ModelSet.single(client))
    results: list[CaseResult] = []
    runner = threading.Thread(target=lambda: results.append(
        run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services)), daemon=True)
    runner.start()
    assert ready.wait(PATIENCE_S), "the model call never got there"
    services.cancel.set()
    runner.join(PATIENCE_S)
    assert not runner.is_alive(), "the case still waits for the model after Ctrl-C"
    return results[0]


@pytest.mark.parametrize("entry, stop_when", [(NEVER_ANSWERS, "asked"),
                                               (Reply(status=500), "backing off")],
                         ids=["request in flight", "waiting out the backoff"])
def test_ctrl_c_ends_a_model_call_at_once_and_sends_no_retry(tmp_path, server, entry,
                                                             stop_when):
    from farm.llm.litellm_client import LiteLLMClient
    asked, backing_off = threading.Event(), threading.Event()
    srv = serve(server, first_request_then(entry, asked))
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, timeout=600, retries=2,
                           backoff=600)
    watch, llm_log = BackingOff(backing_off), logging.getLogger("farm.llm")
    llm_log.addHandler(watch)
    level = llm_log.level
    llm_log.setLevel(logging.INFO)
    try:
        res = run_until_stopped(tmp_path, client,
                                asked if stop_when == "asked" else backing_off)
    finally:
        llm_log.removeHandler(watch)
        llm_log.setLevel(level)
    assert res.status == "interrupted", res.error
    assert res.reason == "interrupted: the run was stopped"
    assert len(srv.requests) == 1               # nothing sent after the interrupt
    assert res.steps[0].usage.calls == 1        # the request that went out still counts
