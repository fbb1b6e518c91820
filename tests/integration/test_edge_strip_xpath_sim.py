"""On phones (android-sim, ios-sim) a button found by the step's XPath that shows only a strip
at the screen's bottom edge (where a phone's home-gesture bar takes a tap) is swiped in and
tapped whole, as a text-found one is: the XPath's hit was tapped on the strip, 53 px from the
bottom of a 2400 px screen."""

from __future__ import annotations

import io
import json

from farm.config import load_settings
from farm.session import run

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
      - aiTap: the pay button
        xpath: '{xpath}'
      - assertText: Paid
"""
XPATHS = {"android": '//*[@text="Pay now"]', "ios": '//*[@label="Pay now"]'}


def test_an_xpath_target_cut_by_the_bottom_edge_is_swiped_in_before_the_tap(tmp_path):
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  pay:\n    serve: app\n"
                                     "    android: com.qa.pay\n    ios: com.qa.pay\n")
    for p, xpath in XPATHS.items():
        (suite / f"{p}_pay.yaml").write_text(CASE.format(p=p, xpath=xpath))
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    cases = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 0, out.getvalue()
    assert len(cases) == 2
    for case in cases:
        tap = case["steps"][0]
        width, height = tap["screen"]
        (x, y), = tap["marks"][0]["points"]
        assert tap["tier"] == "xpath", tap
        assert tap["rect"][1] > height * 0.9, tap          # found on the strip…
        assert y < height * 0.9, (case["case_id"], tap)     # …tapped off it
