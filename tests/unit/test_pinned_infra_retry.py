"""A case pinned to one phone (Midscene's android.deviceId / ios wdaHost:wdaPort) whose
attempt ends in an infrastructure error: its retry may only run on that phone, so it runs
there again (within the infra quota), instead of waiting for another device that may not
take it. Before, with a second phone in the run, nobody ever took the retry and the run
never ended."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.attempts import Outcome, RetryPolicy, next_attempt
from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.errors import DeviceError
from farm.executors.local import LocalExecutor
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job, pick_job
from farm.suite.model import AndroidTarget, Case, Step, Task


def test_a_pinned_case_s_infra_retry_goes_back_to_its_phone():
    job = Job("s/pin", "android", 5.0, pin="emulator-5556")
    retry = next_attempt(job, Outcome.INFRA, "emulator-5556", RetryPolicy(infra_retries=1))
    assert retry is not None
    assert pick_job([retry], "emulator-5554", "android", 1) is None    # not its phone
    assert pick_job([retry], "emulator-5556", "android", 1) == 0
    # an unpinned retry still prefers another device while one is live
    free = next_attempt(Job("s/free", "android", 5.0), Outcome.INFRA, "emulator-5556",
                        RetryPolicy(infra_retries=1))
    assert pick_job([free], "emulator-5556", "android", 1) is None
    assert pick_job([free], "emulator-5554", "android", 1) == 0


@pytest.mark.timeout(60)        # (before: the run waited for ever)
def test_a_run_with_a_pinned_case_whose_phone_errs_ends(tmp_path):
    case = Case(id="s/pin", name="pin", file=Path("/tmp/pin.yaml"), suite_root=Path("/tmp"),
                platform="android", android=AndroidTarget(device_id="emulator-5556"),
                tasks=[Task(name="t", steps=[Step(kind="assertText", value="hello")])])
    other = FakeDevice(None, name="emulator-5554", platform="android")
    pinned = FakeDevice(None, name="emulator-5556", platform="android",
                        errors={"hierarchy": DeviceError("adb refused"),
                                "screenshot": DeviceError("adb refused")})
    services = Services(settings=Settings(cache="off"), artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r1", env={})
    executor = LocalExecutor([other, pinned], {case.id: case}, services,
                             RetryPolicy(infra_retries=1))
    [result] = executor.run([Job(case.id, "android", 1.0, pin=case.pin)]).results
    assert result.status == "error" and result.error.kind == "DeviceError"
    assert result.attempt == 2 and result.device == "emulator-5556"
    assert [p.device for p in result.previous] == ["emulator-5556"]
