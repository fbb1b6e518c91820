"""Farm's own device kinds (not a plugin's device) are given up, as a plugin's is, when a
call goes on after kill(): the watchdog's kill did not end it (a driver call kill() does not
reach). Before, the case's device thread stayed in that call for good and the run never
ended, even with --timeout."""

import threading
from pathlib import Path

import pytest

from farm.attempts import RetryPolicy
from farm.devices.fake import FakeDevice
from farm.executors.base import DEVICE_THREAD
from farm.executors.local import LocalExecutor, unsettled_devices
from farm.results import ArtifactStore
from farm.runner import Services
from farm.config import Settings
from farm.schedule import Job
from farm.slot import DeviceSlot
from farm.suite.model import Case, Step, Task, WebTarget


@pytest.fixture
def release():
    """The gate of a call farm gives up on: opened after the test, whose device threads are
    then waited for (none is left for the next test to find in `unsettled_devices`)."""
    before = set(threading.enumerate())
    gate = threading.Event()
    yield gate
    gate.set()          # the call farm gave up on ends with the test
    for thread in set(threading.enumerate()) - before:
        if thread.name.startswith(DEVICE_THREAD):
            thread.join(30)


def make_case(cid, steps, timeout):
    return Case(id=f"s/{cid}", name=cid, file=Path(f"/tmp/{cid}.yaml"),
                suite_root=Path("/tmp"), platform="web",
                web=WebTarget(url="http://127.0.0.1:1/"), tasks=[Task(name="t", steps=steps)],
                timeout=timeout)


def services(tmp_path):
    return Services(settings=Settings(watchdog_grace_seconds=0.3),
                    artifacts=ArtifactStore(tmp_path), run_id="r1", env={})


def test_a_call_that_outlives_kill_is_given_up_the_device_lost_and_the_run_ends(
        tmp_path, release):
    # kill() reaches no one
    dev = FakeDevice(name="spin-1", scripts={"spin": lambda d: release.wait(600)})
    # (the timeout leaves room for the step to begin before the deadline on a loaded machine)
    spin = make_case("spin", [Step(kind="assertText", value=""),
                              Step(kind="javascript", value="spin", line=4)], timeout=3)
    ex = LocalExecutor([dev], {spin.id: spin}, services(tmp_path), RetryPolicy(infra_retries=1))
    outcome = ex.run([Job(spin.id, "web", 1.0)])
    [res] = outcome.results
    assert res.status == "error" and res.error.kind == "CaseTimeout", res
    said = ("spin-1: run_script() did not return within 0.3s of kill(): farm gave up on it "
            "(its thread is left running) and uses the device no more")
    assert res.error.message.startswith("case timed out after 3s"), res.error.message
    assert said in res.error.message
    assert [s.status for s in res.steps] == ["passed", "error"]     # what it did so far
    assert res.error.step == 2 and res.device == "spin-1"
    assert outcome.lost == {"spin-1": said}


def test_a_given_up_device_is_called_no_more(tmp_path, release):
    dev = FakeDevice(name="spin-2", scripts={"spin": lambda d: release.wait(600)})
    slot = DeviceSlot(dev, services(tmp_path), grace=0.2)
    assert slot.open()
    case = make_case("spin", [Step(kind="javascript", value="spin")], timeout=0.5)
    res = slot.run(Job(case.id, "web", 1), case)
    assert res.status == "error" and "run_script() did not return" in res.error.message
    assert slot.state == "dead" and slot.abandoned
    slot.close()                    # returns at once: the device's thread is still in the call
    assert not dev.closed
    # `farm run` (and a worker's device process) then leaves without the interpreter's
    # teardown, which crashes on a thread left in a Playwright call
    assert "spin-2 (its calls)" in unsettled_devices()


def test_a_device_s_own_thread_ends_with_its_slot(tmp_path):
    slot = DeviceSlot(FakeDevice(name="fake-2"), services(tmp_path), grace=0.2)
    assert slot.open()
    slot.close()
    assert not [n for n in unsettled_devices() if n.startswith("fake-2")]


def test_a_wait_of_farm_s_own_after_kill_is_waited_for_not_given_up(tmp_path):
    """The watchdog killed the device while the case was in farm's own code (a model request
    on its way back, here the step's report): that ends by itself, and the device, which did
    nothing wrong, is not given up on (it would be lost to the run)."""
    # ends at kill()
    dev = FakeDevice(name="wait-1", scripts={"spin": lambda d: d._killed.wait(600)})
    svc = services(tmp_path)
    slot = DeviceSlot(dev, svc, grace=0.3)
    looks, looked = [], threading.Event()
    own_look = slot._own._looked

    def counted(*args):                 # the watchdog's looks at the device's thread
        looks.append(1)
        if len(looks) >= 3:
            looked.set()
        return own_look(*args)
    slot._own._looked = counted

    def slow_report(device, rec):       # farm's own, slow: three of the watchdog's looks
        if dev._killed.is_set():
            assert looked.wait(60)
    svc.on_step = slow_report
    case = make_case("spin", [Step(kind="javascript", value="spin"),
                              Step(kind="assertText", value="")], timeout=1)
    assert slot.open()
    res = slot.run(Job(case.id, "web", 1), case)
    assert res.status == "error" and res.error.kind == "CaseTimeout", res
    assert "gave up" not in res.error.message
    assert slot.usable and slot.abandoned is None
    slot.close()
    assert dev.closed
