"""Screenshots of the browser device: the PNG a locator or the model looks at, and the JPEG a
report shows after a step (`PageCapture.evidence`), which Chromium encodes and which is taken
while farm goes on with the next step. An action that must wait for the last image is woken by
the capture's handler the moment the JPEG is in (a promise in an isolated world of the page), not
by a timer: no polls, no overshoot. The same DevTools session carries farm's own page scripts
(`PageCapture.script`: DOM reads, the navigation wait, fill), cheaper than page.evaluate."""

from __future__ import annotations

import base64
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from farm.devices.web.failures import first_line, lost
from farm.devices.web.page_wait import Errors, PageWait
from farm.errors import DeviceError, FarmError

log = logging.getLogger("farm.devices.browser")

EVIDENCE_QUALITY = 70        # JPEG quality of report screenshots, encoded by Chromium
CAPTURE_TIMEOUT = 10.0       # seconds an evidence capture may take
BINDING = "__farmShot"       # the page calls it to start an evidence capture (its event)
WORLD = "farm-capture"       # an isolated world (unseen by the page) where a wait is woken


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
        self._frame: str | None = None                # the page's main frame (DevTools id)
        self._world: tuple[str, int] | None = None    # (document, context id) of WORLD
        self._waiting: _Shot | None = None            # the capture this thread waits for
        self._serial = 0
        self.waits: Counter[str] = Counter()          # how each wait for a capture ended
        self.used = False                             # evidence is asked of this device

    def reset(self) -> None:
        """The session ended (or goes on in a shared context): the next image is new."""
        self._pending = []
        self._shown = None
        self._world = None

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
        self.used = True
        with self.errors("screenshot"):
            cdp = self._session(page)
        self._serial += 1
        shot = _Shot(None, serial=self._serial)
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
        in a call of its own; the event loop serves both). A document without the binding
        (should Runtime.enable not have carried it over) gets it added first."""
        call = {"expression": f"{BINDING}('')"}
        if "exceptionDetails" in cdp.send("Runtime.evaluate", call):
            cdp.send("Runtime.addBinding", {"name": BINDING})
            if "exceptionDetails" in cdp.send("Runtime.evaluate", call):
                self._pending.remove(shot)
                shot.data, shot.done = self._jpeg(cdp), True

    def _on_binding(self, cdp: Any, event: dict[str, Any]) -> None:
        shot = next((s for s in self._pending if not s.started), None)
        if event.get("name") != BINDING or shot is None:
            return
        shot.started = True
        try:
            shot.data = self._jpeg(cdp)
        except Exception as exc:   # handed to whoever asks for the image
            shot.error = exc
        finally:
            shot.done = True
            if self._waiting is shot:
                self._wake(cdp, shot)

    def _finish(self, page: Any, shot: "_Shot") -> bytes | None:
        """The image of ``shot``, once taken (the event loop runs while this waits)."""
        limit = time.monotonic() + CAPTURE_TIMEOUT
        with self.errors("screenshot"):
            ended = "done before"
            while not shot.done:
                now = time.monotonic()
                if now > limit:
                    shot.error = DeviceError(f"no screenshot after {CAPTURE_TIMEOUT:g}s")
                    break
                ended = self._await(shot, limit - now)
                if ended is None:
                    ended = "polled"
                    page.wait_for_timeout(5)   # a driver round trip: its events are served
            self.waits[ended] += 1
            if shot in self._pending:
                self._pending.remove(shot)
            if shot.error is not None:
                if self._shown == shot.token:
                    self._shown = None       # the next image is taken even if unchanged
                raise shot.error
        return shot.data

    def _await(self, shot: "_Shot", seconds: float) -> str | None:
        """Wait, in one round trip, until `_on_binding` has ``shot``'s image and wakes this
        thread (or ``seconds`` pass): a promise in an isolated world of the page, which the
        handler resolves (a capture not started yet starts during this wait: its event is
        served by the event loop that runs while this thread waits). None when that cannot be
        done here (no world for this document, or a navigation took it away): then the caller
        polls. Else how the wait ended: "woken", "timed out" (the capture is taking longer) or
        "done before"."""
        from playwright.sync_api import Error as PlaywrightError

        if self._cdp is None:
            return None
        cdp, world = self._cdp[1], self._wake_world(shot)
        if world is None:
            return None
        if shot.done:       # it finished while the world was being made
            return "done before"
        ms = max(1, min(round(seconds * 1000), 250))   # a lost wake-up costs 250 ms at most
        self._waiting = shot
        try:
            reply = cdp.send("Runtime.evaluate", {
                "expression": f"globalThis.w >= {shot.serial} ? 'done before' : new Promise("
                              f"(r) => {{ globalThis.r = r; setTimeout(r, {ms}, 'timed out'); }})",
                "contextId": world, "awaitPromise": True, "returnByValue": True})
        except PlaywrightError as exc:
            if lost(exc):
                raise
            self._world = None        # its document is gone
            return None
        finally:
            self._waiting = None
        return str(reply.get("result", {}).get("value") or "timed out")

    def _wake(self, cdp: Any, shot: "_Shot") -> None:
        """From the capture handler: wake the thread waiting for ``shot`` (`_await`)."""
        if self._world is None:
            return
        try:
            cdp.send("Runtime.evaluate", {
                "expression": f"globalThis.w = {shot.serial}; globalThis.r && r('woken')",
                "contextId": self._world[1]})
        except Exception as exc:   # the document went away: the waiting call fails too
            log.debug("%s: wake-up failed: %s", self.device, first_line(exc))

    def _wake_world(self, shot: "_Shot") -> int | None:
        """The execution context of WORLD in the page's current document: the one Chromium
        made in it and reported (`_on_context`), else made here (the document part of the change
        token says which document a context is of)."""
        from playwright.sync_api import Error as PlaywrightError

        document = (shot.token or "").partition(":")[0]
        if not document or self._cdp is None:
            return None
        if self._world is not None and self._world[0] in (document, ""):
            self._world = (document, self._world[1])    # "": reported, of the newest document
            return self._world[1]
        cdp = self._cdp[1]
        try:
            world = cdp.send("Page.createIsolatedWorld",
                             {"frameId": self._frame, "worldName": WORLD})["executionContextId"]
        except PlaywrightError as exc:
            if lost(exc):
                raise
            return None
        self._world = (document, world)
        return world

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

    def script(self, page: Any, js: str, arg: Any) -> Any:
        """Call farm's own page script ``js`` (a function expression of one argument; JSON in
        and out) with ``arg`` in ``page``'s main world, as page.evaluate would: over the page's
        DevTools session when it has one (Runtime.evaluate: about half of page.evaluate's round
        trip and 60% of its Python CPU, measured), else through page.evaluate. Raises
        Playwright's Error as page.evaluate does (a navigation that takes the document away
        included)."""
        if self._cdp is None or self._cdp[0] is not page:
            return page.evaluate(js, arg)
        reply = self._cdp[1].send("Runtime.evaluate", {
            "expression": f"({js})({json.dumps(arg)})", "awaitPromise": True,
            "returnByValue": True})
        failed = reply.get("exceptionDetails")
        if failed:
            from playwright.sync_api import Error as PlaywrightError

            thrown = (failed.get("exception") or {}).get("description") or failed.get("text")
            raise PlaywrightError(f"page script failed: {thrown}")
        return reply.get("result", {}).get("value")

    def attach(self, page: Any) -> None:
        """A page has started loading: when this device takes evidence (``used``), open the
        page's DevTools session now, its round trips overlapping the load, not later in the
        case's first step."""
        if self.used and (self._cdp is None or self._cdp[0] is not page):
            with self.errors("screenshot"):
                self._session(page)

    def _session(self, page: Any) -> Any:
        """The page's DevTools session, opened on first use, with the capture binding."""
        if self._cdp is None or self._cdp[0] is not page:
            cdp = page.context.new_cdp_session(page)
            self._cdp, self._world = (page, cdp), None
            self._frame = cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
            cdp.on("Runtime.bindingCalled", lambda event: self._on_binding(cdp, event))
            cdp.on("Runtime.executionContextCreated", self._on_context)
            cdp.on("Runtime.executionContextDestroyed", self._on_context_gone)
            cdp.on("Runtime.executionContextsCleared", self._on_context_gone)
            # Runtime enabled: the binding is installed in every new document of the page (else
            # it goes with the document, and adding it again costs a round trip a navigation),
            # and the page's contexts are reported, so WORLD, made by Chromium in every new
            # document, is known without a round trip (`_on_context`)
            cdp.send("Runtime.enable")
            cdp.send("Page.addScriptToEvaluateOnNewDocument",
                     {"source": "", "worldName": WORLD, "runImmediately": True})
            cdp.send("Runtime.addBinding", {"name": BINDING})
        return self._cdp[1]

    def _on_context(self, event: dict[str, Any]) -> None:
        """A new execution context: WORLD in the page's main frame is where waits are woken (its
        document is told by the next wait, `_wake_world`)."""
        context = event.get("context") or {}
        if (context.get("name") == WORLD
                and (context.get("auxData") or {}).get("frameId") == self._frame):
            self._world = ("", context["id"])

    def _on_context_gone(self, event: dict[str, Any] | None = None) -> None:
        gone = (event or {}).get("executionContextId")
        if self._world is not None and (gone is None or gone == self._world[1]):
            self._world = None

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
    serial: int = 0             # its number in this device's captures
    started: bool = False
    done: bool = False
    data: bytes | None = None
    error: BaseException | None = None
