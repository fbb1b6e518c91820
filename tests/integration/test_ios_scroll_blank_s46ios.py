"""aiScroll scrollToBottom on an iPhone page with a long blank stretch (`farm run --devices
ios-sim:1`, facebook-wda talking to the simulated WebDriverAgent as to a phone): two blank
frames look the same, so the scroll judged the end reached after two swipes, half way down,
and the next step did not find the bottom. Where a frame has nothing in it to see move, the
source's element frames (WDA lists off-screen elements with their places) tell."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.blank"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<h1>Danger zone</h1><p>Nothing yet</p><div style="height:3000px"></div>
<p>Bottom marker</p></body></html>"""

FLOW = f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: t
    flow:
      - aiScroll:
        direction: down
        scrollType: scrollToBottom
      - assertText: Bottom marker
      - aiScroll:
        direction: up
        scrollType: scrollToTop
      - assertText: Danger zone
"""


def test_a_scroll_to_the_bottom_crosses_a_blank_stretch(farm: FarmCli):
    suite = farm.tmp / "blank"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(f"timeout: 60\napps:\n  blank:\n    serve: app\n"
                                     f"    ios: {BUNDLE}\n")
    (suite / "ends.yaml").write_text(FLOW)
    done = farm.run("run", suite, "--devices", "ios-sim:1", "--report-dir", farm.tmp / "run")
    case = by_name(results(farm.tmp / "run"))["ends"]
    assert case["status"] == "passed", (case.get("error"), done.stdout)
