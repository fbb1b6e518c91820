"""Screenshots of the browser device: the PNG a locator or the model looks at, and the JPEG a
report shows after a step (`PageCapture.evidence`), which Chromium encodes and which is taken
while farm goes on with the next step."""

from __future__ import annotations

import base64
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

from farm.devices.web.failures import first_line, lost
from farm.devices.web.page_wait import Errors, PageWait
from farm.errors import DeviceError, FarmError

log = logging.getLogger("farm.devices.browser")

EVIDENCE_QUALITY = 70        # JPEG quality of report screenshots, encoded by Chromium
CAPTURE_TIMEOUT = 10.0       # seconds an evidence capture may take
BINDING = "__farmShot"       # the page calls it to start an evidence capture (its event)


class PageCapture:
    """One device's screenshots. ``killed()`` says the device was killed (no retry then)."""

    def __init__(self, device: str, errors: Errors, wait: PageWait,
                 killed: Callable[[], bool]) -> None:
        self.device = device
        self.errors = errors
        self.wait = wait
        self.killed = killed
        self._shown: str | None = None                # change token of the last evidence image
        self._cdp: tuple[Any, Any] | None = None      # (page, its DevTools session)
        self._pending: list[_Shot] = []               # evidence captures not yet handed over
        self.device_scale = 1.0                       # the case's deviceScaleFactor
        self._took = 0.0                              # seconds the last capture took

    def reset(self) -> None:
        """The session ended (or goes on in a shared context): the next image is new."""
        self._pending = []
        self._shown = None

    def screenshot(self, page: Any) -> bytes:
        """PNG of the viewport, in CSS pixels (so it matches tap coordinates at any DPR)."""
        from playwright.sync_api import Error as PlaywrightError

        if self.wait.may_navigate:
            self.wait.settled(page)
        with self.errors("screenshot"):
            # While a navigation or redirect is under way a capture fails ("Unable to capture
            # screenshot", "Not attached to an active page") or stalls until Playwright's 30 s
            # timeout: wait for the document, keep each try short, and try again.
            for attempt, limit_ms in ((1, 1500), (2, 3000), (3, 10000)):
                try:
                    page.wait_for_load_state("load", timeout=limit_ms)
                    return page.screenshot(type="png", scale="css", caret="initial",
                                           timeout=limit_ms)
                except PlaywrightError as exc:
                    if attempt == 3 or lost(exc) or self.killed():
                        raise
                    page.wait_for_timeout(300)
            raise AssertionError("unreachable")

    def evidence(self, page: Any) -> Callable[[], bytes | None]:
        """Start an image of the viewport for the report, as it is once a navigation the step
        started is over, and return at once; calling the result gives the JPEG (encoded by
        Chromium, CSS pixels), or None when the page has not changed since the last image
        (nothing was captured). The capture runs while farm goes on with the next step; the
        next action waits for it first (`settle`), so the image never shows what that action
        did."""
        with self.errors("screenshot"):
            cdp = self._session(page)
        shot = _Shot(None)
        self._pending.append(shot)     # a loaded page calls the binding as it reports settled
        try:
            shot.token = token = self.wait.settled(page, call=(BINDING, self._shown))
        except BaseException:
            self._pending.remove(shot)
            raise
        if token is not None and token == self._shown:
            self._pending.remove(shot)
            return lambda: None
        if not self.wait.called:
            with self.errors("screenshot"):
                try:
                    page.wait_for_load_state("load", timeout=1500)
                except Exception as exc:   # still loading: capture what is there
                    log.debug("%s: capturing before load: %s", self.device, first_line(exc))
                self._start(cdp, shot)
        self._shown = token
        return lambda: self._finish(page, shot)

    def _start(self, cdp: Any, shot: "_Shot") -> None:
        """Have the page call the capture binding: its event starts `_on_binding`, which runs
        the capture while this thread goes on (a listener of Playwright's sync API may block
        in a call of its own; the event loop serves both)."""
        call = {"expression": f"{BINDING}('')"}
        if "exceptionDetails" in cdp.send("Runtime.evaluate", call):
            # a new renderer (a cross-site navigation) has not got the binding yet
            cdp.send("Runtime.addBinding", {"name": BINDING})
            if "exceptionDetails" in cdp.send("Runtime.evaluate", call):
                self._pending.remove(shot)
                shot.data, shot.done = self._jpeg(cdp), True

    def _on_binding(self, cdp: Any, event: dict[str, Any]) -> None:
        shot = next((s for s in self._pending if not s.started), None)
        if event.get("name") != BINDING or shot is None:
            return
        shot.started, shot.since = True, time.monotonic()
        try:
            shot.data = self._jpeg(cdp)
        except Exception as exc:   # handed to whoever asks for the image
            shot.error = exc
        finally:
            shot.done = True
            self._took = time.monotonic() - shot.since

    def _finish(self, page: Any, shot: "_Shot") -> bytes | None:
        """The image of ``shot``, once taken (the event loop runs while this waits)."""
        limit = time.monotonic() + CAPTURE_TIMEOUT
        with self.errors("screenshot"):
            while not shot.done:
                now = time.monotonic()
                if now > limit:
                    shot.error = DeviceError(f"no screenshot after {CAPTURE_TIMEOUT:g}s")
                    break
                # each wait is a round trip to Playwright's driver (~0.5 ms of farm's CPU):
                # first about what the last capture took, less what has passed; then 2 ms
                left = shot.since + self._took - now if shot.started else 0.0
                page.wait_for_timeout(max(2, min(round(left * 1000), 50)))
            if shot in self._pending:
                self._pending.remove(shot)
            if shot.error is not None:
                if self._shown == shot.token:
                    self._shown = None       # the next image is taken even if unchanged
                raise shot.error
        return shot.data

    def _jpeg(self, cdp: Any) -> bytes:
        """One Page.captureScreenshot over the page's own DevTools session: Chromium encodes
        the JPEG, and none of the round trips Playwright's page.screenshot adds (its page
        preparation in every frame, fonts, layout metrics, clean-up) are paid."""
        params: dict[str, Any] = {"format": "jpeg", "quality": EVIDENCE_QUALITY,
                                  "optimizeForSpeed": True}
        if self.device_scale != 1:      # a clip's size is in CSS pixels: the image's too
            view = cdp.send("Page.getLayoutMetrics")["cssVisualViewport"]
            params["clip"] = {"x": view["pageX"], "y": view["pageY"],
                              "width": view["clientWidth"], "height": view["clientHeight"],
                              "scale": 1}
        return base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])

    def _session(self, page: Any) -> Any:
        """The page's DevTools session, opened on first use, with the capture binding."""
        if self._cdp is None or self._cdp[0] is not page:
            cdp = page.context.new_cdp_session(page)
            cdp.on("Runtime.bindingCalled", lambda event: self._on_binding(cdp, event))
            cdp.send("Runtime.addBinding", {"name": BINDING})
            self._cdp = (page, cdp)
        return self._cdp[1]

    def settle(self) -> None:
        """Before an action: let captures still under way finish (their images are kept)."""
        while self._pending and self._cdp is not None:
            try:
                self._finish(self._cdp[0], self._pending[0])
            except FarmError as exc:   # evidence is best effort; the runner sees the failure
                log.debug("%s: capture failed: %s", self.device, exc)


@dataclass
class _Shot:
    """One evidence capture: started by the binding's event, done when its JPEG (or error)
    is in."""

    token: str | None
    started: bool = False
    since: float = 0.0          # when the capture began (monotonic)
    done: bool = False
    data: bytes | None = None
    error: BaseException | None = None
