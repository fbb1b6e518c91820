"""aiInput's report image after a fill: the fill's own page script looks at the page after its
change, so the image needs no look of its own when that look finds the page settled. A fill
that starts a navigation (a field whose input handler submits its form or sets location.href)
still gets the image of the page the navigation led to, never of the page before it; a fill
that only changes the page gets an image of that change, never of what the next action did.
Real Chromium; the next page is slow to answer (the site's behaviour), so an image taken
before the navigation is over would show the white start page."""

from __future__ import annotations

import io
import time
from typing import Any, Iterator

import pytest
from PIL import Image

from farm.agent.actions import ActionContext, Input, Locate
from farm.suite.model import WebTarget
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

SLOW_SECONDS = 0.5      # how long /next.html takes to answer: the site's behaviour, not a wait
# what the field's input handler does with the text typed into it
HANDLERS = {
    "href": "location.href = '/next.html?q=' + this.value",
    "requestSubmit": "this.form.requestSubmit()",
    "submit": "this.form.submit()",
}
START = """<!doctype html><title>Start</title>
<body style="margin:0;background:#ffffff"><form action="/next.html">
<label for="q">Query</label><input id="q" name="q" oninput="{handler}"></form>
<button id="red" style="position:absolute;left:300px;top:200px;width:80px;height:40px"
  onclick="document.body.style.background = '#ff0000'">Red</button></body>"""
NEXT = """<!doctype html><title>Next</title>
<body style="margin:0;background:#00c000"><h1>Arrived</h1></body>"""


class Pages(QuietHandler):
    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/next.html":
            time.sleep(SLOW_SECONDS)
            self.send_page(NEXT.encode())
            return
        handler = HANDLERS.get(query.partition("=")[2], "document.body.style.background = "
                               "'#0000ff'")
        self.send_page(START.format(handler=handler).encode())


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving(Pages) as url:
        yield url


def fill(device: Any, text: str) -> None:
    """aiInput on the Query field, as a step runs it (its node of a fresh read: no tap)."""
    node = next(n for n in device.hierarchy().nodes if n.editable and n.label == "Query")
    loc = Locate(prompt="Query", rect=node.rect, node=node.id, editable=True)
    Input(value=text, locate=loc).run(ActionContext(device, lambda t: t))


def centre(image: bytes | None) -> tuple[int, int, int]:
    assert image is not None
    picture = Image.open(io.BytesIO(image)).convert("RGB")
    return picture.getpixel((picture.width // 2, picture.height // 2))


@pytest.mark.parametrize("how", sorted(HANDLERS))
def test_a_fill_that_navigates_gets_the_image_of_the_page_it_led_to(browser: Any, site: str,
                                                                    how: str) -> None:
    browser.start_session(WebTarget(url=f"{site}/start.html?how={how}", viewport_width=400,
                                    viewport_height=300))
    try:
        browser.capture_evidence()()                # the image before the step
        fill(browser, "mugs")
        r, g, b = centre(browser.capture_evidence()())
        assert g > 150 and r < 80 and b < 80, f"the next page is green, got {(r, g, b)}"
        assert "Arrived" in browser.screen_text()
    finally:
        browser.end_session()


def test_a_fill_s_image_shows_its_change_and_not_the_next_action_s(browser: Any,
                                                                   site: str) -> None:
    browser.start_session(WebTarget(url=f"{site}/start.html?how=blue", viewport_width=400,
                                    viewport_height=300))
    try:
        browser.capture_evidence()()
        for text in ("mugs", "lamps"):
            fill(browser, text)                     # the page turns blue as it is filled
            image = browser.capture_evidence()
            browser.tap(340, 220)                   # the page turns red
            r, g, b = centre(image())
            assert b > 150 and r < 80 and g < 80, f"the filled page is blue, got {(r, g, b)}"
            assert browser.run_script("document.body.style.background", 5).startswith(
                "rgb(255, 0, 0)")
            browser.run_script("document.body.style.background = '#ffffff'", 5)
    finally:
        browser.end_session()
