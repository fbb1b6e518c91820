"""aiScroll scrollToBottom on an Android phone page with a tall blank spacer (`farm run
--devices android-sim:1`): two frames of the blank look the same, so the scroll took "the
screen did not change" for "the end came" half way down, passed with no note, and the next
step did not find the bottom. A swipe over a stretch with nothing to see move
(`phone_edges.blank_band`) no longer ends the scroll."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.example.blank"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<h1>Danger zone</h1><p>Nothing yet</p><div style="height:4000px"></div>
<p>Bottom marker</p></body></html>"""

FLOW = f"""\
android:
  launch: {PACKAGE}
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


@pytest.mark.timeout(480)      # (a loaded machine: each swipe and screencap took 20-37 s)
def test_a_phone_scroll_to_the_bottom_crosses_a_blank_spacer_and49(farm: FarmCli):
    suite = farm.tmp / "blank"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(f"timeout: 300\napps:\n  blank:\n    serve: app\n"
                                     f"    android: {PACKAGE}\n")
    (suite / "ends.yaml").write_text(FLOW)
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run", timeout=420)
    case = by_name(results(farm.tmp / "run"))["ends"]
    assert case["status"] == "passed", (case.get("error"), done.stdout)
