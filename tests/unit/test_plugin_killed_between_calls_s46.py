"""A plugin device killed between two calls (the case's watchdog firing while the case waited
for the model, or in the gap after a call) whose next call then ignored kill() hung for good:
kill() woke only a call in flight, and two callers waiting on one device left the first
unwoken. After kill() every call has the grace alone to return; kill() wakes every caller."""

from __future__ import annotations

import threading

import pytest

from farm.devices.base import PluginDevice, Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost

RELEASE = threading.Event()


class Stuck(FakeDevice):
    """tap() sleeps until the test ends, whatever kill() says."""

    def tap(self, x: int, y: int):
        RELEASE.wait()


def _device() -> PluginDevice:
    home = UINode(id=0, text="Home", rect=Rect(x=0, y=0, width=9, height=9))
    tree = UITree(source="tv", nodes=[home])
    return PluginDevice.around(Stuck(tree, name="tv-1", platform="android"),
                               "device plugin 'tvplug'", 300.0, 0.2)


def test_a_call_after_kill_that_does_not_return_is_given_up():
    device = _device()
    try:
        device.kill()                       # the watchdog, between two calls
        with pytest.raises(DeviceLost, match=r"tap\(\) of device plugin 'tvplug' did not "
                                             r"return within 0.2s of kill\(\)"):
            device.tap(1, 1)
    finally:
        RELEASE.set()


def test_kill_wakes_every_caller_waiting_on_the_device():
    RELEASE.clear()
    device = _device()
    errors: list[BaseException] = []
    started = threading.Event()

    def tap() -> None:
        started.set()
        try:
            device.tap(1, 1)
        except BaseException as exc:
            errors.append(exc)

    callers = [threading.Thread(target=tap) for _ in range(2)]
    try:
        for caller in callers:
            caller.start()
        started.wait()
        while len(device._pending) < 2:     # both waiting (no sleep: they queue at once)
            threading.Event().wait(0.01)
        device.kill()
        for caller in callers:
            caller.join(30)
        assert not any(c.is_alive() for c in callers)
        assert len(errors) == 2 and all(isinstance(e, DeviceLost) for e in errors)
    finally:
        RELEASE.set()
