"""The Android driver on simulated phones, through the real adbutils: `Home` is the Home button
(as Midscene's Android pressKey sends it), a lost phone says why in words, and the watchdog's
kill ends an adb call that hangs instead of waiting for the driver's own timeout."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator
from farm.devices.sim.androidshell import LAUNCHER
from farm.errors import DeviceLost
from farm.session import run
from farm.suite.model import AndroidTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"


@pytest.fixture(scope="module")
def android(demo_app):
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture
def phone(android):
    dev = AndroidDevice("a1", None, android.serials[0], port=android.port)
    dev.open()
    dev.start_session(AndroidTarget(launch=PKG))
    yield dev
    android.fault(0, "drop", 0)
    dev.close()


def test_home_key_goes_to_the_home_screen(phone):
    assert phone.current_app() == PKG
    phone.press("Home")                     # what `aiKeyboardPress: Home` runs
    assert phone.current_app() == LAUNCHER


def test_a_dropped_connection_says_the_adb_server_closed_it(android, phone):
    android.fault(0, "drop", 1)
    with pytest.raises(DeviceLost) as lost:
        phone.screenshot()
    assert str(lost.value) == \
        "a1 lost (screencap): the adb server closed the connection without answering"


HUNG_CASE = f"""\
android:
  launch: {PKG}
tasks:
  - name: a screencap that never ends
    flow:
      - runAdbShell: screencap -p
        timeout: 3600000
"""


# Without the kill reaching the adb socket the case would wait for the hour-long screencap:
# pytest-timeout ends the test instead.
@pytest.mark.timeout(180)
def test_watchdog_kill_ends_a_hung_adb_call(tmp_path, monkeypatch, demo_app):
    suite = tmp_path / "suite"
    suite.mkdir()
    # room for the launch on a loaded machine: the hung step is the one that times out
    (suite / "farm.yaml").write_text("timeout: 8\n")
    (suite / "hung.yaml").write_text(HUNG_CASE)
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        sim.fault(0, "slow_seconds", 3600)
        sim.fault(0, "slow", 1)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(sim.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        out = io.StringIO()
        # no report images: the slowed screencap is the step's own, not a "before" image
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state",
                                 watchdog_grace_seconds=1, screenshots="off")
        code = run([suite], "android:1", settings, progress=False, out=out)
        assert sim.screens[0].faults.slow == 0      # the screencap was the slowed one
    assert code == 3, out.getvalue()
    [case] = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert case["status"] == "error", case
    assert case["error"] == {"kind": "CaseTimeout", "step": 1, "message": (
        "case timed out after 8s (device stopped answering: emulator-5554 lost (screencap): "
        "farm stopped the device)")}
    assert case["steps"][0]["kind"] == "runAdbShell" and case["steps"][0]["status"] == "error"
