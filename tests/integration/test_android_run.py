"""`farm run` on simulated phones: the demo's mobile cases pass on android-sim:2 and
ios-sim:2, and a phone whose app keeps crashing is quarantined while the cases pass elsewhere."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from farm.config import load_settings
from farm.devices.sim import AndroidSimulator
from farm.session import run
from tests.support.farm_cli import ROOT

pytestmark = pytest.mark.integration

DEMO = ROOT / "suites" / "demo"


@pytest.mark.parametrize("devices", ["android-sim:2", "ios-sim:2"])
def test_demo_mobile_cases_pass_on_simulators(tmp_path, devices):
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([DEMO], devices, settings, progress=False, out=out)
    text = out.getvalue()
    assert code == 0, text
    platform = devices.split("-")[0]
    assert "deselected 12 web case(s)" in text
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    ran = [c for c in summary["cases"]]
    assert len(ran) == 2 and all(c["platform"] == platform for c in ran)
    assert all(c["status"] == "passed" for c in ran)
    # what each phone is, as its getprop / WebDriverAgent told it
    about = ("farm_sim_phone, Android 14 (API 34)" if platform == "android"
             else "iPhone-sim-{} (iPhone), iOS 17.0")
    assert summary["device_info"] == {
        c["device"]: about.format(c["device"].rsplit("-", 1)[1]) for c in ran}
    assert all(c["device_info"] == summary["device_info"][c["device"]] for c in ran)


def test_phone_that_keeps_failing_is_quarantined(tmp_path, monkeypatch, demo_app):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("timeout: 60\nvars:\n  DEMO_PASSWORD: farm-demo-pass\n")
    for i in range(8):      # enough work that the bad phone fails 3 times
        shutil.copy(DEMO / "mobile" / "android_login.yaml", suite / f"login_{i}.yaml")
    with AndroidSimulator(2, {"com.farm.demo.shop": demo_app + "/"}) as sim:
        # the phone refuses every input (a device problem; an app that crashes on launch is
        # the app's failure: test_phone_launch.py)
        sim.fault(0, "input_blocked", -1)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(sim.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        out = io.StringIO()
        settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
        code = run([suite], "android:2", settings, progress=False, out=out)
    summary = json.loads((tmp_path / "run" / "results.json").read_text())
    assert summary["quarantined"] == ["emulator-5554"], out.getvalue()
    assert code == 0, out.getvalue()
    assert all(c["status"] == "passed" and c["device"] == "emulator-5556"
               for c in summary["cases"])
    assert "quarantined: emulator-5554" in out.getvalue()
    assert json.loads((tmp_path / "state" / "quarantine.json").read_text())["devices"] == \
        ["emulator-5554"]
