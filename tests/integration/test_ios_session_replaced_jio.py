"""Another WebDriverAgent client creating a session mid-case (Appium Inspector's
``POST /session`` with the app's bundleId: WDA keeps one session at a time, and relaunches the
app) ends the case as the device's error, saying so, through the real facebook-wda against
the simulated WDA. Before, farm made itself a new session, logged only "invalid session id;
creating a new session", and the case failed blaming the app ("no element matches …")."""

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
REPLACED = "WDA session was replaced by another client mid-case (the app's state is lost)"


@pytest.fixture(scope="module")
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


def _inspector(url: str) -> str:
    """What Appium Inspector does: a session of its own, launching the app."""
    body = json.dumps({"capabilities": {"alwaysMatch": {"bundleId": PKG}}}).encode()
    req = urllib.request.Request(url.rstrip("/") + "/session", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as reply:
        return json.loads(reply.read())["sessionId"]


def test_a_session_replaced_mid_case_is_the_devices_error(ios):
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    try:
        phone.start_session(IosTarget(launch=PKG))
        made = phone.sessions_created
        _inspector(ios.urls[0])
        with pytest.raises(DeviceError, match=REPLACED.replace("(", r"\(").replace(")", r"\)")):
            phone.tap(5, 5)
        with pytest.raises(DeviceError, match="replaced by another client"):
            phone.swipe(50, 300, 50, 100)       # the rest of the case says the same
        assert phone.sessions_created == made
        phone.end_session()
        _inspector(ios.urls[0])                 # between cases: a new session, silently
        phone.start_session(IosTarget(launch=PKG))
        assert phone.hierarchy() is not None and phone.sessions_created > made
    finally:
        phone.close()


def test_the_case_s_own_wda_request_session_is_not_another_client(ios):
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    try:
        phone.start_session(IosTarget(launch=PKG))
        phone.wda_request("POST", "/session", {"capabilities": {}})
        assert phone.hierarchy() is not None      # a new session of its own, as before
    finally:
        phone.close()


def test_a_run_errs_the_case_and_retries_it(ios, tmp_path, monkeypatch):
    taps = [0]
    tap = IosDevice.tap

    def tap_after_inspector(self: IosDevice, x: int, y: int) -> None:
        taps[0] += 1
        if taps[0] == 1:                        # the first attempt's first tap
            _inspector(ios.urls[0])
        tap(self, x, y)
    monkeypatch.setattr(IosDevice, "tap", tap_after_inspector)
    monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([IOS_LOGIN], "ios:1", settings, progress=False, out=out)
    case, = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 0 and case["status"] == "passed" and case["attempt"] == 2, out.getvalue()
    log = (tmp_path / "run" / "farm.log").read_text()
    assert REPLACED in log, log[-3000:]


def test_a_step_failing_on_the_source_alone_names_the_replaced_session(ios):
    """A step that reads only WDA's /source (not of a session: it still answers) fails on
    the relaunched app's screen; its failure's note (`error_page`, asked of a failed step)
    says the session was replaced, where it blamed the app alone."""
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    try:
        phone.start_session(IosTarget(launch=PKG))
        assert phone.error_page() is None
        _inspector(ios.urls[0])
        assert phone.hierarchy() is not None
        assert phone.error_page().startswith(REPLACED)
    finally:
        phone.close()
