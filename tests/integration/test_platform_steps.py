"""Platform steps through `farm run` on the simulators, over the real adbutils / facebook-wda
paths: runAdbShell's stdout is the step's output and a failing command fails the step;
runWdaRequest answers (and a request WDA refuses fails the step)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run

pytestmark = pytest.mark.integration

APP = Path(__file__).resolve().parents[2] / "suites" / "demo" / "app"

FARM_YAML = f"""\
timeout: 60
vars:
  GREETING: hello from farm
apps:
  shop:
    serve: {APP}
    android: com.farm.demo.shop
    ios: com.farm.demo.shop
"""

CASES = {
    "adb_ok.yaml": """\
android:
  launch: com.farm.demo.shop
tasks:
  - name: shell
    flow:
      - runAdbShell: echo ${GREETING}
        name: greeting
      - runAdbShell: getprop ro.product.model
        name: model
""",
    "adb_fails.yaml": """\
android:
  launch: com.farm.demo.shop
tasks:
  - name: shell
    flow:
      - runAdbShell: cat /data/no/such/file
      - runAdbShell: echo never
""",
    "wda_ok.yaml": """\
ios:
  launch: com.farm.demo.shop
tasks:
  - name: ask WebDriverAgent
    flow:
      - runWdaRequest:
          method: GET
          endpoint: /status
        name: status
      - runWdaRequest: {method: GET, endpoint: /wda/device/info}
        name: info
      - runWdaRequest:
          method: POST
          endpoint: /session/{sessionId}/wda/homescreen
      - runWdaRequest:
          method: GET
          url: /wda/activeAppInfo
        name: front
""",
    "wda_fails.yaml": """\
ios:
  launch: com.farm.demo.shop
tasks:
  - name: ask for nonsense
    flow:
      - runWdaRequest:
          method: POST
          endpoint: /session/{sessionId}/nonexistent
""",
}


def test_adb_shell_and_wda_request_steps_on_simulators(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text(FARM_YAML)
    for name, text in CASES.items():
        (suite / name).write_text(text)
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    assert code == 1, out.getvalue()            # the two failing cases, nothing worse
    cases = {c["case_id"].split("/")[-1]: c
             for c in json.loads((tmp_path / "run" / "results.json").read_text())["cases"]}

    adb = cases["adb_ok"]
    assert adb["status"] == "passed", adb
    assert adb["data"] == {"greeting": "hello from farm\n", "model": "farm_sim_phone\n"}
    assert adb["steps"][0]["output"] == "hello from farm\n"

    bad = cases["adb_fails"]
    assert bad["status"] == "failed"
    assert [s["status"] for s in bad["steps"]] == ["failed", "skipped"]
    assert "`cat /data/no/such/file` exited 1: cat: /data/no/such/file: No such file" in \
        bad["error"]["message"]
    assert bad["error"]["kind"] == "StepFailed"          # the failed step's own class

    wda = cases["wda_ok"]
    assert wda["status"] == "passed", wda
    assert wda["data"]["status"]["ready"] is True
    assert wda["data"]["info"]["isSimulator"] is True
    assert wda["data"]["front"]["bundleId"] == "com.apple.springboard"   # home was pressed

    refused = cases["wda_fails"]
    assert refused["status"] == "failed" and refused["error"]["kind"] == "StepFailed"
    # what WDA said, in words, with the session the request went to (not a Python repr,
    # "POST POST" or a literal {sessionId})
    assert re.fullmatch(r"WDA refused POST /session/[0-9A-F-]{36}/nonexistent: unknown "
                        r"command \(Unhandled endpoint: POST /nonexistent\)",
                        refused["error"]["message"]), refused["error"]
