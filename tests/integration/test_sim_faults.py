"""Every simulator fault switch → the status farm reports and how it recovers, through the
real adbutils / facebook-wda code paths."""

from __future__ import annotations

import os
import subprocess

import pytest

from farm.devices.android import AndroidDevice
from farm.devices.ios import IosDevice
from farm.devices.sim import AndroidSimulator, IosSimulator
from farm.errors import DeviceError, DeviceLost, StepFailed
from farm.suite.model import AndroidTarget, IosTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"


@pytest.fixture(scope="module")
def android(demo_app):
    with AndroidSimulator(2, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture(scope="module")
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture
def phone(android):
    dev = AndroidDevice("a1", None, android.serials[0], port=android.port)
    dev.open()
    dev.start_session(AndroidTarget(launch=PKG))
    yield dev
    for name in ("drop", "black", "idle", "empty_tree", "slow", "input_blocked",
                 "launch_fail"):
        android.fault(0, name, 0)


@pytest.fixture
def iphone(ios):
    dev = IosDevice("i1", None, ios.urls[0])
    dev.open()
    dev.start_session(IosTarget(launch=PKG))
    yield dev
    for name in ("drop", "black", "empty_tree", "slow", "invalid_session"):
        ios.fault(0, name, 0)


def test_debian_adb_lists_simulated_devices(android):
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(android.port)}
    out = subprocess.run(["adb", "devices"], capture_output=True, text=True, env=env,
                         timeout=60).stdout
    assert all(f"{s}\tdevice" in out for s in android.serials)
    shell = subprocess.run(["adb", "-s", android.serials[1], "shell", "wm", "size"],
                           capture_output=True, text=True, env=env, timeout=60).stdout
    assert "Physical size: 1080x2400" in shell


def test_dropped_connection_is_device_lost_then_recovers(android, phone):
    android.fault(0, "drop", 1)
    with pytest.raises(DeviceLost):
        phone.screenshot()
    assert phone.healthy()
    assert phone.screenshot().startswith(b"\x89PNG")


def test_dropped_for_good_fails_health_check(android, phone):
    android.fault(0, "drop", -1)
    assert not phone.healthy()
    android.fault(0, "drop", 0)
    assert phone.healthy()


def test_black_frame_is_flagged_and_tree_still_works(android, phone):
    android.fault(0, "black", 1)
    phone.screenshot()
    assert phone.screenshot_black and phone.last_observation == "black-frame"
    tree = phone.hierarchy()
    assert tree is not None and phone.last_observation == "tree"
    assert "Sign in" in tree.visible_text()
    phone.screenshot()
    assert not phone.screenshot_black


def test_idle_state_and_empty_tree_are_retried(android, phone):
    android.fault(0, "idle", 2)
    assert phone.hierarchy() is not None
    android.fault(0, "empty_tree", 2)
    assert phone.hierarchy() is not None
    android.fault(0, "empty_tree", -1)
    assert phone.hierarchy() is None and phone.last_observation == "empty-tree"


def test_slow_screencap_is_only_slow(android, phone):
    android.fault(0, "slow_seconds", 1.0)
    android.fault(0, "slow", 1)
    assert phone.screenshot().startswith(b"\x89PNG")
    assert android.screens[0].faults.slow == 0      # that screencap was the slowed one


def test_blocked_input_is_an_error_not_a_silent_success(android, phone):
    android.fault(0, "input_blocked", 1)
    with pytest.raises(DeviceError, match="INJECT_EVENTS"):
        phone.tap(100, 100)


def test_non_ascii_text_goes_through_the_ime(phone):
    tree = phone.hierarchy()
    field = next(n for n in tree.nodes if n.text == "Enter your username")
    phone.tap(*field.rect.center)
    phone.type_text("zoë 東京")
    assert any(n.editable for n in phone.hierarchy().nodes)


def test_launch_that_crashes_is_the_apps_failure(android, phone):
    """An app that crashes on start (the launcher stays in front) fails its case: it used to be
    a DeviceError, retried on every phone until the whole fleet was quarantined."""
    android.fault(0, "launch_fail", 1)
    with pytest.raises(StepFailed, match=f"{PKG} did not come to the front on a1 after its "
                       "launch .front: com.android.launcher3.: it crashed or closed on start"):
        phone.launch(PKG)


def test_ios_launch_that_crashes_is_the_apps_failure(ios, iphone):
    ios.fault(0, "launch_fail", 1)
    with pytest.raises(StepFailed, match=f"{PKG} did not come to the front on i1 after its "
                       "launch .front: com.apple.springboard.: it crashed"):
        iphone.start_session(IosTarget(launch=PKG))


def test_back_home_and_current_app(phone):
    assert phone.current_app() == PKG
    phone.home()
    assert phone.current_app() != PKG
    phone.launch(PKG)
    assert phone.current_app() == PKG
    assert "Events injected" in phone.shell(f"monkey -p {PKG} 1")


def test_an_app_in_the_background_resumes_where_it_was(phone):
    """As on a phone, Home then the launcher intent (monkey) brings the app back as it was; it
    used to start again at its first page. After `am force-stop` a launch is a cold start."""
    field = next(n for n in phone.hierarchy().nodes if n.text == "Enter your username")
    phone.tap(*field.rect.center)
    phone.type_text("resumed")
    phone.home()
    assert "resumed" not in phone.hierarchy().visible_text()
    phone.launch(PKG)
    assert "resumed" in phone.hierarchy().visible_text()
    phone.terminate(PKG)
    phone.launch(PKG)
    assert "resumed" not in phone.hierarchy().visible_text()


def test_wda_invalid_session_is_recreated(ios, iphone):
    before = iphone.sessions_created
    ios.fault(0, "invalid_session", 1)
    iphone.tap(5, 5)                      # a session endpoint: /session/{id}/wda/tap
    assert iphone.sessions_created == before + 1
    ios.fault(0, "invalid_session", -1)   # never comes back: an infrastructure error
    with pytest.raises(DeviceError, match="invalidated"):
        iphone.tap(5, 5)


def test_wda_faults(ios, iphone):
    ios.fault(0, "black", 1)
    iphone.screenshot()
    assert iphone.screenshot_black
    ios.fault(0, "empty_tree", -1)
    assert iphone.hierarchy() is None
    ios.fault(0, "empty_tree", 0)
    assert iphone.hierarchy() is not None
    ios.fault(0, "drop", -1)              # one drop is absorbed by HTTP's retry on reuse
    with pytest.raises(DeviceLost):
        iphone.tap(10, 10)
    assert not iphone.healthy()
    ios.fault(0, "drop", 0)
    assert iphone.healthy()
    ios.fault(0, "slow_seconds", 1.0)
    ios.fault(0, "slow", 1)
    assert iphone.screenshot()[:4] == b"\x89PNG"
    assert ios.screens[0].faults.slow == 0          # that screenshot was the slowed one
