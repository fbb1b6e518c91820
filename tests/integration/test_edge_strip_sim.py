"""On phones (android-sim, ios-sim) a button that shows only a strip at the screen's bottom edge
on the first read (2 px above the fold, where a phone's home-gesture bar takes a tap) is swiped
in and tapped whole: it was tapped on the strip."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.session import run

pytestmark = pytest.mark.integration

PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Pay</title></head>
<body style="margin:0"><p id="out" style="margin:0; height:40px; position:fixed; top:0">unpaid</p>
<div style="height:calc(100vh - 42px)"></div>
<button style="display:block; width:200px; height:60px"
 onclick="out.textContent='Paid'">Pay now</button>
<div style="height:150vh"></div></body></html>
"""

CASE = """name: {p} pay
{p}:
  launch: com.qa.pay
tasks:
  - name: pay
    flow:
      - aiTap: Pay now
      - assertText: Paid
"""


def test_a_button_below_the_fold_is_swiped_in_before_the_tap(tmp_path):
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  pay:\n    serve: app\n"
                                     "    android: com.qa.pay\n    ios: com.qa.pay\n")
    for p in ("android", "ios"):
        (suite / f"{p}_pay.yaml").write_text(CASE.format(p=p))
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    cases = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 0, out.getvalue()
    for case in cases:
        tap = case["steps"][0]
        width, height = tap["screen"]
        (x, y), = tap["marks"][0]["points"]
        assert y < height * 0.9, (case["case_id"], tap)   # off the strip at the bottom edge
