"""What a model found inside a frame of another origin than the page's (a payment form's icon
button, which no text names) is kept in the locate cache, and the next run taps it with no
model call, checked against the live frame first: the frame moved in the page is still a hit
(tapped where it shows now), and the frame changed under the entry (its id now on another
button) is a miss (the model is asked), not a tap on what took its place. An `xpath:` reaches
into such a frame too. Before, such a frame's elements were out of XPath's reach: what the
model found was never cached, and every run asked the model again. Real `farm run`, real
Chromium, two origins (the page on 127.0.0.1, the frame on localhost, each its own server on
a free port), the scripted model server.

The cases are nights of one cache: four `farm run`s for the module, each case a page of its
own (what it shows set between nights) and a prompt of its own, by which the model's answers
and requests are told apart (tests/support/per_case_model.py)."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.http_site import QuietHandler, serving
from tests.support.model_server import ModelServer
from tests.support.per_case_model import PerCase

pytestmark = pytest.mark.integration

ICON = """<svg width="32" height="32"><rect x="8" y="14" width="16" height="12"
  fill="black"/><path d="M11 14 v-4 a5 5 0 0 1 10 0 v4" stroke="black" fill="none"
  stroke-width="2"/></svg>"""
# the frame: a padlock icon button (no text; its title is no word of the prompts) and, in
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

CASE = """name: pay with the icon in a frame of another origin ({name})
web:
  url: {own}/page.html
tasks:
  - name: pay
    flow:
      - aiTap: {prompt}
      - waitForText: Paid
        timeout: 5000
"""
XPATH = "\n        xpath: //*[@id='pay']"
# each case: its prompt, its page, whether its aiTap names an xpath
CASES = {"changed": ("the padlock icon", PAGE, ""),
         "moved": ("the padlock icon button", PAGE, ""),
         "xpath_frame": ("the padlock icon of the frame", PAGE, XPATH),
         "xpath_nested": ("the padlock icon of the nested frame", NESTED, XPATH)}


class Site:
    """The two origins' pages, one set per case under /<case>/; what each case's shows is
    set between nights."""

    def __init__(self) -> None:
        self.frame = dict.fromkeys(CASES, "card")
        self.place = dict.fromkeys(CASES, "there")
        self.own = self.other = ""

    def icon(self, name: str) -> list[int]:
        """Where the case's icon shows in its page, in pixels: [x1, y1, x2, y2] (a model's
        bbox)."""
        left, top = PLACES[self.place[name]]
        x, y = left + 240, top + (30 if self.frame[name] == "card" else 70)
        return [x, y, x + 32, y + 32]

    def body(self, path: str) -> str | None:
        name, _, page = path.split("?")[0].lstrip("/").partition("/")
        if name not in CASES:
            return None
        left, top = PLACES[self.place[name]]
        body = {"card.html": FRAMES[self.frame[name]], "widget.html": WIDGET,
                "page.html": CASES[name][1]}.get(page)
        return body and body.replace("{own}", f"{self.own}/{name}") \
            .replace("{other}", f"{self.other}/{name}") \
            .replace("{left}", str(left)).replace("{top}", str(top))


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The page's origin and the frame's: two servers on free ports, the second named by
    localhost (another origin than 127.0.0.1)."""
    shown = Site()

    class Pages(QuietHandler):
        def do_GET(self) -> None:
            body = shown.body(self.path)
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    with ExitStack() as stack:
        shown.own = stack.enter_context(serving(Pages))
        shown.other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield shown


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory, site: Site) -> dict[str, list[dict]]:
    """Four nights of one farm state: all cases; the moved frame moved, with the changed
    case; then the changed frame changed, twice. Each case's nights: its status, error, the
    step's tier and how many model requests it made."""
    tmp = tmp_path_factory.mktemp("frames")
    suite = tmp / "suite"
    suite.mkdir()
    for name, (prompt, _, xpath) in CASES.items():
        (suite / f"{name}.yaml").write_text(CASE.format(
            name=name, own=f"{site.own}/{name}", prompt=prompt + xpath))
    model = PerCase(**{name: (f"Find the element: {prompt}.",
                              lambda body, i, name=name: json.dumps({"bbox": site.icon(name)}))
                       for name, (prompt, _, _) in CASES.items()})
    farm, seen = FarmCli(tmp), {name: [] for name in CASES}

    def night(run: str, *names: str) -> None:
        asked = {name: model.asked(name) for name in names}
        done = farm.run("run", *(suite / f"{name}.yaml" for name in names), "--devices",
                        f"browser:{min(len(names), 2)}", "--report-dir", tmp / run,
                        FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=srv.base_url)
        ran = by_name(results(tmp / run))
        for name in names:
            seen[name].append({"status": ran[name]["status"], "error": ran[name].get("error"),
                               "out": done.stdout[-2000:] + done.stderr,
                               "tier": ran[name]["steps"][0]["tier"],
                               "asked": model.asked(name) - asked[name]})

    try:
        with ModelServer(model) as srv:
            night("first", *CASES)
            site.place["moved"] = "moved"
            night("second", "changed", "moved")
            site.frame["changed"] = "changed"
            night("changed", "changed")
            night("again", "changed")
    finally:
        farm.close()
    assert not model.unrouted, model.unrouted
    return seen


def tier_and_asked(nights: list[dict]) -> list[dict]:
    """What each night of a case tapped through and asked, once it is known to have passed."""
    for night in nights:
        assert night["status"] == "passed", (night["error"], night["out"])
    return [{"tier": night["tier"], "asked": night["asked"]} for night in nights]


@pytest.mark.parametrize("place", sorted(PLACES))
def test_what_a_model_found_in_a_frame_of_another_origin_is_tapped_from_the_cache_next_run(
        nights: dict[str, list[dict]], place: str) -> None:
    """The second run asks no model, and the tap reaches the icon (the page says Paid) where
    the frame shows now: where it was (the changed case before its change), or moved in the
    page."""
    first, second = tier_and_asked(nights["changed" if place == "there" else "moved"][:2])
    assert (first, second) == ({"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0})


def test_a_frame_changed_under_the_cached_entry_is_a_miss_not_a_tap_on_what_took_its_place(
        nights: dict[str, list[dict]]) -> None:
    """The entry's id now names a Cancel button where the icon was: the cache does not tap it
    (the page would say Cancelled, and waitForText Paid fail); the model is asked again and
    its find, the icon moved down, is tapped."""
    assert tier_and_asked(nights["changed"]) == [
        {"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0},
        {"tier": "ai", "asked": 1}, {"tier": "cache", "asked": 0}]


@pytest.mark.parametrize("page", ["frame", "nested"])
def test_an_xpath_reaches_into_a_frame_of_another_origin(nights: dict[str, list[dict]],
                                                         page: str) -> None:
    """An aiTap's own `xpath:` selects the icon in the frame, and the tap reaches it (no
    model: it asks nothing); in a frame inside a frame of another origin on a zoomed page
    too."""
    assert tier_and_asked(nights[f"xpath_{page}"]) == [{"tier": "xpath", "asked": 0}]
