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


# A list that reorders as a phone's do (ItemTouchHelper, UICollectionView): a row held down
# for a long press is picked up, follows the finger and is dropped where it is lifted; a
# finger that moves before the long press is a scroll or a fling, which moves no row.
REORDER = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="margin:0;font:20px sans-serif">
<p id="order" style="margin:16px">order: A,B,C,D</p>
<div id="rows" style="touch-action:none"></div>
<script>
let names = ["A", "B", "C", "D"], held = null, timer = null, from = null;
function draw() {
  rows.innerHTML = "";
  for (const n of names) {
    const row = document.createElement("div");
    row.textContent = "Item " + n;
    row.dataset.name = n;
    row.style.cssText = "height:90px;border-bottom:1px solid #888;padding:30px 16px;" +
      "box-sizing:border-box";
    rows.appendChild(row);
  }
  order.textContent = "order: " + names.join(",");
}
rows.addEventListener("pointerdown", (e) => {
  from = [e.clientX, e.clientY];
  const row = e.target.closest("[data-name]");
  timer = setTimeout(() => { held = row && row.dataset.name; }, 450);
});
rows.addEventListener("pointermove", (e) => {
  if (!held && from && Math.hypot(e.clientX - from[0], e.clientY - from[1]) > 10)
    clearTimeout(timer);                 // moved first: a scroll, not a drag
});
addEventListener("pointerup", (e) => {
  clearTimeout(timer);
  const over = document.elementFromPoint(e.clientX, e.clientY);
  const to = over && over.closest("[data-name]");
  if (held && to && to.dataset.name !== held) {
    names = names.filter((n) => n !== held);
    names.splice(names.indexOf(to.dataset.name) + 1, 0, held);
    draw();
  }
  held = null; from = null;
});
draw();
</script></body></html>"""

DRAG = """\
      - aiDragAndDrop:
        from: Item A
        to: Item C
      - assertText: "order: B,C,A,D"
"""


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_phone_drag_picks_the_row_up_and_drops_it(farm, platform):
    """aiDragAndDrop of a row onto another in a list that starts drags on a long press moves
    it: the finger is held first (Android's `input draganddrop`, a W3C action with a pause on
    iOS), where Android's `input swipe` moved the finger at once and only scrolled."""
    suite = _suite(farm, REORDER, {"drag": _case(platform, DRAG)})
    done = farm.run("run", suite, "--devices", f"{platform}-sim:1", "--report-dir",
                    farm.tmp / "run")
    case = by_name(results(farm.tmp / "run"))["drag"]
    assert case["status"] == "passed", (case.get("error"), done.stdout)
    [mark] = case["steps"][0]["marks"]
    assert mark["kind"] == "swipe", mark


@pytest.fixture(scope="module")
def reorder_url(tmp_path_factory):
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    app = tmp_path_factory.mktemp("reorder")
    (app / "index.html").write_text(REORDER)
    with AppServer() as apps:
        apps.serve([AppSpec(name="reorder", serve=app, env="REORDER_URL")])
        yield apps.env["REORDER_URL"] + "/"


@pytest.mark.parametrize("sdk", ["29", "26"])
def test_an_older_android_drags_with_motion_events_or_says_it_cannot(reorder_url, sdk,
                                                                     caplog):
    """Android 10 has no `input draganddrop`: the drag is `input motionevent` DOWN, a pause,
    MOVEs and UP in one shell line, and the row moves. Android 8 has neither: a slow swipe,
    and a warning saying that no app takes it for a drag."""
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AndroidTarget

    with AndroidSimulator(1, {PKG: reorder_url}) as sim:
        sim.server.shells[0].sdk = sdk
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            phone.start_session(AndroidTarget(launch=PKG))
            rows = {n.text: n.rect.center for n in phone.hierarchy().nodes
                    if n.text.startswith("Item ")}
            phone.drag(*rows["Item A"], *rows["Item C"])
            shown = phone.hierarchy().visible_text()
        finally:
            phone.end_session()
            phone.close()
    if sdk == "29":
        assert "order: B,C,A,D" in shown, shown
    else:
        assert "order: A,B,C,D" in shown, shown
        assert "has no `input draganddrop` nor `input motionevent`" in caplog.text
