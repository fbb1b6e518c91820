"""A device plugin for the integration tests: kind ``fake``, an in-memory web device.

    FARM_DEVICE_PLUGINS=tests.support.devices farm run SUITE --devices fake:2
    FARM_DEVICE_PLUGINS=tests.support.devices farm worker --broker URL --devices fake:2

(the process must be able to import ``tests``: run it from the repository root or put the root
on PYTHONPATH). A ``fake`` device is `farm.devices.fake.FakeDevice` with an empty page: ``sleep``
steps really sleep, ``assertText`` fails, ``javascript`` returns null. It costs no Chromium, so
infrastructure faults are cheap to stage. The switches are read from the environment of the
process that builds the devices (`farm run`, or each `farm worker`):

    FARM_TEST_FAKE_FAIL=1              every start_session raises DeviceLost, on every fake device
    FARM_TEST_FAKE_FAIL=fake-1,fake-3  ... only on the devices named (a worker's "@host" ignored)
    FARM_TEST_FAKE_UNHEALTHY=N         healthy() answers False the first N times it is asked
    FARM_TEST_FAKE_JOURNAL=DIR         each device appends what happens to it (open, close,
                                       unhealthy, session, hang, kill) to DIR/<name>.log
    FARM_TEST_FAKE_OPEN_GATE=PATH      open() notes "opening" and waits until PATH exists (a
                                       device the test holds in its start-up)

and scripts a case can run on any fake device:

    - javascript: farm-test:hang       blocks, ignoring the step's timeout, until the device is
                                       killed: only the executor's watchdog ends it
    - javascript: farm-test:wait-for:PATH   blocks until the file PATH exists (the test says
                                       when the case may go on), or the step's timeout
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind
from farm.errors import CaseTimeout, DeviceLost

HANG = "farm-test:hang"
WAIT_FOR = "farm-test:wait-for:"
HANG_LIMIT_S = 600.0        # an orphaned hang still ends, long after any test gave up


def farm_device_kinds() -> dict[str, DeviceKind]:
    return {"fake": DeviceKind(platform="web", build=build)}


def build(name: str, settings: Settings, index: int) -> "StagedFakeDevice":
    fail = os.environ.get("FARM_TEST_FAKE_FAIL", "")
    failing = fail == "1" or name.split("@")[0] in {n.strip() for n in fail.split(",")}
    journal = os.environ.get("FARM_TEST_FAKE_JOURNAL")
    return StagedFakeDevice(name, failing=failing,
                            unhealthy=int(os.environ.get("FARM_TEST_FAKE_UNHEALTHY") or 0),
                            journal=Path(journal) / f"{name}.log" if journal else None)


class StagedFakeDevice(FakeDevice):
    """FakeDevice with the faults a test stages through the switches above."""

    def __init__(self, name: str, failing: bool, unhealthy: int, journal: Path | None) -> None:
        errors = {"start_session": DeviceLost(f"{name}: start_session fails "
                                              "(FARM_TEST_FAKE_FAIL)")} if failing else {}
        super().__init__(name=name, platform="web", errors=errors,
                         scripts={HANG: self._hang})
        self.unhealthy_left = unhealthy
        self.journal = journal

    def _note(self, event: str) -> None:
        if self.journal is not None:
            with self.journal.open("a", encoding="utf-8") as f:
                f.write(event + "\n")

    def _hang(self, _device: Any) -> None:
        self._note("hang")
        self._killed.wait(HANG_LIMIT_S)
        raise DeviceLost(f"device {self.name} was killed")

    def run_script(self, code: str, timeout_s: float) -> Any:
        if not code.startswith(WAIT_FOR):
            return super().run_script(code, timeout_s)
        self._act("run_script", code)
        path, deadline = Path(code[len(WAIT_FOR):]), time.monotonic() + timeout_s
        while not path.exists():
            if self._killed.wait(0.05):
                raise DeviceLost(f"device {self.name} was killed")
            if time.monotonic() > deadline:
                raise CaseTimeout(f"{path} did not appear within {timeout_s:g}s")
        return True

    def open(self) -> None:
        gate = os.environ.get("FARM_TEST_FAKE_OPEN_GATE")
        if gate:
            self._note("opening")
            deadline = time.monotonic() + HANG_LIMIT_S
            while not Path(gate).exists() and time.monotonic() < deadline:
                self._killed.wait(0.05)
        super().open()
        self._note("open")

    def close(self) -> None:
        super().close()
        self._note("close")

    def start_session(self, target: Any) -> None:
        self._note("session")
        super().start_session(target)

    def healthy(self) -> bool:
        sick = self.unhealthy_left > 0 or not super().healthy()
        self.unhealthy_left = max(self.unhealthy_left - 1, 0)
        if sick:
            self._note("unhealthy")
        return not sick

    def kill(self) -> None:
        self._note("kill")
        super().kill()
