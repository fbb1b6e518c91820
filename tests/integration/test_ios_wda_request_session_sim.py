"""A runWdaRequest naming a session WebDriverAgent does not know (an id copied from an
earlier run, where the case's own is ``{sessionId}``) fails its step saying so: WDA's
"invalid session id" was taken for the phone's, the case was retried and ended in error
("session keeps being invalidated") and the phone counted toward quarantine."""

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


def test_an_unknown_session_fails_the_request_and_the_case_session_still_works(ios):
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    try:
        phone.start_session(IosTarget(launch=PKG))
        with pytest.raises(StepFailed) as failed:
            phone.wda_request("GET", "/session/0F1E-OLD/source")
        assert str(failed.value) == ("WDA knows no session 0F1E-OLD (GET /session/0F1E-OLD/"
                                     "source): the case's session is {sessionId} in the "
                                     "endpoint")
        assert "XCUIElementTypeApplication" in phone.wda_request(
            "GET", "/session/{sessionId}/source")
        assert phone.healthy()
    finally:
        phone.close()


def test_a_run_fails_the_case_without_retrying_it(ios, tmp_path, monkeypatch):
    suite = tmp_path / "old_session.yaml"
    suite.write_text(f"""\
ios:
  launch: {PKG}
tasks:
  - name: read
    flow:
      - runWdaRequest:
          method: GET
          endpoint: /session/0F1E-OLD/source
""")
    monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "ios:1", settings, progress=False, out=out)
    case, = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 1 and case["status"] == "failed" and case["attempt"] == 1, out.getvalue()
    assert "WDA knows no session 0F1E-OLD" in case["error"]["message"], case["error"]
