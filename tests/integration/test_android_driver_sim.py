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


HUNG_FLOW = "      - runAdbShell: screencap -p\n        timeout: 3600000\n"
HUNG_CASE = f"""\
android:
  launch: {PKG}
tasks:
  - name: a screencap that never ends
    flow:
{HUNG_FLOW}"""


# Without the kill reaching the adb socket the case would wait for the hour-long call:
# pytest-timeout ends the test instead.
def _hung_run(tmp_path, monkeypatch, demo_app, flow: str, screenshots: str = "off") -> dict:
    """The case of ``flow`` run on an android-sim phone whose next screencap hangs for an
    hour, with a case timeout of 8 s: its result."""
    suite = tmp_path / "suite"
    suite.mkdir()
    # room for the launch on a loaded machine: the hung step is the one that times out
    (suite / "farm.yaml").write_text("timeout: 8\n")
    (suite / "hung.yaml").write_text(HUNG_CASE.replace(HUNG_FLOW, flow))
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        sim.fault(0, "slow_seconds", 3600)
        sim.fault(0, "slow", 1)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(sim.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state",
                                 watchdog_grace_seconds=1, screenshots=screenshots)
        code = run([suite], "android:1", settings, progress=False, out=out)
        assert sim.screens[0].faults.slow == 0      # a screencap was the slowed request
    assert code == 3, out.getvalue()
    [case] = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert case["status"] == "error", case
    return case


@pytest.mark.timeout(180)
def test_watchdog_kill_ends_a_hung_adb_call(tmp_path, monkeypatch, demo_app):
    """The case's first image, whose screencap never comes back: the watchdog stops the
    device at the case's end (the kill reaches the adb socket: the run ends) and the case
    says what it waited for."""
    case = _hung_run(tmp_path, monkeypatch, demo_app, "      - aiTap: Sign in\n", "all")
    assert case["error"]["kind"] == "CaseTimeout", case
    assert case["error"]["message"] == ("case timed out after 8s: waiting for the device's "
                                        "screenshot (screencap) at the case's start"), case


@pytest.mark.timeout(180)
def test_a_hung_shell_command_ends_at_the_case_s_end_naming_it(tmp_path, monkeypatch,
                                                                demo_app):
    """runAdbShell is given no more than the case's time left, whatever its timeout: the
    command is stopped there and named (the phone is not blamed). No report images: the
    slowed screencap is the step's own."""
    case = _hung_run(tmp_path, monkeypatch, demo_app, HUNG_FLOW)
    assert case["error"] == {"kind": "CaseTimeout", "step": 1, "message": (
        "case timed out after 8s during adb shell `screencap -p`")}
    assert case["steps"][0]["kind"] == "runAdbShell" and case["steps"][0]["status"] == "error"
