"""A device's own thread (`OwnThread`) makes `farm run` (and a worker's device process) leave
without Python's exit (`unsettled_devices`: os._exit, its exit handlers skipped) only while it
is in a device call or was given up: one idle between calls holds nothing. And a device whose
open() failed has its thread stopped at once (no close() follows). Before, a run with a device
that could not start left through os._exit: farm.log's handler, the cache's stores, phones'
lock files and the journal claim were never let go by their exit handlers."""

import threading
from pathlib import Path

from farm.config import Settings
from farm.devices.base import OwnThread
from farm.devices.fake import FakeDevice
from farm.errors import DeviceError
from farm.executors.base import DEVICE_THREAD
from farm.executors.local import unsettled_devices
from farm.results import ArtifactStore
from farm.runner import Services
from farm.slot import DeviceSlot


def test_an_own_thread_is_unsettled_while_in_a_call_not_while_idle():
    own = OwnThread(f"{DEVICE_THREAD}idle-s47gu2 (its calls)")
    own.run(lambda: None, lambda: None)             # started, its call done: idle
    assert "idle-s47gu2 (its calls)" not in unsettled_devices()
    entered, gate = threading.Event(), threading.Event()

    def call() -> None:
        entered.set()
        gate.wait()
    caller = threading.Thread(target=own.run, args=(lambda: None, call))
    caller.start()
    entered.wait()
    try:
        assert "idle-s47gu2 (its calls)" in unsettled_devices()
    finally:
        gate.set()
        caller.join()
        own.stop()
    assert "idle-s47gu2 (its calls)" not in unsettled_devices()


class NoStart(FakeDevice):
    def open(self) -> None:
        raise DeviceError(f"{self.name}: no such browser")


def test_a_device_that_could_not_start_has_its_thread_stopped(tmp_path: Path):
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    slot = DeviceSlot(NoStart(name="nostart-s47gu2"), services, grace=0.2)
    assert not slot.open()
    assert slot.state == "dead" and "no such browser" in slot.detail
    assert not [t for t in threading.enumerate() if t.name.startswith(
        f"{DEVICE_THREAD}nostart-s47gu2")]
