"""An iPhone whose WebDriverAgent calls a session invalid right after creating it gets a new
session (README: "a new session on 'invalid session id'"), through the real facebook-wda:
the device is not written off for the run."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest

from farm.config import load_settings
from farm.devices.ios import IosDevice
from farm.devices.sim import IosSimulator
from farm.errors import DeviceError
from farm.session import run
from farm.suite.model import IosTarget
from tests.support.farm_cli import ROOT

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"
IOS_LOGIN = ROOT / "suites" / "demo" / "mobile" / "ios_login.yaml"


@pytest.fixture(scope="module")
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.fixture(autouse=True)
def no_faults_left(ios):
    yield
    ios.fault(0, "invalid_session", 0)
    ios.fault(0, "keyboard_stuck", 0)


def test_a_session_invalidated_as_it_is_created_is_made_again_in_a_run(ios, tmp_path,
                                                                     monkeypatch):
    ios.fault(0, "invalid_session", 1)     # POST /farm/fault {"name": "invalid_session", ...}
    monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([IOS_LOGIN], "ios:1", settings, progress=False, out=out)
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    assert code == 0, out.getvalue()
    assert [c["status"] for c in summary["cases"]] == ["passed"]
    assert not summary.get("lost") and "lost:" not in out.getvalue()
    assert ios.screens[0].faults.invalid_session == 0     # the fault did hit


def test_a_keyboard_wda_cannot_dismiss_fails_no_step(ios, tmp_path, monkeypatch):
    """autoDismissKeyboard is on by default (as in Midscene); WebDriverAgent on an iPhone may
    refuse to dismiss ("Did not know how to dismiss the keyboard"): the aiInput still passes,
    as in Midscene, and the case goes on."""
    ios.fault(0, "keyboard_stuck", -1)
    monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([IOS_LOGIN], "ios:1", settings, progress=False, out=out)
    assert code == 0, out.getvalue()
    with urllib.request.urlopen(ios.urls[0].rstrip("/") + "/farm/requests") as reply:
        served = json.loads(reply.read())["value"]
    assert sum(r.endswith("/wda/keyboard/dismiss") for r in served) >= 2, served
    assert ios.screens[0].faults.keyboard_stuck == -1


def test_a_case_starts_when_its_replacement_session_is_invalidated_at_once(ios):
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    ios.fault(0, "invalid_session", 2)  # the case's first call, then the new session's first
    phone.start_session(IosTarget(launch=PKG))
    assert ios.screens[0].faults.invalid_session == 0
    assert phone.current_app() == PKG
    phone.close()


def test_a_session_invalidated_every_time_is_still_an_error(ios):
    ios.fault(0, "invalid_session", -1)
    with pytest.raises(DeviceError, match="session keeps being invalidated"):
        IosDevice("i1", None, ios.urls[0]).open()


def test_a_watchdog_kill_ends_a_hung_wda_call(ios):
    """facebook-wda's HTTP cannot be interrupted; the device stops waiting for it when killed,
    so a case held by a hung WebDriverAgent ends with the watchdog, not at the HTTP timeout."""
    import threading

    from farm.errors import DeviceLost
    from tests.support.farm_cli import wait_for
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    ios.fault(0, "slow_seconds", 3600)
    ios.fault(0, "slow", 1)
    ended: list[BaseException] = []

    def shoot() -> None:
        try:
            phone.screenshot()
        except BaseException as exc:   # noqa: BLE001 - what the case thread would see
            ended.append(exc)
    case = threading.Thread(target=shoot, daemon=True)
    case.start()
    wait_for(lambda: ios.screens[0].faults.slow == 0, 60, "the screenshot to hang")
    phone.kill()
    case.join(120)
    assert ended and isinstance(ended[0], DeviceLost), ended
    assert str(ended[0]) == "i1 was stopped during screenshot"
    ios.fault(0, "slow_seconds", 3)
