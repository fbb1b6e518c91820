"""Waiting for the navigation an action started before the next page read.

After an action that may navigate (a link, a form, a script) the old document can go away under
the next DOM read ("Execution context was destroyed"). `PageWait.settled` waits until no
navigation is under way and the document is parsed; `PageWait.evaluate` is a read-only
evaluate that does so first, and reads again when it still races one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Any, Callable, ContextManager

from farm.devices.web.failures import raced_navigation
from farm.devices.web.scripts import STATE_JS, settled_read_js
from farm.errors import CaseTimeout, DeviceLost, FarmError, StepFailed

log = logging.getLogger("farm.devices.browser")

Errors = Callable[[str], ContextManager[None]]
# runs a function expression of one argument in a page's main world: (page, js, arg) -> value;
# with ``then``, calls it with the value as soon as the answer comes (in Playwright's event loop
# where the script has one: before the calling thread has the answer)
Script = Callable[..., Any]
# Midscene's idle network after an action (puppeteer's waitForNetworkIdle with its settings):
# at most 2 requests in flight for 200 ms.
IDLE_REQUESTS, IDLE_SECONDS = 2, 0.2
# A document that began to unload but got no successor (the navigation was a 204 or a download)
# is taken to stay: a moment after the main frame stopped loading, else after NO_DOCUMENT_S.
NO_DOCUMENT_S, STOPPED_S = 1.0, 0.1
# Longest pause between two looks at a page that is still loading; the page's DevTools events
# (its DOM parsed, its main frame started or stopped loading) end a pause sooner.
POLL_S = 0.025
# the page's unload flag put back once no document came (page_state.js sets it)
NOT_LEAVING_JS = "() => { if (window.__farm) window.__farm.leaving = false; }"
_STAYED = object()      # a document began to unload and stays (PageWait._until_settled)


class PageWait:
    """One device's navigation bookkeeping. ``errors(what)`` maps Playwright failures (the
    device's `farm.devices.web.failures.mapped_errors`)."""

    def __init__(self, errors: Errors, timeout: float = 30.0) -> None:
        self.errors = errors
        self.timeout = timeout                  # how long a read waits for a new document
        self.may_navigate = False               # an action ran since the last settle
        # the main frame is loading (a navigation in flight): told by the page's DevTools
        # session (`farm.devices.web.capture.PageCapture`), from Page.frameStartedLoading to
        # Page.frameStoppedLoading: per navigation, not per request
        self.loading = False
        # a main-frame navigation began and its document has not come (no answer from its
        # server yet): the page answers no script until it does (Chromium holds them), so
        # none is sent meanwhile; ``stalled`` once a wait for it ran out
        self.awaiting = False
        self.stalled = False
        # the case's end (monotonic seconds; None: no case under way): no wait for a document
        # goes past it, which then says what the page was waiting for (`_await_document`)
        self.deadline: float | None = None
        # the main frame's last navigation the page asked for (a link, location.href, a
        # form): where to; and since when the one under way waits for its document
        self.heading_to: str | None = None
        self._awaiting_since = 0.0
        # what a wait the case's end cut short was waiting for (its timeout says it)
        self.cut_short: str | None = None
        self._stops = 0                         # main-frame loads that ended, ever
        self.loads_begun = 0                    # ... that began, ever
        self._stops_at_action = 0               # ... when the last action began
        self.loads_at_action = 0                # loads begun when the last action began
        self.actions = 0                        # actions on the page, ever
        self._progress = 0                      # the page's load events seen, ever
        self._wake: "asyncio.Future[None] | None" = None   # a pause they end early
        self.pauses: Counter[str] = Counter()   # how each pause ended (woken, timed out...)
        self._requests_of: Any = None           # the page whose requests are followed
        self._in_flight: set[Any] = set()       # every request of that page in flight
        self._quiet_since: float | None = 0.0   # since when at most IDLE_REQUESTS are
        # how farm's own page scripts run (the device gives its faster way, PageCapture.script)
        self.script: Script = _evaluated

    def acted(self) -> None:
        """An action is about to run on the page: it may navigate."""
        self.may_navigate = True
        self._stops_at_action = self._stops
        self.loads_at_action = self.loads_begun
        self.actions += 1

    def main_frame(self, loading: bool) -> None:
        """The page's main frame started (True) or stopped (False) loading."""
        self.loading = loading
        if loading:
            self.loads_begun += 1
            if not self.awaiting:
                self._awaiting_since = time.monotonic()
            self.awaiting = True
        else:
            self._stops += 1
            self.arrived()
        self.progressed()

    def arrived(self) -> None:
        """The main frame's new document came (committed), or its load ended without one: a
        pause for it ends now. (Told after the capture binding's round trip, `PageCapture.
        _on_navigated`: the document's parse may have been told meanwhile, and a wait that
        began in between waited for the page's next event, its load, held by a slow image.)"""
        self.awaiting = self.stalled = False
        self.progressed()

    def requested(self, url: str) -> None:
        """The page asked its main frame to navigate to ``url`` (its messages name it)."""
        self.heading_to = url

    def progressed(self) -> None:
        """The page got further with loading (a main-frame load began or ended, its document
        was parsed): a pause in `settled` ends now."""
        self._progress += 1
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _pause(self, page: Any, seen: int) -> None:
        """Wait before the next look at a loading page: until its next load event, at most
        POLL_S; not at all if one came since the last look began (``seen``). Where the page
        has no event loop to wait on (not Playwright's sync API), a plain POLL_S."""
        if self._progress != seen:
            self.pauses["skipped"] += 1
            return
        wake = loop_future(page)
        with self.errors("wait for the page"):
            if wake is None:
                self.pauses["polled"] += 1
                page.wait_for_timeout(POLL_S * 1000)
                return
            self._wake = wake
            try:
                wait_on(page, wake, POLL_S)
            finally:
                self._wake = None
            self.pauses["woken" if wake.done() else "timed out"] += 1

    def pause(self, page: Any) -> None:
        """Wait for the page's next load event (at most POLL_S): a look at a page that is
        loading comes again when it got further."""
        self._pause(page, self._progress)

    def watch_requests(self, page: Any) -> None:
        """Follow every request of ``page``, for `network_idle` (waitForNetworkIdle): only
        then, as Playwright reports each request of a page (several messages a request) once
        anything listens."""
        if self._requests_of is page:
            return
        self._requests_of = page
        self._in_flight.clear()
        self._quiet_since = 0.0
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_request_done)
        page.on("requestfailed", self._on_request_done)

    def reset(self) -> None:
        """The session ended: nothing to wait for."""
        self.may_navigate = False
        self.loading = False
        self.cut_short = self.heading_to = None
        self.arrived()
        self._stops_at_action = self._stops
        self._requests_of = None
        self._in_flight.clear()
        self._quiet_since = 0.0

    def _on_request(self, request: Any) -> None:
        self._in_flight.add(request)
        if len(self._in_flight) > IDLE_REQUESTS:
            self._quiet_since = None

    def _on_request_done(self, request: Any) -> None:
        self._in_flight.discard(request)
        if len(self._in_flight) <= IDLE_REQUESTS and self._quiet_since is None:
            self._quiet_since = time.monotonic()

    def network_idle(self, page: Any, timeout_ms: int) -> bool:
        """Midscene's waitForNetworkIdle after an action: wait until at most IDLE_REQUESTS
        requests of the page have been in flight for IDLE_SECONDS since the action, at most
        ``timeout_ms``; whether it went idle."""
        start = time.monotonic()
        limit = start + timeout_ms / 1000
        while True:
            now = time.monotonic()
            quiet = self._quiet_since
            if quiet is not None and now - max(quiet, start) >= IDLE_SECONDS:
                return True
            if now > limit:
                return False
            with self.errors("wait for network idle"):
                page.wait_for_timeout(25)

    def settled(self, page: Any, then: Callable[[Any], None] | None = None) -> str | None:
        """Wait until no navigation is under way and the document is parsed (within
        ``timeout``); return the page's change token (None when unknown). ``then`` is given
        each look's [unloading?, readyState, change token] as it comes (in Playwright's event
        loop: a capture it starts is sent before this thread has the answer)."""
        token = self._until_settled(page, lambda settle: self._state(page, settle, then))
        return None if token is _STAYED else token

    def _until_settled(self, page: Any, look: Callable[[bool], tuple[bool, str, Any]]) -> Any:
        """``look(settle)`` -> (unloading?, readyState, value), a round trip to the page, until
        no navigation is under way and the document is parsed: that look's value. _STAYED when
        the document began to unload and no navigation came of it (it stays)."""
        limit = self.limit(self.timeout)
        stuck_since: float | None = None
        settle = self.may_navigate
        while True:
            seen = self._progress
            if self.awaiting:      # no script would be answered before the document comes
                self._await_document(page, limit)
                continue
            leaving, ready, value = look(settle)
            settle = False
            if not leaving and ready != "loading":
                self.may_navigate = False
                return value
            now = time.monotonic()
            if leaving and ready != "loading" and not self.loading:
                # unloading began but no navigation came of it (a download, a 204): go on
                stuck_since = stuck_since or now
                stopped = self._stops > self._stops_at_action
                if now - stuck_since > (STOPPED_S if stopped else NO_DOCUMENT_S):
                    self.may_navigate = False
                    self._stays(page)
                    return _STAYED
            else:
                stuck_since = None
            if now > limit:
                at = f" at {self.heading_to}" if self.heading_to else ""
                self._past_deadline(f"the page{at} was still loading (its server has not "
                                    "sent all of it, or a script in it has not come)")
                raise StepFailed(f"the page was still loading after {self.timeout:g}s")
            self._pause(page, seen)

    def limit(self, seconds: float) -> float:
        """When a wait of ``seconds`` from now must end: at the case's end, if that is sooner."""
        limit = time.monotonic() + seconds
        return limit if self.deadline is None else min(limit, self.deadline)

    def _await_document(self, page: Any, limit: float) -> None:
        """Wait (one pause) for the document of a navigation under way; past ``limit``, or
        at once when a wait for this navigation already ran out, the step fails: the site
        does not answer, which is not the browser's doing. Past the case's end, the case
        timed out, saying so (the page waited for its server, not for the browser)."""
        if self.stalled or time.monotonic() > limit:
            self.stalled = True
            self.may_navigate = False
            to = f" to {self.heading_to}" if self.heading_to else ""
            waited = time.monotonic() - self._awaiting_since
            self._past_deadline(f"the page's navigation{to} got no answer from its server "
                                f"in {waited:.0f}s")
            raise StepFailed(f"the page's next document did not come within "
                             f"{self.timeout:g}s: its server has not answered the "
                             f"navigation{to}")
        self._pause(page, self._progress)

    def _past_deadline(self, what: str) -> None:
        """CaseTimeout saying ``what`` the page was waiting for, when the case's end came."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.cut_short = what
            raise CaseTimeout(f"case timed out: {what}")

    def _stays(self, page: Any) -> None:
        """The document stays: clear its unload flag, or every later action would wait for a
        navigation that is not coming."""
        try:
            with self.errors("wait for the page"):
                self.script(page, NOT_LEAVING_JS, None)
        except DeviceLost:
            raise
        except FarmError as exc:    # a navigation came after all: its document has no flag
            log.debug("could not clear the page's unload flag: %s", exc)

    def _state(self, page: Any, settle: bool, then: Callable[[Any], None] | None
               ) -> tuple[bool, str, str | None]:
        """(navigating?, readyState, change token); a look the navigation broke: navigating."""
        with self.errors("wait for the page"):
            try:
                leaving, ready, token = self.script(page, STATE_JS, settle, then=then)
            except Exception as exc:
                if not raced_navigation(exc):
                    raise
                return True, "loading", None
        return leaving, ready, token

    def evaluate(self, page: Any, js: str, arg: Any, what: str) -> Any:
        """Evaluate a read-only script once no navigation is under way and the document is
        parsed, in the same round trip as the look that finds the page so (`settled_read_js`);
        else wait for the page and look again. Any navigation: an action's, or the page's own
        (a timer, a meta refresh). A document still being parsed is not read: its text is
        what came so far (a page that reloads itself was read blank, and a text check failed
        on what it showed all along)."""
        from playwright.sync_api import Error as PlaywrightError

        read = settled_read_js(js)

        def look(settle: bool) -> tuple[bool, str, Any]:
            with self.errors(what):
                try:
                    return tuple(self.script(page, read, arg))    # type: ignore[return-value]
                except PlaywrightError as exc:    # the old document went away under the read
                    if not raced_navigation(exc):
                        raise
            return True, "loading", None

        while True:
            value = self._until_settled(page, look)
            if value is not _STAYED:
                return value


def _evaluated(page: Any, js: str, arg: Any, then: Callable[[Any], None] | None = None) -> Any:
    """page.evaluate (a device without its own way to run page scripts); ``then`` after it."""
    value = page.evaluate(js, arg)
    if then is not None:
        then(value)
    return value


# a wait for a load event looks this often whether the page's driver is still there
LOOK_GONE_S = 0.5


def load_state(page: Any, state: str, timeout_ms: float,
               until: Callable[[], bool] | None = None) -> None:
    """page.wait_for_load_state(``state``, timeout=``timeout_ms``) without its messages to
    Playwright's driver (three a call, its wait's log, even for an event that came long ago):
    the main frame's load events as Playwright's client keeps them (the driver sends each
    one, waited for or not), waited for on its event loop. Raises as that call does:
    Playwright's TimeoutError, or its Error once the page closed or crashed. Where the client
    keeps no such record (another Playwright), that call. ``until``: asked as it waits (every
    LOOK_GONE_S at least); once True, the wait ends there, with no error."""
    from playwright.sync_api import Error as PlaywrightError, TimeoutError as PlaywrightTimeout

    impl = getattr(page, "_impl_obj", None)
    frame = getattr(getattr(page, "main_frame", None), "_impl_obj", None)
    states, emitter = getattr(frame, "_load_states", None), getattr(frame, "_event_emitter", None)
    wake = loop_future(page)
    if not isinstance(states, set) or emitter is None or wake is None or impl is None:
        page.wait_for_load_state(state, timeout=timeout_ms)
        return
    limit, crashed = time.monotonic() + timeout_ms / 1000, []

    def woken(*_: Any) -> None:
        if not wake.done():
            wake.set_result(None)

    def crash(*_: Any) -> None:
        crashed.append(True)
        woken()
    emitter.on("loadstate", woken)
    impl.on("close", woken)
    impl.on("crash", crash)
    try:
        while state not in states:
            if until is not None and until():
                return
            if page.is_closed():     # (as Playwright says it; its own words where it can)
                closed = getattr(impl, "_close_error_with_reason", None)
                raise closed() if callable(closed) else PlaywrightError(
                    "Target page, context or browser has been closed")
            if crashed:
                raise PlaywrightError("Navigation failed because page crashed!")
            gone = getattr(getattr(impl, "_connection", None), "_closed_error", None)
            if gone is not None:        # the driver went away (a killed device)
                raise gone
            left = limit - time.monotonic()
            if left <= 0:
                raise PlaywrightTimeout(f"Timeout {timeout_ms:g}ms exceeded.")
            wait_on(page, wake, min(left, LOOK_GONE_S))
            if wake.done():
                wake = loop_future(page) or wake
    finally:
        emitter.remove_listener("loadstate", woken)
        impl.remove_listener("close", woken)
        impl.remove_listener("crash", crash)


def loop_future(page: Any) -> "asyncio.Future[None] | None":
    """A future of the event loop that serves ``page``, for `wait_on` (Playwright's sync API
    keeps that loop as ``_loop`` and runs it with ``_sync``), or None where there is none to
    wait on (the caller then polls)."""
    loop = getattr(page, "_loop", None)
    if getattr(page, "_sync", None) is None or not isinstance(loop, asyncio.AbstractEventLoop):
        return None
    return loop.create_future()


def wait_on(page: Any, future: "asyncio.Future[None]", seconds: float) -> None:
    """Run ``page``'s event loop (its events are served meanwhile) until ``future`` (from
    `loop_future`) is done or ``seconds`` pass; the caller then decides: done or too late."""
    page._sync(_until(future, seconds))


async def _until(ready: "asyncio.Future[None]", seconds: float) -> None:
    try:
        await asyncio.wait_for(asyncio.shield(ready), seconds)
    except asyncio.TimeoutError:
        pass
