"""DeviceSlot: a case skipped before its session (a worker without a model, the case's first
step needs one) leaves the device's infra-error streak as it was. It ended the streak: a
worker device whose every session failed, taking such cases between its failures, was never
quarantined and kept failing the run's cases."""

from __future__ import annotations

from pathlib import Path

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.slot import DeviceSlot
from farm.suite.model import Case, Step, Task, WebTarget


def case(cid: str, step: Step) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/tmp/{cid}.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[step])])


def test_a_case_skipped_before_its_session_does_not_end_the_streak(tmp_path):
    broken = FakeDevice(name="fake-2@h", errors={"start_session": DeviceLost("no session")})
    slot = DeviceSlot(broken, Services(Settings(), ArtifactStore(tmp_path), "run-1", {}))
    assert slot.open()
    plain = case("s/plain", Step(kind="sleep", value="1"))
    judged = case("s/judged", Step(kind="aiAssert", value="the page is blank"))
    statuses = []
    for n, c in enumerate([plain, plain, judged, plain], start=1):
        result = slot.run(Job(c.id, "web", 1.0, attempt=n), c)
        statuses.append(result.status)
    assert statuses == ["error", "error", "skipped", "error"]
    assert slot.quarantine_due                   # three sessions failed in a row


def test_a_case_that_ran_on_the_device_still_ends_the_streak(tmp_path):
    device = FakeDevice(name="fake-1@h")
    slot = DeviceSlot(device, Services(Settings(), ArtifactStore(tmp_path), "run-1", {}))
    assert slot.open()
    plain = case("s/plain", Step(kind="sleep", value="1"))
    device.errors["start_session"] = DeviceLost("no session")
    for n in (1, 2):
        assert slot.run(Job(plain.id, "web", 1.0, attempt=n), plain).status == "error"
    del device.errors["start_session"]
    assert slot.run(Job(plain.id, "web", 1.0, attempt=3), plain).status == "passed"
    device.errors["start_session"] = DeviceLost("no session")
    assert slot.run(Job(plain.id, "web", 1.0, attempt=4), plain).status == "error"
    assert not slot.quarantine_due
