"""A case whose time ran out while an infrastructure call was failing names who stopped
answering: a model error that ended past the case's deadline read "case timed out after 60s
(device stopped answering: model … did not answer …)", blaming the phone (a worker marks a
device that stops answering); only the device's own errors read so."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost, ModelRefused, ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

CART = UITree(source="dom", page_text="Cart (0)", nodes=[])
DOWN = "model scripted at http://127.0.0.1:9/v1 did not answer within 30 s (FARM_MODEL_TIMEOUT)"


def run(device: FakeDevice, services: Services,
        step: Step = Step(kind="aiAct", value="add a mug")) -> CaseResult:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[step])],
                timeout=60)
    return run_case(Job(case.id, "web", 1), case, device, services)


def past_deadline(services: Services, device: str) -> None:
    """The case's time is up now (what a slow failing call that outlived it leaves)."""
    services.in_flight[device].deadline = time.monotonic() - 1


def test_a_model_error_past_the_deadline_names_the_model(tmp_path):
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})

    def script(messages: list[dict[str, Any]], index: int) -> str:
        past_deadline(services, "fake-1")
        raise ModelUnavailable(DOWN)
    services.model = ModelSet.single(ScriptedModelClient(script))
    res = run(FakeDevice(CART), services)
    assert res.status == "error" and res.error.kind == "CaseTimeout", res.error
    assert res.error.message == f"case timed out after 60s (the model stopped answering: {DOWN})"


class DyingDevice(FakeDevice):
    def __init__(self, services: Services) -> None:
        super().__init__(CART)
        self.services = services

    def hierarchy(self) -> UITree:
        past_deadline(self.services, self.name)
        raise DeviceLost("adb: device 'fake-1' not found")


def test_a_device_error_past_the_deadline_still_names_the_device(tmp_path):
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    res = run(DyingDevice(services), services, Step(kind="aiTap", target="Pay"))
    assert res.status == "error" and res.error.kind == "CaseTimeout", res.error
    assert res.error.message == ("case timed out after 60s (device stopped answering: adb: "
                                 "device 'fake-1' not found)")


def test_a_model_that_refused_the_key_past_the_deadline_says_so(tmp_path):
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    said = "model scripted refused the API key (401): check FARM_MODEL_API_KEY"

    def script(messages: list[dict[str, Any]], index: int) -> str:
        past_deadline(services, "fake-1")
        raise ModelRefused(said)
    services.model = ModelSet.single(ScriptedModelClient(script))
    res = run(FakeDevice(CART), services)
    assert res.status == "error" and res.error.kind == "ModelRefused", res.error
    assert res.error.message == said
