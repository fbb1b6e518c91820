"""DeviceSlot.ready(job): the health check made before an attempt starts spares that
attempt's `run` a second one, and only that attempt's. A cluster worker checks, then claims
the attempt; when another worker claimed it in between, the job is dropped: the device's
next case must still be checked (it ran unchecked once, on a device that may have died)."""

from __future__ import annotations

from pathlib import Path

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.slot import DeviceSlot
from farm.suite.model import Case, Step, Task, WebTarget


class CountedChecks(FakeDevice):
    def __init__(self) -> None:
        super().__init__(name="fake-1@h")
        self.checks = 0

    def healthy(self) -> bool:
        self.checks += 1
        return super().healthy()


def case(cid: str) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/tmp/{cid}.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


def test_a_check_made_for_a_dropped_attempt_does_not_spare_the_next_cases(tmp_path):
    device = CountedChecks()
    slot = DeviceSlot(device, Services(Settings(), ArtifactStore(tmp_path), "run-1", {}))
    assert slot.open()
    dropped, taken = Job("s/a", "web", 1.0, attempt=1), Job("s/b", "web", 1.0, attempt=1)
    assert slot.ready(dropped) and device.checks == 1     # (then another worker claimed it)
    assert slot.run(taken, case("s/b")).status == "passed"
    assert device.checks == 2                            # checked, not taken as checked
    assert slot.ready(taken) and device.checks == 3
    assert slot.run(taken, case("s/b")).status == "passed"
    assert device.checks == 3                            # its own check: not asked twice
