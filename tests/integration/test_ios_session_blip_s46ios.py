"""A WebDriverAgent that calls new sessions invalid for a moment (it is restarting) is waited
out, as one that does not answer is (10 s), through the real facebook-wda against the
simulated WDA: two sessions invalidated in a row wrote the healthy iPhone off for the whole
run (`no usable ios device left (could not start: screen on iphone-1: session keeps being
invalidated)`, exit 3), where one passed."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.devices.sim import IosSimulator
from farm.session import run
from tests.support.farm_cli import ROOT

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"
IOS_LOGIN = ROOT / "suites" / "demo" / "mobile" / "ios_login.yaml"


@pytest.fixture()
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


@pytest.mark.parametrize("blip", [2, 3])
def test_sessions_invalidated_a_few_times_in_a_row_do_not_lose_the_iphone(ios, tmp_path,
                                                                           monkeypatch, blip):
    ios.fault(0, "invalid_session", blip)   # POST /farm/fault {"name": "invalid_session", ...}
    monkeypatch.setenv("FARM_IOS_WDA_URLS", ios.urls[0])
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([IOS_LOGIN], "ios:1", settings, progress=False, out=out)
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    assert code == 0, out.getvalue()
    assert [c["status"] for c in summary["cases"]] == ["passed"], out.getvalue()
    assert not summary.get("lost") and "lost:" not in out.getvalue()
    assert ios.screens[0].faults.invalid_session == 0     # the fault did hit
