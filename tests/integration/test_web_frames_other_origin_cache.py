"""What a model found inside a frame of another origin than the page's (a payment form's icon
button, which no text names) is kept in the locate cache, and the next run taps it with no
model call, checked against the live frame first: the frame moved in the page is still a hit
(tapped where it shows now), and the frame changed under the entry (its id now on another
button) is a miss (the model is asked), not a tap on what took its place. An `xpath:` reaches
into such a frame too. Before, such a frame's elements were out of XPath's reach: what the
model found was never cached, and every run asked the model again. Real `farm run`, real
Chromium, two origins (the page on 127.0.0.1, the frame on localhost, each its own server on
a free port), the scripted model server."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving
from tests.support.model_server import ModelServer

pytestmark = pytest.mark.integration

ICON = """<svg width="32" height="32"><rect x="8" y="14" width="16" height="12"
  fill="black"/><path d="M11 14 v-4 a5 5 0 0 1 10 0 v4" stroke="black" fill="none"
  stroke-width="2"/></svg>"""
# the frame: a padlock icon button (no text; its title is no word of the prompt) and, in
# "changed", a redesign that gave its id to a Cancel button where the icon was, the icon
# (with another id) moved down
FRAMES = {
    "card": f"""<!doctype html><html><body style="margin:0">
<p style="position:absolute; left:0; top:0; margin:0">Card ending 4242</p>
<button id="pay" title="Pay securely" style="position:absolute; left:240px; top:30px;
  width:32px; height:32px; border:0; padding:0; background:none"
  onclick="document.getElementById('r').textContent = 'Paid'">{ICON}</button>
<p id="r" style="position:absolute; left:0; top:80px; margin:0"></p></body></html>""",
    "changed": f"""<!doctype html><html><body style="margin:0">
<p style="position:absolute; left:0; top:0; margin:0">Card ending 4242</p>
<button id="pay" style="position:absolute; left:240px; top:30px" onclick="
  document.getElementById('r').textContent = 'Cancelled'">Cancel order</button>
<button id="pay-now" title="Pay securely" style="position:absolute; left:240px; top:70px;
  width:32px; height:32px; border:0; padding:0; background:none"
  onclick="document.getElementById('r').textContent = 'Paid'">{ICON}</button>
<p id="r" style="position:absolute; left:0; top:110px; margin:0"></p></body></html>""",
}
# the page, with the frame where it shows: (left, top)
PLACES = {"there": (100, 200), "moved": (40, 330)}
PAGE = """<!doctype html><html><body style="margin:0"><h1>Checkout</h1>
<iframe src="{other}/card.html" style="position:absolute; left:{left}px; top:{top}px;
  width:400px; height:150px; border:0"></iframe></body></html>"""
# the card in a frame of the page's origin inside a widget of another origin, on a zoomed
# page, the widget's frame with a border and padding
NESTED = """<!doctype html><html><body style="margin:0"><h1>Checkout</h1>
<div style="position:absolute; left:50px; top:100px; zoom:1.5">
<iframe src="{other}/widget.html" style="width:500px; height:300px;
  border:5px solid black; padding:3px"></iframe></div></body></html>"""
WIDGET = """<!doctype html><html><body style="margin:0"><p>Pay with your card</p>
<iframe src="{own}/card.html" style="position:absolute; left:30px; top:40px; width:400px;
  height:150px; border:0"></iframe></body></html>"""

CASE = """name: pay with the icon in a frame of another origin
web:
  url: {own}/page.html
tasks:
  - name: pay
    flow:
      - aiTap: the padlock icon
      - waitForText: Paid
        timeout: 5000
"""


class Site:
    """The two origins' pages; what they show is set between runs."""

    def __init__(self) -> None:
        self.frame, self.place, self.page = "card", "there", PAGE
        self.own = self.other = ""

    def icon(self) -> list[int]:
        """Where the icon shows in the page, in pixels: [x1, y1, x2, y2] (a model's bbox)."""
        left, top = PLACES[self.place]
        x, y = left + 240, top + (30 if self.frame == "card" else 70)
        return [x, y, x + 32, y + 32]


@pytest.fixture
def site() -> Iterator[Site]:
    """The page's origin and the frame's: two servers on free ports, the second named by
    localhost (another origin than 127.0.0.1)."""
    shown = Site()

    class Pages(QuietHandler):
        def do_GET(self) -> None:
            name = self.path.split("?")[0].lstrip("/")
            left, top = PLACES[shown.place]
            body = {"card.html": FRAMES[shown.frame], "widget.html": WIDGET,
                    "page.html": shown.page}.get(name)
            if body:
                body = body.replace("{own}", shown.own).replace("{other}", shown.other) \
                    .replace("{left}", str(left)).replace("{top}", str(top))
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    with ExitStack() as stack:
        shown.own = stack.enter_context(serving(Pages))
        shown.other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield shown


def _run(farm: FarmCli, tmp_path: Path, site: Site, srv: ModelServer, run: str,
         case: str = CASE) -> dict:
    """One `farm run` of ``case``: its result, the step's tier, the model requests it made."""
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)
    (suite / "pay.yaml").write_text(case.format(own=site.own))
    asked = len(srv.requests)
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / run,
                    FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=srv.base_url)
    [result] = results(tmp_path / run)["cases"]
    assert (done.returncode, result["status"]) == (0, "passed"), \
        (result.get("error"), done.stdout + done.stderr)
    return {"tier": result["steps"][0]["tier"], "asked": len(srv.requests) - asked}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_what_a_model_found_in_a_frame_of_another_origin_is_tapped_from_the_cache_next_run(
        farm: FarmCli, tmp_path: Path, site: Site, place: str) -> None:
    """The second run asks no model, and the tap reaches the icon (the page says Paid) where
    the frame shows now: where it was, or moved in the page."""
    with ModelServer(lambda body, i: json.dumps({"bbox": site.icon()})) as srv:
        first = _run(farm, tmp_path, site, srv, "first")
        site.place = place
        second = _run(farm, tmp_path, site, srv, "second")
    assert (first, second) == ({"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0})


def test_a_frame_changed_under_the_cached_entry_is_a_miss_not_a_tap_on_what_took_its_place(
        farm: FarmCli, tmp_path: Path, site: Site) -> None:
    """The entry's id now names a Cancel button where the icon was: the cache does not tap it
    (the page would say Cancelled, and waitForText Paid fail); the model is asked again and
    its find, the icon moved down, is tapped."""
    with ModelServer(lambda body, i: json.dumps({"bbox": site.icon()})) as srv:
        first = _run(farm, tmp_path, site, srv, "first")
        second = _run(farm, tmp_path, site, srv, "second")
        site.frame = "changed"
        changed = _run(farm, tmp_path, site, srv, "changed")
        again = _run(farm, tmp_path, site, srv, "again")
    assert [first, second, changed, again] == [
        {"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0},
        {"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0}]


@pytest.mark.parametrize("page", ["frame", "nested"])
def test_an_xpath_reaches_into_a_frame_of_another_origin(farm: FarmCli, tmp_path: Path,
                                                         site: Site, page: str) -> None:
    """An aiTap's own `xpath:` selects the icon in the frame, and the tap reaches it (no
    model: it asks nothing); in a frame inside a frame of another origin on a zoomed page
    too."""
    site.page = NESTED if page == "nested" else PAGE
    case = CASE.replace("      - aiTap: the padlock icon\n",
                        "      - aiTap: the padlock icon\n        xpath: //*[@id='pay']\n")
    with ModelServer() as srv:
        tapped = _run(farm, tmp_path, site, srv, "run", case)
    assert tapped == {"tier": "xpath", "asked": 0}
