"""aiScroll on the web does what the user asked, to what the user pointed at, and says so when
it could not: `farm run` of zero-token suites (no model) on real Chromium, each page's scroll
positions read back after the step.

- A `locate:` target taller (or wider) than its scroll box (a list's content, a carousel's
  strip) is wheeled inside the part of it that shows: its box scrolls. The wheel went to the
  target's middle, outside the box and below the viewport: the page scrolled instead, or
  nothing did, and the step passed.
- So is one whose middle a fixed header covers, and one in a frame of another origin; one that
  something covers entirely fails the step, saying what covers it.
- App shells (an inner div scrolls, not the page), `distance:` in pixels, scrollToBottom of an
  endless list (it ends, and says it stopped), a page whose body hides its overflow (nothing
  moves: the step passes, as in Midscene, and says nothing scrolled).
Two origins: the pages on 127.0.0.1, the framed list on localhost, each on a free port."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

# the list's content (the text the step finds) is 3000 px tall in a 300 px box
TALL = """<div style="height:100px">Header</div>
<div id="box" style="height:300px; overflow:auto">
  <div id="list" style="height:3000px">Long list of items</div></div>
<div style="height:2000px">page below</div>"""
# a 3000 px strip in a 600 px carousel, on a page that scrolls sideways too
CAROUSEL = """<div id="box" style="width:600px; overflow-x:auto; white-space:nowrap">
<span style="display:inline-block; width:3000px; height:200px">Carousel of offers</span></div>
<div style="width:5000px; height:10px"></div>"""
# a fixed header over the top 350 px: the middle of the box's visible part (300) is under it
STICKY = """<div id="veil" style="position:fixed; top:0; left:0; right:0; height:350px;
  background:#246; z-index:5">Sticky header</div>
<div id="box" style="margin-top:100px; height:400px; overflow:auto">
  <div style="height:4000px">Messages pane</div></div>
<div style="height:3000px">rest</div>"""
# the box entirely under a modal's backdrop
COVERED = """<div id="box" style="height:300px; overflow:auto">
  <div style="height:3000px">Order history</div></div>
<div id="backdrop" style="position:fixed; inset:0; background:rgba(0,0,0,.5)"></div>
<div style="height:3000px">rest</div>"""
# an app shell: the page never scrolls, #app does
SHELL = """<style>html, body {height:100%; overflow:hidden}
#app {height:100vh; overflow:auto}</style>
<div id="app"><div style="height:5000px">App shell content</div></div>"""
LONG = """<div style="height:20000px">Long page</div>"""
HIDDEN = """<style>body {overflow:hidden; height:100vh}</style>
<div style="height:5000px">Hidden overflow page</div>"""
# 50 rows more each time the page nears its end
ENDLESS = """<div id="feed"></div><script>let n = 0; const feed = document.getElementById('feed');
function more() { for (let i = 0; i < 50; i++) { const d = document.createElement('div');
  d.style.height = '40px'; d.textContent = 'item ' + (n++); feed.appendChild(d); } }
more(); addEventListener('scroll', () => {
  if (innerHeight + scrollY >= document.body.scrollHeight - 200) more(); });</script>"""
# the page of 127.0.0.1 holds a list of localhost's, which says where it is
FRAMED = """<div style="height:100px">Top</div>
<iframe src="{other}/inner.html" style="width:600px; height:400px; border:0"></iframe>"""
INNER = """<div id="list" style="height:300px; overflow:auto">
  <div style="height:40000px">Frame list entries</div></div><p id="at"></p>
<script>const list = document.getElementById('list');
list.addEventListener('scroll', () => { document.getElementById('at').textContent =
  list.scrollTop + list.clientHeight >= list.scrollHeight - 1 ? 'list at its end'
  : 'list at ' + list.scrollTop; });</script>"""

PAGES = {"tall": TALL, "carousel": CAROUSEL, "sticky": STICKY, "covered": COVERED,
         "shell": SHELL, "long": LONG, "hidden": HIDDEN, "endless": ENDLESS, "framed": FRAMED,
         "inner": INNER}


def _pos(*exprs: str) -> str:
    return '      - javascript: "[' + ", ".join(exprs) + ']"\n        name: pos\n'


BOX = "document.getElementById('box')"
CASES = {
    "tall": ("tall", "      - aiScroll:\n        locate: Long list of items\n"
             "        distance: 200\n" + _pos(f"{BOX}.scrollTop", "scrollY")),
    "tall-xpath": ("tall", "      - aiScroll:\n        locate: the list\n"
                   "        xpath: //div[@id='list']\n        distance: 200\n"
                   + _pos(f"{BOX}.scrollTop", "scrollY")),
    "carousel": ("carousel", "      - aiScroll:\n        locate: Carousel of offers\n"
                 "        scrollType: scrollToRight\n"
                 + _pos(f"{BOX}.scrollLeft", f"{BOX}.scrollWidth - {BOX}.clientWidth",
                        "scrollX")),
    "sticky": ("sticky", "      - aiScroll:\n        locate: Messages pane\n"
               "        distance: 200\n" + _pos(f"{BOX}.scrollTop", "scrollY")),
    "covered": ("covered", "      - aiScroll:\n        locate: Order history\n"),
    "shell": ("shell", "      - aiScroll: {direction: down, distance: 300}\n"
              + _pos("document.getElementById('app').scrollTop", "scrollY")),
    "distance": ("long", "      - aiScroll: {direction: down, distance: 123}\n"
                 + _pos("scrollY")),
    "hidden": ("hidden", "      - aiScroll: {direction: down}\n" + _pos("scrollY")),
    "endless": ("endless", "      - aiScroll: {scrollType: scrollToBottom}\n"
                + _pos("scrollY")),
    "framed": ("framed", "      - aiScroll:\n        locate: Frame list entries\n"
               "        distance: 250\n      - waitForText: list at 250\n"
               "        timeout: 5000\n" + _pos("scrollY")),
    "framed-bottom": ("framed", "      - aiScroll:\n        locate: Frame list entries\n"
                      "        scrollType: scrollToBottom\n      - waitForText: list at its "
                      "end\n        timeout: 5000\n"),
}
CASE = """name: {name}
web:
  url: {own}/{page}.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: scroll
    flow:
{flow}"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """Every case above in one `farm run` on one browser: each case's result by name."""
    class Pages(QuietHandler):
        def do_GET(self) -> None:
            page = PAGES.get(self.path.split("?")[0].lstrip("/").removesuffix(".html"))
            body = None if page is None else (
                "<!doctype html><html><head><title>t</title></head><body style='margin:0'>"
                + page.replace("{other}", other) + "</body></html>")
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    tmp = tmp_path_factory.mktemp("scroll")
    with ExitStack() as stack:
        own = stack.enter_context(serving(Pages))
        other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        suite = tmp / "suite"
        suite.mkdir()
        for name, (page, flow) in CASES.items():
            (suite / f"{name}.yaml").write_text(CASE.format(name=name, own=own, page=page,
                                                            flow=flow))
        farm = FarmCli(tmp)
        try:
            done = farm.run("run", suite, "--devices", "browser:1", "--report-dir",
                            tmp / "run", FARM_LOCATE_OFF="ocr")
        finally:
            farm.close()
        assert done.returncode in (0, 1), done.stdout + done.stderr
        yield by_name(results(tmp / "run"))


def _scrolled(case: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """The case passed: (its aiScroll step, the positions its script read after it)."""
    assert case["status"] == "passed", case.get("error")
    return next(s for s in case["steps"] if s["kind"] == "aiScroll"), case["data"].get("pos")


def test_a_list_taller_than_its_box_is_scrolled_in_its_box_not_the_page(ran):
    step, pos = _scrolled(ran["tall"])
    assert pos == [200, 0]                 # the box, by the distance; the page did not move
    [mark] = step["marks"]
    assert 101 <= mark["points"][0][1] < 400       # the wheel inside the box's visible part
    assert step["output"] is None


def test_an_xpath_target_taller_than_its_box_is_scrolled_in_its_box(ran):
    _, pos = _scrolled(ran["tall-xpath"])
    assert pos == [200, 0]


def test_scroll_to_right_of_a_carousel_reaches_its_end_and_leaves_the_page(ran):
    _, pos = _scrolled(ran["carousel"])
    assert pos[0] == pos[1] > 0 and pos[2] == 0


def test_a_box_whose_middle_a_fixed_header_covers_is_wheeled_below_the_header(ran):
    step, pos = _scrolled(ran["sticky"])
    assert pos == [200, 0]
    assert step["marks"][0]["points"][0][1] >= 350


def test_a_box_covered_entirely_fails_the_step_saying_what_covers_it(ran):
    case = ran["covered"]
    assert case["status"] == "failed"
    assert ('"Order history" cannot be scrolled: it is covered by <div id="backdrop">'
            in case["error"]["message"])


def test_an_app_shell_scrolls_its_inner_scroller(ran):
    _, pos = _scrolled(ran["shell"])
    assert pos == [300, 0]


def test_distance_in_pixels_is_honoured(ran):
    _, pos = _scrolled(ran["distance"])
    assert pos == [123]


def test_a_page_that_hides_its_overflow_passes_saying_nothing_scrolled(ran):
    step, pos = _scrolled(ran["hidden"])
    assert pos == [0]
    assert step["output"] == "nothing scrolled: nothing at (640, 400) scrolls down any further"


def test_scroll_to_bottom_of_an_endless_list_ends_and_says_it_stopped(ran):
    step, pos = _scrolled(ran["endless"])
    assert len(step["marks"]) == 10 and pos[0] > 0
    assert step["output"] == ("stopped after 10 scrolls of 8000 px without reaching the "
                              "bottom: the content kept moving (an endless list?)")


def test_a_list_in_a_frame_of_another_origin_scrolls_by_the_distance(ran):
    _, pos = _scrolled(ran["framed"])
    assert pos == [0]


def test_scroll_to_bottom_of_a_list_in_a_frame_of_another_origin_reaches_its_end(ran):
    step, _ = _scrolled(ran["framed-bottom"])
    assert step["output"] is None
