"""A scroll to an end on an iPhone screen that cannot scroll (`farm run --devices ios-sim:1`,
facebook-wda talking to the simulated WebDriverAgent as to a phone).

The first scroll step of a case passed as one that moved the screen, and only the second said
"nothing scrolled": the simulator's mouse that played the swipe stayed on the page, so the
card under the finger took its ``:hover`` look, and the screenshots before and after differed.
A finger that scrolled leaves no hover behind: both steps now say nothing scrolled.
"""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.short"

# a screen that does not scroll, a card that looks different under a hovering mouse where the
# swipe starts (the middle of the screen)
SHORT = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"><style>
body { margin: 0; font: 20px sans-serif; height: 100vh; overflow: hidden }
.card { margin: 300px 16px 0; height: 240px; background: #fff; border: 1px solid #888 }
.card:hover { background: #c8d8f8; transform: translateY(-4px) }
</style></head><body><h1>Short page</h1><div class="card">Blue Mug</div></body></html>"""

FLOW = """\
ios:
  launch: com.example.short
tasks:
  - name: t
    flow:
      - aiScroll:
        direction: down
        scrollType: scrollToBottom
      - aiScroll:
        direction: up
        scrollType: scrollToTop
"""


def test_ios_first_scroll_on_a_screen_that_cannot_scroll_says_nothing_scrolled(farm: FarmCli):
    """scrollToBottom, then scrollToTop, on a screen that cannot scroll: both steps pass
    saying "nothing scrolled" (the first said nothing: it counted as a scroll)."""
    suite = farm.tmp / "short"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(SHORT)
    (suite / "farm.yaml").write_text(f"timeout: 60\napps:\n  short:\n    serve: app\n"
                                     f"    ios: {BUNDLE}\n")
    (suite / "ends.yaml").write_text(FLOW)
    done = farm.run("run", suite, "--devices", "ios-sim:1", "--report-dir", farm.tmp / "run")
    case = by_name(results(farm.tmp / "run"))["ends"]
    assert case["status"] == "passed", (case.get("error"), done.stdout)
    said = [step["output"] or "" for step in case["steps"]]
    assert said[0].startswith("nothing scrolled:") and "toward the bottom" in said[0], said
    assert said[1].startswith("nothing scrolled:") and "toward the top" in said[1], said
