"""A phone's scroll moves the content as far as it says: a swipe from the screen's middle,
cut at its top edge, moved half of a long `distance:` (3000 px moved 1200), and a
scrollToBottom of a 60-row list stopped short saying "stopped after 10 scrolls of 24000 px
... an endless list?"."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PKG = "com.example.rows"

# 60 rows of 120 CSS px (300 physical px on android-sim, 2.5 px a CSS px, 960 CSS px high:
# eight rows show)
LIST = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<div id="rows"></div>
<script>
for (let i = 1; i <= 60; i++) {
  const row = document.createElement("div");
  row.textContent = "Row " + i;
  row.style.cssText = "height:120px;box-sizing:border-box;border-bottom:1px solid #888;" +
    "padding:40px 16px;background:" + (i % 2 ? "#fff" : "#e8eef8");
  rows.appendChild(row);
}
</script></body></html>"""

CASES = {
    "to-bottom": """\
      - aiScroll:
        scrollType: scrollToBottom
      - assertText: Row 60
""",
    # 3000 px = 1200 CSS px = ten rows: Row 11 at the top, Rows 11-18 show
    "far": """\
      - aiScroll:
        direction: down
        distance: 3000
      - assertText: Row 17
      - assertNoText: Row 9
""",
}


def test_a_phone_scroll_moves_what_it_says(farm: FarmCli):
    suite = farm.tmp / "rows"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(LIST)
    (suite / "farm.yaml").write_text(f"timeout: 120\napps:\n  app:\n    serve: app\n"
                                     f"    android: {PKG}\n")
    for name, flow in CASES.items():
        (suite / f"{name}.yaml").write_text(
            f"android:\n  launch: {PKG}\ntasks:\n  - name: t\n    flow:\n{flow}")
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    for name in CASES:
        assert got[name]["status"] == "passed", (name, got[name].get("error"), done.stdout)
    to_end = got["to-bottom"]["steps"][0]
    assert to_end["output"] is None, to_end["output"]
    far = got["far"]["steps"][0]
    assert far["marks"][0]["points"] == [[540, 1200], [540, 4200]], far["marks"]
