"""Phone gestures through a real `farm run` on `android-sim` / `ios-sim` (the drivers talk to
the simulators through adbutils and facebook-wda, as to phones).

Scrolls: a phone swipes and gets no answer, so farm compares the screens before and after
the swipe. A scroll at a list's end says "nothing scrolled" (it said nothing, as if it had
moved), and a scroll to the bottom stops at the first swipe that moved nothing (it made all
ten swipes whatever the list's length).
"""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PKG = "com.example.gestures"

# 20 rows of 80 CSS px: 1600 px, which ends after two swipes from the screen's middle to its
# top on both simulators (android-sim 960 px high: 640 px to scroll, ~480 a swipe; ios-sim
# 844 pt: 756 to scroll, ~421 a swipe)
LIST = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<div id="rows"></div>
<script>
for (let i = 1; i <= 20; i++) {
  const row = document.createElement("div");
  row.textContent = "Row " + i;
  row.style.cssText = "height:80px;box-sizing:border-box;border-bottom:1px solid #888;" +
    "padding:24px 16px;background:" + (i % 2 ? "#fff" : "#e8eef8");
  rows.appendChild(row);
}
</script></body></html>"""


def _suite(farm: FarmCli, page: str, cases: dict[str, str]) -> object:
    suite = farm.tmp / "gestures"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(page)
    (suite / "farm.yaml").write_text(f"timeout: 120\napps:\n  app:\n    serve: app\n"
                                     f"    android: {PKG}\n    ios: {PKG}\n")
    for name, text in cases.items():
        (suite / f"{name}.yaml").write_text(text)
    return suite


def _case(platform: str, flow: str) -> str:
    return f"{platform}:\n  launch: {PKG}\ntasks:\n  - name: t\n    flow:\n{flow}"


SCROLLS = {
    "to-bottom": """\
      - aiScroll:
        scrollType: scrollToBottom
      - assertText: Row 20
""",
    "at-the-end": """\
      - aiScroll:
        scrollType: scrollToBottom
      - aiScroll:
        direction: down
""",
    "once": """\
      - aiScroll:
        direction: down
""",
}


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_phone_scroll_tells_whether_the_list_moved(farm, platform):
    """scrollToBottom of a list that ends after two swipes stops at the third (which moved
    nothing), where it made ten; a scroll down at the end passes saying nothing scrolled; a
    scroll that moved the list says nothing."""
    cases = {name: _case(platform, flow) for name, flow in SCROLLS.items()}
    suite = _suite(farm, LIST, cases)
    done = farm.run("run", suite, "--devices", f"{platform}-sim:1", "--report-dir",
                    farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    for name in cases:
        assert got[name]["status"] == "passed", (name, got[name].get("error"), done.stdout)
    to_end = got["to-bottom"]["steps"][0]
    assert len(to_end["marks"]) == 3, to_end["marks"]
    assert to_end["output"] is None
    last = got["at-the-end"]["steps"][1]
    assert last["output"].startswith("nothing scrolled: nothing at ("), last
    assert last["output"].endswith(") scrolls down any further"), last
    assert got["once"]["steps"][0]["output"] is None
