"""What a phone user hits, through adbutils and facebook-wda against the simulators.

An iPhone app that asks for a permission as it starts has SpringBoard's alert in front of it.
Appium's WebDriverAgent with ``respectSystemAlerts`` on (farm turns it on) then names
SpringBoard as the app in front: the launch waited 5 s for the app and failed the case with
"did not come to the front ... it crashed or closed on start". With the setting off (WDA's
default) the source was the app's own, the alert missing from it: "Sign in" was found in the
tree and tapped, and the tap hit the alert.
"""

from __future__ import annotations

import io
import json

import pytest

from farm.devices.ios import IosDevice
from farm.devices.sim import IosSimulator
from farm.suite.model import IosTarget

PKG = "com.farm.demo.shop"


@pytest.fixture(scope="module")
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture
def iphone(ios):
    dev = IosDevice("i1", None, ios.urls[0])
    dev.open()
    yield dev
    ios.fault(0, "permission_dialog", 0)
    dev.end_session()
    dev.close()


def _node(tree, text):
    return next(n for n in tree.nodes if n.visible and text in (n.text, n.name))


def test_an_iphone_app_starts_with_its_permission_alert_in_front(ios, iphone):
    ios.fault(0, "permission_dialog", 1)
    iphone.start_session(IosTarget(launch=PKG))         # no "crashed or closed on start"
    tree = iphone.hierarchy()
    assert "“Shop” Would Like to Send You Notifications" in tree.visible_text()
    assert "Sign in" not in tree.visible_text()         # the app is behind the alert
    assert iphone.screenshot().startswith(b"\x89PNG") and not iphone.screenshot_black
    iphone.tap(*_node(tree, "Allow").rect.center)
    assert "Sign in" in iphone.hierarchy().visible_text()
    assert iphone.current_app() == PKG


def test_a_run_answers_the_iphone_alert_with_its_first_step(ios, tmp_path, monkeypatch):
    from farm.config import load_settings
    from farm.session import run

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "allow.yaml").write_text(
        f"name: Allow then look\nios:\n  launch: {PKG}\ntasks:\n  - name: start\n"
        "    flow:\n      - aiTap: Allow\n      - assertText: Sign in\n")
    ios.fault(0, "permission_dialog", -1)
    try:
        monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
        code = run([suite], "ios:1", settings, progress=False, out=out)
    finally:
        ios.fault(0, "permission_dialog", 0)
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    assert code == 0 and [c["status"] for c in summary["cases"]] == ["passed"], out.getvalue()


def test_a_phone_adb_lists_offline_mid_case_is_lost_at_once_not_failed(demo_app):
    """A cable replugged mid-case: every driver call says the phone is lost ("device
    offline", DeviceLost: the case goes to another phone), none waits or reads as the app's
    failure; `healthy` says no, so the phone is reopened (waited for) before more work."""
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.errors import DeviceLost
    from farm.suite.model import AndroidTarget

    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        phone.start_session(AndroidTarget(launch=PKG))
        sim.fault(0, "offline", -1)
        for call in (phone.hierarchy, phone.screenshot, lambda: phone.tap(10, 10),
                     lambda: phone.shell_result("echo hi")):
            with pytest.raises(DeviceLost, match="device offline"):
                call()
        assert not phone.healthy()
        sim.fault(0, "offline", 0)
        phone.close()
