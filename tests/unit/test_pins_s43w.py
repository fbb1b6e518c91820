"""A case pinned (``deviceId``) to a phone that is no device of the run once it runs: the
executor said "which this run did not take ... give --devices android:N", advice for a
command-line mistake, where the adb server no longer lists the phone (unplugged during the
run). It now says what the run's start says of such a pin: no such device, the server's
phones listed, at the pin's file:line."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.executors.local import LocalExecutor
from farm.schedule import Job
from farm.suite.model import AndroidTarget, Case, Step, Task
from tests.unit.test_executor import SCREEN, FakeDevice, services
from tests.unit.test_pins_s43q import adb_server  # noqa: F401  (the fixture)


def _pinned(tmp_path: Path, serial: str) -> Case:
    file = tmp_path / "pinned.yaml"
    file.write_text(f"android:\n  deviceId: {serial}\ntasks: []\n")
    return Case(id="s/pin", name="pin", file=file, suite_root=tmp_path, platform="android",
                android=AndroidTarget(device_id=serial),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


def test_a_pin_the_adb_server_no_longer_lists_is_no_such_device(tmp_path, adb_server,
                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    case = _pinned(tmp_path, "s4ey59ytbitot4yp")
    phone = FakeDevice(SCREEN, name="emulator-5554", platform="android")
    ex = LocalExecutor([phone], {case.id: case}, services(tmp_path), RetryPolicy())
    [result] = ex.run([Job(case.id, "android", 1.0, pin=case.pin)]).results
    assert result.status == "error" and result.error.kind == "DeviceLost"
    assert result.error.message == (
        "pinned.yaml:2: deviceId s4ey59ytbitot4yp: no such device: the adb server at "
        "127.0.0.1:5037 lists emulator-5554, emulator-5556, emulator-5558 (correct the "
        "deviceId, or connect that phone)")
    assert "--devices" not in result.error.message
