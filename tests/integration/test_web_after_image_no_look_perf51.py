"""A tap that took the page to another document gets its after-image on the page it led to,
not on the one it left (the capture waits for the navigation). Real Chromium. (A first test
here pinned an after-image sent with no look of its own, taken back: a form's requestSubmit
navigated under it.)"""

from __future__ import annotations

import io
from typing import Any, Iterator

import pytest
from PIL import Image

from farm.devices.web import capture
from farm.suite.model import WebTarget
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

START = b"""<!doctype html><title>Start</title>
<style>body { margin: 0; background: #ffffff } #field { position: absolute; left: 20px;
top: 20px; width: 200px; height: 30px } #paint { position: absolute; left: 20px; top: 80px;
width: 120px; height: 40px } #away { position: absolute; left: 20px; top: 140px }</style>
<body><input id="field" aria-label="Colour" oninput="if (this.value === 'green')
  document.body.style.background = '#00c000'" onkeydown="if (event.key === 'Enter')
  document.body.style.background = '#0000e0'">
<button id="paint" onclick="document.body.style.background = '#e00000'">Paint</button>
<a id="away" href="/away.html">Away</a></body>"""
AWAY = b"""<!doctype html><title>Away</title><body style="margin:0; background:#f0e000">
<h1>Away</h1></body>"""


class Pages(QuietHandler):
    def do_GET(self) -> None:
        self.send_page(AWAY if self.path.startswith("/away") else START)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving(Pages) as url:
        yield url


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The DevTools methods farm sends over the page's own session, in order."""
    calls: list[str] = []
    real = capture._sent

    def counted(cdp: Any, page: Any, method: str, params: Any) -> Any:
        calls.append(method)
        return real(cdp, page, method, params)

    monkeypatch.setattr(capture, "_sent", counted)
    return calls


def after_image(device: Any, sent: list[str]) -> tuple[tuple[int, int, int], list[str]]:
    """The step's end as the runner has it (its notes, then its after-image): the image's
    colour far from the page's controls, and what the image itself sent to the page."""
    device.step_notes()
    sent.clear()
    jpeg = device.capture_evidence()()
    assert jpeg is not None, "the step changed the page: it has an image of its own"
    pixel = Image.open(io.BytesIO(jpeg)).convert("RGB").getpixel((900, 600))
    return pixel, list(sent)


def near(pixel: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 40 for a, b in zip(pixel, want))


def centre_of(device: Any, named: str) -> tuple[int, int, int]:
    """(node, x, y) of the element ``named`` in a fresh read, at its centre."""
    node = next(n for n in device.hierarchy().nodes if named in (n.name, n.text))
    return node.id, node.rect.x + node.rect.width // 2, node.rect.y + node.rect.height // 2


def tap(device: Any, named: str) -> None:
    """aiTap on the element ``named``, as a step runs it (a read, the check of what the tap
    reaches, the tap)."""
    x, y, _ = device.tap_point(*centre_of(device, named))
    device.tap(x, y)


def test_a_tap_that_navigates_is_captured_on_the_page_it_led_to(browser: Any, site: str,
                                                                sent: list[str]) -> None:
    browser.start_session(WebTarget(url=f"{site}/start.html"))
    try:
        browser.capture_evidence()()
        tap(browser, "Away")
        pixel, _ = after_image(browser, sent)
        assert near(pixel, (240, 224, 0)), f"the link's image shows {pixel}, not the page " \
                                           "it led to"
        assert "Away" in browser.screen_text()
    finally:
        browser.end_session()
