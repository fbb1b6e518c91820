"""A report image whose page navigated under it (a step's script set location.href, a redirect
followed): Chromium never answers that Page.captureScreenshot, so farm takes the image again on
the page the navigation loaded instead of waiting out its 10 s limit (the next action waited
10 s, and the step's image was lost, in about half the runs of a navigating javascript step)."""

from __future__ import annotations

import base64
import contextlib

import pytest

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
    shot = _Shot("token-1", started=True)     # its Page.captureScreenshot hangs
    capture._pending.append(shot)
    assert capture._finish(page, shot) == b"the page the navigation loaded"
    assert cdp.sent == ["Page.captureScreenshot"] and capture.waits["taken again"] == 1
    assert shot not in capture._pending
    assert capture._finish(page, shot) == b"the page the navigation loaded"   # no wait again


def test_a_capture_is_timed_from_its_own_start_not_from_when_it_was_asked_for(monkeypatch):
    """The after-image of a step is asked for as the step ends; it may start only later (a
    `sleep` step in between). farm_screenshot_duration_seconds recorded the sleep (6 s
    "captures" at 0.1 s each)."""
    import farm.devices.web.capture as capture_module
    now = [100.0]
    monkeypatch.setattr(capture_module.time, "monotonic", lambda: now[0])

    class Slow(Session):
        def send(self, method: str, params: dict | None = None) -> dict:
            now[0] += 0.08                          # what Chromium takes to encode it
            return super().send(method, params)
    wait = PageWait(lambda what: contextlib.nullcontext())
    capture = PageCapture("browser-1", lambda what: contextlib.nullcontext(), wait,
                          lambda: False)
    shot = _Shot("token-1")
    capture._pending.append(shot)                   # asked for at 100.0
    now[0] += 6.0                                   # a `sleep: 6000` step
    capture._cdp = (Page(), Slow())
    capture._capture(shot)
    assert shot.done and shot.data == b"the page the navigation loaded"
    assert shot.took == pytest.approx(0.08), shot.took   # the patched clock's, not the sleep


def test_a_sleep_step_lets_the_report_images_under_way_come_in_before_it_waits():
    """A `sleep` waits without serving Playwright's events: the last step's image, asked for
    just before, came in only after the sleep, and farm_screenshot_duration_seconds recorded
    the sleep (6 s "captures"; the dashboard's screenshot p95 read 5 s). Now the sleep has the
    browser finish its captures first, and still lasts what it says."""
    import threading

    from farm.agent.actions import ActionContext, Sleep
    from farm.devices.fake import FakeDevice
    seen: list[str] = []

    class Browser(FakeDevice):
        def finish_captures(self) -> None:
            seen.append("captures in")

    class Cancel(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            seen.append(f"wait {timeout:.1f}")
            return False
    ctx = ActionContext(Browser(), lambda v: v, acted=[], cancel=Cancel())
    Sleep(timeMs=6000).run(ctx)
    assert seen == ["captures in", "wait 6.0"]
