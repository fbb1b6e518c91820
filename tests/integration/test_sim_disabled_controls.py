"""Disabled and read-only controls on the simulated phones, as a real phone shows them: a
greyed-out button is ``enabled="false"`` in the uiautomator dump and the WDA source, so farm
waits for a button the form enables a moment later (as it does in the browser) and a control
that stays disabled fails its step saying so; a disabled field still shows its hint and a
read-only one what it holds."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.session import run

pytestmark = pytest.mark.integration

PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Form</title></head>
<body><h1>Form</h1>
<input id="code" placeholder="Code" type="text"
  oninput="setTimeout(() => { document.getElementById('go').disabled = !this.value; }, 2000)">
<button id="go" disabled onclick="document.getElementById('out').textContent='Sent'">
Send code</button>
<button id="pay" disabled onclick="document.getElementById('out').textContent='Paid'">
Pay now</button>
<input id="locked" placeholder="Locked field" disabled>
<input id="plan" placeholder="Plan" readonly value="Gold plan">
<p id="out"></p></body></html>
"""

LATER = """name: {p} send once enabled
{p}:
  launch: com.qa.form
tasks:
  - name: send
    flow:
      - assertText: Gold plan
      - aiInput: Code
        value: "1234"
      - aiTap: Send code
      - assertText: Sent
"""

NEVER = """name: {p} pay while disabled
{p}:
  launch: com.qa.form
tasks:
  - name: pay
    flow:
      - aiTap: Pay now
"""

LOCKED = """name: {p} type into a disabled field
{p}:
  launch: com.qa.form
tasks:
  - name: type
    flow:
      - aiInput: Locked field
        value: x
"""


def test_phones_wait_for_a_disabled_button_and_name_one_that_stays_so(tmp_path):
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  form:\n    serve: app\n"
                                     "    android: com.qa.form\n    ios: com.qa.form\n")
    for p in ("android", "ios"):
        (suite / f"{p}_later.yaml").write_text(LATER.format(p=p))
        (suite / f"{p}_never.yaml").write_text(NEVER.format(p=p))
        (suite / f"{p}_locked.yaml").write_text(LOCKED.format(p=p))
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    cases = {c["case_id"].split("/")[-1]: c for c in
             json.loads((tmp_path / "run" / "results.json").read_text())["cases"]}
    assert code == 1, out.getvalue()
    for p in ("android", "ios"):
        assert cases[f"{p}_later"]["status"] == "passed", out.getvalue()
        never = cases[f"{p}_never"]
        assert never["status"] == "failed"
        assert never["error"] == {"kind": "StepFailed", "step": 1, "message":
                                  '"Pay now" is disabled: a tap does nothing there'}
        locked = cases[f"{p}_locked"]
        assert locked["status"] == "failed", out.getvalue()
        assert locked["error"] == {"kind": "StepFailed", "step": 1, "message":
                                   '"Locked field" is disabled: no text can be typed there'}
