"""An iPhone app that draws a text field anew while farm fills it (WebDriverAgent answers
"stale element reference" to the field it found a moment before) is the app's state, not the
phone's fault: farm finds the field again once and fills it; a field that goes stale again
fails the step, saying so. It was a DeviceError ("fill failed on i1: WDARequestError…"): the
case went to another phone and the phone counted toward quarantine."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.devices.ios import IosDevice
from farm.devices.sim import IosSimulator
from farm.errors import StepFailed
from farm.session import run
from farm.suite.model import IosTarget

PKG = "com.farm.demo.shop"


@pytest.fixture(scope="module")
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture
def phone(ios):
    device = IosDevice("i1", None, ios.urls[0])
    device.open()
    device.start_session(IosTarget(launch=PKG))
    yield device
    ios.fault(0, "redraw", 0)
    device.close()


def _focus_username(phone: IosDevice) -> None:
    field = next(n for n in phone.hierarchy().nodes if n.placeholder == "Enter your username")
    phone.tap(*field.rect.center)
    phone.check_text_focus()


def _username(phone: IosDevice) -> str:
    return next(n for n in phone.hierarchy().nodes
                if n.placeholder == "Enter your username").text


def test_a_field_drawn_anew_once_is_found_again_and_filled(ios, phone):
    _focus_username(phone)
    ios.fault(0, "redraw", 1)
    assert phone.fill("demo") is True
    assert ios.screens[0].faults.redraw == 0          # it did go stale
    assert _username(phone) == "demo"
    assert phone.healthy()


def test_a_field_that_keeps_going_stale_fails_the_step_not_the_phone(ios, phone):
    _focus_username(phone)
    ios.fault(0, "redraw", -1)
    with pytest.raises(StepFailed) as failed:
        phone.fill("demo")
    assert "drawn anew" in str(failed.value), failed.value
    ios.fault(0, "redraw", 0)
    assert phone.healthy()


def test_a_run_fails_the_case_on_this_phone_without_retrying_it(ios, tmp_path, monkeypatch):
    suite = tmp_path / "login.yaml"
    suite.write_text(f"""\
ios:
  launch: {PKG}
tasks:
  - name: sign in
    flow:
      - aiInput: Enter your username
        value: demo
""")
    ios.fault(0, "redraw", -1)
    monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "ios:1", settings, progress=False, out=out)
    ios.fault(0, "redraw", 0)
    case, = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 1 and case["status"] == "failed" and case["attempt"] == 1, out.getvalue()
    assert "drawn anew" in case["error"]["message"], case["error"]
