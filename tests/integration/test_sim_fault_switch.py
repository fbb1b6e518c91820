"""The adb fault switch works like the WDA one (README): `adb shell farm-sim fault NAME COUNT`
is never itself faulted, so `drop` can be switched off over adb, with Debian's adb client as
a user types it, and a slowed screencap does not hold the switch up."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator
from farm.errors import DeviceLost
from tests.support.farm_cli import wait_for

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def android():
    with AndroidSimulator(2) as sim:
        yield sim


def adb(sim: AndroidSimulator, serial: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(sim.port)}
    return subprocess.run(["adb", "-s", serial, "shell", *args], capture_output=True,
                          text=True, env=env, timeout=60)


def test_drop_is_switched_off_over_adb(android):
    serial = android.serials[0]
    assert adb(android, serial, "farm-sim", "fault", "drop", "-1").stdout == "ok\n"
    dropped = adb(android, serial, "echo", "hi")
    assert dropped.returncode != 0 and "hi" not in dropped.stdout   # the phone is "gone"
    switched = adb(android, serial, "farm-sim", "fault", "drop", "0")
    assert (switched.returncode, switched.stdout) == (0, "ok\n"), switched.stderr
    assert adb(android, serial, "echo", "hi").stdout == "hi\n"
    assert android.screens[0].faults.active() == {}


def test_drop_is_switched_off_through_adbutils(android):
    phone = AndroidDevice("a1", None, android.serials[0], port=android.port)
    phone.open()
    android.fault(0, "drop", -1)
    assert not phone.healthy()
    assert phone.shell("farm-sim fault drop 0") == "ok\n"
    assert phone.healthy()


def test_a_slowed_screencap_does_not_hold_the_switch_up(android):
    serial = android.serials[1]
    phone = AndroidDevice("a2", None, serial, port=android.port)
    phone.open()
    android.fault(1, "slow_seconds", 3600)
    android.fault(1, "slow", 1)
    ended: list[BaseException] = []

    def screencap() -> None:
        try:
            phone.shell_result("screencap -p", 3600)
        except DeviceLost as exc:
            ended.append(exc)
    hung = threading.Thread(target=screencap, daemon=True)
    hung.start()
    wait_for(lambda: android.screens[1].faults.slow == 0, what="the slowed screencap")
    # behind the hour-long screencap the switch would not answer (adb() gives up after 60 s)
    switched = adb(android, serial, "farm-sim", "fault", "black", "0")
    assert (switched.returncode, switched.stdout) == (0, "ok\n"), switched.stderr
    phone.kill()                    # ends the hung call (nothing is left waiting)
    hung.join()
    assert [str(e) for e in ended] == ["a2 lost (screencap): farm stopped the device"]
