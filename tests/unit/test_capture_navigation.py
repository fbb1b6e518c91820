"""A report image whose page navigated under it (a step's script set location.href, a redirect
followed): Chromium never answers that Page.captureScreenshot, so farm takes the image again on
the page the navigation loaded instead of waiting out its 10 s limit (the next action waited
10 s, and the step's image was lost, in about half the runs of a navigating javascript step)."""

from __future__ import annotations

import base64
import contextlib

from farm.devices.web.capture import PageCapture, _Shot
from farm.devices.web.page_wait import PageWait

MAIN = "main-frame"


class Page:
    """Playwright's page as the capture uses it where no event loop is offered: each wait is
    a round trip during which the DevTools session's events arrive (here: the navigation)."""

    def __init__(self) -> None:
        self.capture: PageCapture | None = None
        self.events: list[tuple[dict, bool]] = [({"frameId": MAIN}, True),
                                                ({"frameId": "ad-iframe"}, True),
                                                ({"frameId": MAIN}, False)]

    def wait_for_timeout(self, ms: float) -> None:
        assert self.capture is not None
        if self.events:
            event, loading = self.events.pop(0)
            self.capture._on_loading(event, loading)


class Session:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, method: str, params: dict | None = None) -> dict:
        self.sent.append(method)
        return {"data": base64.b64encode(b"the page the navigation loaded").decode()}


def test_a_capture_the_page_navigated_under_is_taken_again_once_the_page_loaded():
    wait = PageWait(lambda what: contextlib.nullcontext())
    capture = PageCapture("browser-1", lambda what: contextlib.nullcontext(), wait,
                          lambda: False)
    page, cdp = Page(), Session()
    page.capture = capture
    capture._cdp, capture._frame = (page, cdp), MAIN
    shot = _Shot("token-1", asked=0.0, started=True)     # its Page.captureScreenshot hangs
    capture._pending.append(shot)
    assert capture._finish(page, shot) == b"the page the navigation loaded"
    assert cdp.sent == ["Page.captureScreenshot"] and capture.waits["taken again"] == 1
    assert shot not in capture._pending
    assert capture._finish(page, shot) == b"the page the navigation loaded"   # no wait again
