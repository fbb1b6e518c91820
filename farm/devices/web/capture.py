"""Screenshots of the browser device: the PNG a locator or the model looks at, and the JPEG a
report shows after a step (`PageCapture.evidence`), which Chromium encodes and which is taken
while farm goes on with the next step."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any, Callable

from farm.devices.web.failures import first_line, lost, raced_navigation
from farm.devices.web.page_wait import Errors, PageWait
from farm.devices.web.scripts import STATE_JS
from farm.errors import FarmError

log = logging.getLogger("farm.devices.browser")

EVIDENCE_QUALITY = 70        # JPEG quality of report screenshots, encoded by Chromium
EVIDENCE_OPTIONS = {"type": "jpeg", "quality": EVIDENCE_QUALITY, "scale": "css",
                    "caret": "initial", "timeout": 10_000}


class PageCapture:
    """One device's screenshots. ``killed()`` says the device was killed (no retry then)."""

    def __init__(self, device: str, errors: Errors, wait: PageWait,
                 killed: Callable[[], bool]) -> None:
        self.device = device
        self.errors = errors
        self.wait = wait
        self.killed = killed
        self._capture: Any = None                     # an evidence capture still under way
        self._shown: str | None = None                # change token of the last evidence image

    def reset(self) -> None:
        """The session ended: a capture under way is dropped, the next image is new."""
        self._capture = None
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
        """Start an image of the viewport for the report and return at once; calling the
        result gives the JPEG (encoded by Chromium, CSS pixels), or None when the page has not
        changed since the last image (nothing was captured).

        The job runs on Playwright's event loop while farm goes on (the next step reads the
        page meanwhile): it waits for a navigation the step started, reads the page's change
        token and captures only a changed page. The next action waits for it first (`settle`),
        so the image never shows what that action did."""
        self._capture = None
        task = _start_in_background(page, lambda impl: self._evidence_job(impl, self._shown))
        if task is None:      # this Playwright has no such internals: do it now
            return self._evidence_now(page)
        self._capture = (page, task)
        return lambda: self._finish_capture(page, task)

    def _evidence_now(self, page: Any) -> Callable[[], bytes | None]:
        token = self.wait.settled(page)
        if token is not None and token == self._shown:
            return lambda: None
        with self.errors("screenshot"):
            try:
                page.wait_for_load_state("load", timeout=1500)
            except Exception as exc:   # still loading: capture what is there
                log.debug("%s: capturing before load: %s", self.device, first_line(exc))
            data = page.screenshot(**EVIDENCE_OPTIONS)
        self._shown = token
        return lambda: data

    async def _evidence_job(self, impl: Any, last: str | None) -> bytes | None:
        loop = asyncio.get_running_loop()
        limit, settle = loop.time() + self.wait.timeout, True
        while True:      # as PageWait.settled, on the loop: wait for a navigation the step started
            try:
                leaving, ready, token = await impl.evaluate(STATE_JS, settle)
            except Exception as exc:
                if not raced_navigation(exc):
                    raise
                leaving, ready, token = True, "loading", None
            settle = False
            if (not leaving and ready != "loading") or loop.time() > limit or (
                    leaving and ready != "loading" and not self.wait.navigation_in_flight):
                break
            await asyncio.sleep(0.025)
        if token is not None and token == last:
            return None
        try:
            await impl.wait_for_load_state("load", 1500)
        except Exception as exc:   # still loading: capture what is there
            log.debug("%s: capturing before load: %s", self.device, first_line(exc))
        data = await impl.screenshot(**_impl_args(impl.screenshot, EVIDENCE_OPTIONS))
        self._shown = token
        return data

    def _finish_capture(self, page: Any, task: Any) -> bytes | None:
        if self._capture is not None and self._capture[1] is task:
            self._capture = None
        with self.errors("screenshot"):
            if not task.done():
                page._sync(task)
            return task.result()

    def settle(self) -> None:
        """Before an action: let a capture still under way finish (its image is kept)."""
        if self._capture is not None:
            page, task = self._capture
            try:
                self._finish_capture(page, task)
            except FarmError as exc:   # evidence is best effort; the runner sees the failure
                log.debug("%s: capture failed: %s", self.device, exc)


def _start_in_background(page: Any, job: Callable[[Any], Any]) -> Any:
    """Start the coroutine ``job(page's async implementation)`` on Playwright's event loop and
    return its task without waiting; the loop runs it while this thread waits in later
    Playwright calls.

    Playwright's sync API cannot do this: this goes through its internals and returns None when
    they are not as expected (the caller then does the work synchronously)."""
    try:
        impl, loop, run = page._impl_obj, page._loop, page._sync
        if _impl_args(impl.screenshot, EVIDENCE_OPTIONS) is None:
            return None
        task = loop.create_task(job(impl))
    except (AttributeError, TypeError, ValueError):
        return None
    # a capture nobody waits for (the case ended) must not log "exception never retrieved"
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    run(asyncio.sleep(0))     # one turn of the loop: the first request goes out now
    return task


def _impl_args(method: Any, options: dict[str, Any]) -> dict[str, Any] | None:
    """``options`` as keyword arguments of one of Playwright's implementation methods (they
    take every parameter, no defaults); None when a name is not among them."""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return None
    if not set(options) <= set(params):
        return None
    return {name: options.get(name) for name in params}
