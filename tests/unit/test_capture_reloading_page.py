"""Report images of a page that reloads itself over and over (a meta refresh of 0, a script
calling location.reload()): Chromium never answers a capture whose document goes away under
it. An image taken again after a navigation waited for that answer until the case timed
out; now a capture the page navigated under is taken again, a bounded number of times
within the capture's limit, and then the image is left out, farm.log saying why. (The
model's PNG of such a page: tests/integration/test_web_reloading_page.py.)"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from typing import Any

import pytest

from farm.devices.web import capture as capture_module
from farm.devices.web.capture import RETAKES, PageCapture, _Shot
from farm.devices.web.page_wait import PageWait
from farm.errors import DeviceError

MAIN = "main-frame"


def _capture() -> PageCapture:
    wait = PageWait(lambda what: contextlib.nullcontext())
    capture = PageCapture("browser-1", lambda what: contextlib.nullcontext(), wait,
                          lambda: False)
    capture._frame = MAIN
    return capture


def _navigates(capture: PageCapture) -> None:
    """The page's next document commits (Page.frameNavigated of its main frame)."""
    capture._on_navigated({"frame": {"id": MAIN}})


class Impl:
    """The DevTools session's implementation: Page.captureScreenshot is answered only where
    the page does not navigate under it (the first ``navigations`` never are)."""

    def __init__(self, capture: PageCapture, navigations: int) -> None:
        self.capture = capture
        self.navigations = navigations
        self.asked = 0

    async def send(self, method: str, params: dict, timeout: Any = None) -> dict:
        self.asked += 1
        if self.asked <= self.navigations:
            _navigates(self.capture)
            await asyncio.Event().wait()        # never answered
        return {"data": base64.b64encode(b"the page as shown").decode()}


class Session:
    def __init__(self, impl: Impl) -> None:
        self._impl_obj = impl


class LoopPage:
    """A page with an event loop to wait on, as Playwright's sync API offers (``_sync``)."""

    def _sync(self, coro: Any) -> Any:
        return asyncio.run(coro)


def _lost_shot(capture: PageCapture, navigations: int) -> tuple[_Shot, Impl, LoopPage]:
    """A report image whose capture the page navigated under (and is loaded again)."""
    impl, page = Impl(capture, navigations), LoopPage()
    capture._cdp = (page, Session(impl))
    shot = _Shot("token-1", started=True)
    capture.wait.loads_begun = 1
    capture._pending.append(shot)
    return shot, impl, page


def test_a_report_image_is_taken_on_the_page_shown_once_a_capture_is_answered():
    capture = _capture()
    shot, impl, page = _lost_shot(capture, navigations=RETAKES - 1)
    assert capture._finish(page, shot) == b"the page as shown"
    assert impl.asked == RETAKES and capture.waits["taken again"] == 1


def test_a_page_that_navigates_under_every_capture_has_its_image_left_out(caplog):
    caplog.set_level(logging.INFO, logger="farm.devices.browser")
    capture = _capture()
    shot, impl, page = _lost_shot(capture, navigations=100)
    with pytest.raises(DeviceError, match="navigated under each of .* captures"):
        capture._finish(page, shot)
    assert impl.asked == RETAKES
    assert "a report image left out: the page navigated under each" in caplog.text
    assert shot not in capture._pending


def test_every_retake_is_bounded_by_the_time_left_to_the_capture(monkeypatch):
    """However many retakes are left, none goes on past the capture's limit."""
    capture = _capture()
    monkeypatch.setattr(capture_module, "RETAKES", 1000)
    monkeypatch.setattr(capture_module, "CAPTURE_TIMEOUT", 0.3)
    shot, impl, page = _lost_shot(capture, navigations=10**6)
    with pytest.raises(DeviceError):
        capture._finish(page, shot)
    assert impl.asked < 1000
