"""Swipes on an iPhone (`farm run --devices ios-sim:1`, facebook-wda talking to the simulated
WebDriverAgent as to a phone).

farm swiped with WDA's ``/wda/dragfromtoforduration``, whose ``duration`` is how long the
finger is held before it moves (XCTest's pressForDuration:thenDragToCoordinate:): a 600 ms
swipe (bringing a row cut by the screen's edge in, an aiSwipe of 600 ms or more) was a long
press on whatever row was under the finger, which opened its menu (or picked it up), and then
a drag that scrolled nothing. A swipe is now the finger down for a moment and moved at once
(W3C actions), which scrolls; aiDragAndDrop keeps its long press, and the swipe from the left
edge still goes back. The simulator plays a hold of 500 ms or more before the move as a long
press, whichever endpoint asked for it.
"""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.rows"
NAV = "com.example.nav"

# 20 rows of 90 pt: on ios-sim's 390x844 screen Item 10 shows a 34 pt strip at the bottom edge
# (less than a touch target: farm swipes it in first). A row held for a long press opens its
# menu, as a table's context menu does; a finger that moves first is a scroll.
LIST = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<div id="rows"></div>
<script>
for (let i = 1; i <= 20; i++) {
  const row = document.createElement("div");
  row.textContent = "Item " + String(i).padStart(2, "0");
  row.style.cssText = "height:90px;box-sizing:border-box;border-bottom:1px solid #888;" +
    "padding:30px 16px;background:" + (i % 2 ? "#fff" : "#e8eef8");
  rows.appendChild(row);
}
let timer = null, from = null;
rows.addEventListener("pointerdown", (e) => {
  from = [e.clientX, e.clientY];
  const row = e.target;
  timer = setTimeout(() => {
    const menu = document.createElement("div");
    menu.textContent = "Menu for " + row.textContent;
    menu.style.cssText = "position:fixed;top:200px;left:40px;right:40px;padding:20px;" +
      "background:#333;color:#fff";
    document.body.appendChild(menu);
  }, 400);
});
rows.addEventListener("pointermove", (e) => {
  if (from && Math.hypot(e.clientX - from[0], e.clientY - from[1]) > 10) clearTimeout(timer);
});
addEventListener("pointerup", () => { clearTimeout(timer); from = null; });
</script></body></html>"""

NAV_HOME = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="font:20px sans-serif">
<h1>Nav home</h1><a href="details.html">Open details</a></body></html>"""

DETAILS = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<h1 style="margin:80px 24px">Details page</h1>
<div style="position:fixed;left:0;top:380px;width:10px;height:80px;overflow:hidden;
font-size:8px">edge</div>
</body></html>"""

CASES = {
    # bringing the strip in was a 600 ms press on Item 07, which opened its menu
    "scroll-from-the-edge": """\
      - aiScroll:
        locate: Item 10
        direction: down
      - assertNoText: Menu for
      - assertNoText: Item 05
""",
    # a slow swipe: held 800 ms first, it was a long press on Item 05
    "slow-swipe": """\
      - aiSwipe:
        direction: up
        duration: 800
      - assertNoText: Menu for
      - assertNoText: Item 01
""",
    "scroll": """\
      - aiScroll:
        direction: down
      - assertNoText: Menu for
      - assertNoText: Item 01
""",
    "drag-is-a-long-press": """\
      - aiDragAndDrop:
        from: Item 03
        to: Item 05
      - assertText: Menu for Item 03
""",
    "edge-swipe-back": """\
      - aiTap: Open details
      - assertText: Details page
      - aiSwipe:
        start: edge
        direction: right
        distance: 250
        duration: 600
      - assertText: Nav home
      - assertNoText: Details page
""",
}


def _case(flow: str, bundle: str = BUNDLE) -> str:
    return f"ios:\n  launch: {bundle}\ntasks:\n  - name: t\n    flow:\n{flow}"


def test_ios_swipes_scroll_without_a_long_press(farm: FarmCli):
    """A swipe that brings a row in from the screen's edge, a slow aiSwipe and an aiScroll
    scroll the list and open no row's menu (the edge swipe's 600 ms press opened one, and the
    list did not move); aiDragAndDrop still holds the row first; a swipe from the left edge
    goes back."""
    suite = farm.tmp / "rows"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(LIST)
    (suite / "nav").mkdir()
    (suite / "nav" / "index.html").write_text(NAV_HOME)
    (suite / "nav" / "details.html").write_text(DETAILS)
    (suite / "farm.yaml").write_text(f"timeout: 120\napps:\n  rows:\n    serve: app\n"
                                     f"    ios: {BUNDLE}\n  nav:\n    serve: nav\n"
                                     f"    ios: {NAV}\n")
    for name, flow in CASES.items():
        (suite / f"{name}.yaml").write_text(_case(flow, NAV if "back" in name else BUNDLE))
    done = farm.run("run", suite, "--devices", "ios-sim:1", "--report-dir", farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    for name in CASES:
        assert got[name]["status"] == "passed", (name, got[name].get("error"), done.stdout)
    from_edge = got["scroll-from-the-edge"]["steps"][0]
    assert from_edge["output"] is None, from_edge      # it scrolled (not "nothing scrolled")
