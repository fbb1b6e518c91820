"""Screenshots of the browser device: the PNG a locator or the model looks at, and the JPEG a
report shows after a step (`PageCapture.evidence`), which Chromium encodes and which is taken
while farm goes on with the next step: the look that finds the page settled sends the capture
from Playwright's event loop as its answer comes, before this thread has it. An action that
must wait for the last image is woken the moment the JPEG is in (an asyncio future that loop
resolves), not by a timer and without a round trip. The same DevTools session carries farm's
own page scripts (`PageCapture.script`: DOM reads, the navigation wait, fill), cheaper than
page.evaluate."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from farm.devices.grabber import Later
from farm.devices.web.failures import lost
from farm.devices.web.page_wait import Errors, PageWait, load_state, loop_future, wait_on
from farm.errors import CaseTimeout, DeviceError, FarmError, StepFailed
from farm.text import first_line

log = logging.getLogger("farm.devices.browser")

EVIDENCE_QUALITY = 70        # JPEG quality of report screenshots, encoded by Chromium
CAPTURE_TIMEOUT = 10.0       # seconds an evidence capture may take
KILL_CHECK = 0.5             # seconds between looks at whether the device was killed, waiting
LOOK_S = 0.2                 # seconds between looks at a navigation, while a page script runs
# A report image taken again because its page navigated under it: at most RETAKES captures, each
# given up on (looked at every RETAKE_LOOK_S) once the page's document goes away under it too
RETAKES, RETAKE_LOOK_S = 5, 0.05
LOAD_WAIT_S = 1.5            # longest wait for the next document's load before a retake
PNG_TRIES_MS = (1500, 3000, 10000)   # time limits of the tries of a PNG screenshot
# what Chromium answers a capture asked for between two documents of the page
BETWEEN_DOCUMENTS = re.compile(r"Not attached to an active page|Unable to capture screenshot")


# an image not taken: the page is as the last one shows it (the report reuses that one)
_UNCHANGED = Later(lambda: None, lambda: True)

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
        self._frame: str | None = None                # the page's main frame (DevTools id)
        self._documents = 0                           # main-frame documents committed, ever
        # (page, document) whose load event a report image waited for in vain: its later
        # images do not wait again (the document: its performance.timeOrigin)
        self._unloaded: tuple[Any, str] | None = None
        self.waits: Counter[str] = Counter()          # how each wait for a capture ended
        # told (page, its DevTools session) as each page's session opens (file choosers
        # are watched on it: `farm.devices.web.chooser.watch_choosers`)
        self.opened: Callable[[Any, Any], None] | None = None
        # (actions on the page then, page, look): the look the last action's own script took
        # after its change (`told`), until anything else is asked of the page
        self._told: tuple[int, Any, Any] | None = None
        # the case's mask (the device's `hide`): a text of the page it changes shows a
        # secret, blacked out of each image (`_without_secrets`); None: images as taken
        self.hide: Callable[[str], str] | None = None
        self.hidden = 0           # regions of the page's text blacked out of images, ever

    def reset(self) -> None:
        """The session ended (or goes on in a shared context): the next image is new."""
        self._pending = []
        self._shown = None
        self._told = None

    def screenshot(self, page: Any) -> bytes:
        """PNG of the viewport, in CSS pixels (so it matches tap coordinates at any DPR)."""
        from playwright.sync_api import Error as PlaywrightError, TimeoutError as PlaywrightTimeout

        if self.wait.may_navigate:
            self.wait.settled(page)
        with self.errors("screenshot"):
            # While a navigation or redirect is under way a capture fails ("Unable to capture
            # screenshot", "Not attached to an active page") or stalls until Playwright's 30 s
            # timeout: wait for the document, keep each try short, and try again. A page whose
            # load event never comes (a resource its server holds) is captured as it is. A try
            # whose document went away under it (a page that reloads itself) does not count,
            # and the next one is short again: RETAKES of those, and the step fails.
            tries = navigated = 0
            while True:
                limit_ms = PNG_TRIES_MS[tries]
                documents = self._documents
                try:
                    try:
                        load_state(page, "load", limit_ms)
                    except PlaywrightTimeout:
                        pass
                    png = page.screenshot(type="png", scale="css", caret="initial",
                                          timeout=limit_ms)
                    return self._without_secrets(page, png)
                except PlaywrightError as exc:
                    if lost(exc) or self.killed():
                        raise
                    if self._documents != documents:      # again at once, briefly
                        tries, navigated = 0, navigated + 1
                        if navigated == RETAKES:
                            raise StepFailed(f"no screenshot: the page navigated under each "
                                             f"of {RETAKES} captures (does it reload itself?)"
                                             ) from exc
                        continue
                    tries += 1
                    if tries == len(PNG_TRIES_MS):
                        raise
                    page.wait_for_timeout(300)

    def evidence(self, page: Any, seen: str | None = None) -> Callable[[], bytes | None]:
        """Start an image of the viewport for the report, as it is once a navigation the step
        started is over, and return at once; calling the result gives the JPEG (encoded by
        Chromium, CSS pixels), or None when the page has not changed since the last image
        (nothing was captured). The capture runs while farm goes on with the next step; the
        next action waits for it first (`settle`), so the image never shows what that action
        did. ``seen``: the change token of the step's last read of the page, no action since
        (a check's): the same as the last image's, that image shows what the step read, and
        the page is not asked again."""
        if seen is not None and seen == self._shown:
            return _UNCHANGED
        look = self._settled_look(page)
        if look is not None:
            return self._evidence_now(page, look[2])
        with self.errors("screenshot"):
            cdp = self._session(page)
        shot = _Shot(None, ready=loop_future(page))
        self._pending.append(shot)     # the look that finds the page loaded starts it
        stalled = self.wait.stalled
        try:
            shot.token = token = self.wait.settled(page, then=lambda look: self._look(shot, look))
        except BaseException as exc:
            self._pending.remove(shot)
            # the case's end came first: this wait says so (the timeout's own image, taken
            # next, is of the page shown meanwhile)
            if not self.wait.stalled or isinstance(exc, CaseTimeout) and not stalled:
                raise
            # a navigation whose server does not answer: the page shown meanwhile (a capture
            # is answered then, where a script is not)
            with self.errors("screenshot"):
                data = self._without_secrets(page, self._jpeg(cdp))
            self._shown = None
            return Later(lambda: data, lambda: True)
        if not shot.started and token is not None and token == self._shown:
            self._pending.remove(shot)
            return _UNCHANGED
        if not shot.started:       # settled, not loaded (an image or font still coming)
            with self.errors("screenshot"):
                self._await_load(page, token)
                self._capture(shot)
                _flush(page)       # sent now, not at this thread's next call into Playwright
        self._shown = token
        return Later(lambda: self._finish(page, shot), lambda: shot.done, lambda: shot.took)

    def told(self, page: Any, look: Any) -> None:
        """The look the action under way took with its own page script, after its change
        (`farm.devices.web.scripts.looked`: [unloading?, readyState, change token, a form
        submitted?]): the report image after the action starts from it, with no look of its
        own, while nothing else is asked of the page (`_settled_look`)."""
        self._told = (self.wait.actions, page, look)

    def _settled_look(self, page: Any) -> Any:
        """The look `told` gave, when an image may start from it as from a look of its own:
        the last action's, nothing asked of the page since (a page script clears it), no
        main-frame load begun since that action began nor under way, no form submitted (its
        navigation comes in a task of its own: the evidence's look waits for it), the
        document not unloading and loaded. Else None: the evidence looks for itself."""
        told, self._told = self._told, None
        if told is None:
            return None
        actions, of, look = told
        wait = self.wait
        if (actions != wait.actions or of is not page or self._cdp is None
                or self._cdp[0] is not page or wait.loads_begun != wait.loads_at_action
                or wait.loading or wait.awaiting or not isinstance(look, list)
                or len(look) != 4):
            return None
        leaving, ready, _, submitted = look
        return None if leaving or submitted or ready != "complete" else look

    def _evidence_now(self, page: Any, token: str | None) -> Callable[[], bytes | None]:
        """`evidence` on a page the last action's own script found settled and loaded
        (`_settled_look`): its capture sent now (none when the page is as the last image
        shows it)."""
        self.wait.may_navigate = False      # (as the look that finds it so does)
        if token is not None and token == self._shown:
            return _UNCHANGED
        shot = _Shot(token, ready=loop_future(page))
        self._pending.append(shot)
        with self.errors("screenshot"):
            self._capture(shot)
            _flush(page)        # sent now, not at this thread's next call into Playwright
        self._shown = token
        return Later(lambda: self._finish(page, shot), lambda: shot.done, lambda: shot.took)

    def _look(self, shot: "_Shot", look: Any) -> None:
        """A look at the page (STATE_JS's answer, in Playwright's event loop as it comes) for
        ``shot``: once it finds the page loaded, settled and changed since the last image, the
        capture is sent at once, before this thread has the answer."""
        leaving, ready, token = look[0], look[1], look[2]
        if (not shot.started and not leaving and ready == "complete"
                and (token is None or token != self._shown)):
            self._capture(shot)

    def _await_load(self, page: Any, token: str | None) -> None:
        """The page's load event, at most 1.5 s, before an image: one taken during a
        navigation fails or stalls. A document whose load did not come then (an image, font
        or script its server holds) is captured as it is, and its later images do not wait
        again: each one cost its step 1.5 s, and a case of a dozen steps its timeout."""
        doc = token.partition(":")[0] if token else None
        if doc is not None and self._unloaded == (page, doc):
            return
        try:
            load_state(page, "load", 1500)
        except Exception as exc:   # still loading: capture what is there
            log.debug("%s: capturing before load: %s", self.device, first_line(exc))
            if doc is not None and "Timeout" in type(exc).__name__:
                self._unloaded = (page, doc)

    def _capture(self, shot: "_Shot") -> None:
        """Send ``shot``'s Page.captureScreenshot and return: its answer, in Playwright's event
        loop, completes the shot and wakes `_finish`; this thread goes on meanwhile (its next
        call into Playwright runs the loop). Where Playwright's sync API offers no event loop
        to run it on, it is taken here and now."""
        assert self._cdp is not None
        page, cdp = self._cdp
        shot.started, shot.navigations = True, self.wait.loads_begun
        began = time.monotonic()
        params = {"format": "jpeg", "quality": EVIDENCE_QUALITY, "optimizeForSpeed": True}
        try:
            if self.hide is not None:   # the page's text as the capture sees it (sent first)
                texts = _sent(cdp, page, "Runtime.evaluate", {
                    "expression": f"({SECRET_TEXTS_JS})()", "returnByValue": True})
                shot.texts = texts and asyncio.ensure_future(texts, loop=page._loop)
            reply = _sent(cdp, page, "Page.captureScreenshot", params)
            if reply is not None:
                task = asyncio.ensure_future(reply, loop=page._loop)
                task.add_done_callback(lambda done: self._answered(shot, began, done))
                return
            shot.data = base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])
        except Exception as exc:   # handed to whoever asks for the image
            shot.error = exc
        self._captured(shot, began)

    def _answered(self, shot: "_Shot", began: float, task: "asyncio.Future[Any]") -> None:
        if task.cancelled():
            error: BaseException | None = DeviceError("the capture was cancelled")
        else:
            error = task.exception()
        if shot.done:      # taken again meanwhile (`_retake`): this late answer changes nothing
            return
        if error is not None:
            shot.error = error
        else:
            shot.data = base64.b64decode(task.result()["data"])
        self._captured(shot, began)

    @staticmethod
    def _captured(shot: "_Shot", began: float) -> None:
        shot.done, shot.took = True, time.monotonic() - began
        if shot.ready is not None and not shot.ready.done():
            shot.ready.set_result(None)      # wakes `_finish`

    def _finish(self, page: Any, shot: "_Shot") -> bytes | None:
        """The image of ``shot``, once taken: this thread waits on an asyncio future that
        `_answered` resolves (Playwright's event loop runs meanwhile: no round trip, no
        poll), or polls where Playwright's sync API offers no such wait. A killed device ends
        the wait (DeviceLost)."""
        limit = time.monotonic() + CAPTURE_TIMEOUT
        ended = "done before"
        while not shot.done and shot.error is None:     # (an error: waited for already)
            now = time.monotonic()
            if now > limit:
                shot.error = DeviceError(f"no screenshot after {CAPTURE_TIMEOUT:g}s")
                break
            if self._lost_to_navigation(shot):
                ended = "taken again"
                self._retake(shot, limit)
                break
            with self.errors("screenshot"):   # raises DeviceLost once the device is killed
                if shot.started and shot.navigations != self.wait.loads_begun:
                    ended = "navigated"
                    self.wait.pause(page)     # until the page's next load event (it loads)
                elif shot.ready is not None:
                    ended = "woken"
                    wait_on(page, shot.ready, min(limit - now, KILL_CHECK))
                else:
                    ended = "polled"
                    page.wait_for_timeout(5)   # a driver round trip: its events are served
        if self._refused(shot) and self._cdp is not None:   # refused between documents
            ended = "taken again"
            self._retake(shot, limit)
        self.waits[ended] += 1
        first = shot in self._pending       # (not told again when asked again)
        if first:
            self._pending.remove(shot)
        if first and shot.error is None and shot.data is not None:
            shot.data = self._without_secrets(page, shot.data, shot.texts)
        if shot.error is not None:
            if self._shown == shot.token:
                self._shown = None       # the next image is taken even if unchanged
            if first:
                log.info("%s: a report image left out: %s", self.device, first_line(shot.error))
            with self.errors("screenshot"):
                raise shot.error
        return shot.data

    def _lost_to_navigation(self, shot: "_Shot") -> bool:
        """Whether the page navigated under ``shot``'s capture and is loaded again: Chromium
        never answers a Page.captureScreenshot whose document went away (a step's script
        that set location.href, a redirect), so waiting for it would only run out."""
        return (shot.started and not shot.done and shot.navigations != self.wait.loads_begun
                and not self.wait.loading and self._cdp is not None)

    @staticmethod
    def _refused(shot: "_Shot") -> bool:
        """Whether Chromium refused ``shot``'s capture as the page was between documents."""
        return _between_documents_error(shot.error)

    def _retake(self, shot: "_Shot", limit: float) -> None:
        """Capture ``shot`` again, on the page the navigation loaded: the step's after image
        (the first capture's late answer, should one come, changes nothing). Within ``limit``
        (`_steady_jpeg`): a page that reloads itself every few hundred ms held the step here
        until the case timed out."""
        began = time.monotonic()
        shot.error = None
        try:
            shot.data = self._steady_jpeg(limit)
            shot.texts = None       # (the first capture's look is of the page it missed)
        except FarmError as exc:
            shot.error = exc
        shot.done, shot.took = True, time.monotonic() - began

    def _steady_jpeg(self, limit: float) -> bytes:
        """A JPEG of the page (`_jpeg`) that no navigation can hold up: a capture whose
        document goes away under it (Chromium never answers that one) or that came between
        two documents (refused) is given up on and taken again once the page has loaded (at
        most LOAD_WAIT_S), at most RETAKES times and until ``limit``; then DeviceError saying
        the page kept navigating (the step has no image, and farm.log says why)."""
        assert self._cdp is not None
        page, cdp = self._cdp
        for attempt in range(RETAKES):
            if attempt:
                self._loaded(page, min(limit, time.monotonic() + LOAD_WAIT_S))
            documents = self._documents
            with self.errors("screenshot"):
                data = self._between_documents(lambda: self._jpeg(
                    cdp, page, lambda: self._documents != documents or time.monotonic() > limit))
            if data is not None:
                return data
            if time.monotonic() > limit:
                break
        raise DeviceError(f"the page navigated under each of {RETAKES} captures "
                          "(does it reload itself?)")

    def _loaded(self, page: Any, until: float) -> None:
        """Wait while the page loads (its load events end each pause), at most ``until``."""
        while self.wait.loading and time.monotonic() < until:
            with self.errors("screenshot"):
                self.wait.pause(page)

    @staticmethod
    def _between_documents(capture: Callable[[], bytes | None]) -> bytes | None:
        """``capture()``, or None when Chromium refused it as the page was between two
        documents ("Not attached to an active page", "Unable to capture screenshot")."""
        try:
            return capture()
        except Exception as exc:
            if not _between_documents_error(exc):
                raise
            return None

    def _jpeg(self, cdp: Any, page: Any = None,
              gone: Callable[[], bool] | None = None) -> Any:
        """One Page.captureScreenshot over the page's own DevTools session: Chromium encodes
        the JPEG, and none of the round trips Playwright's page.screenshot adds (its page
        preparation in every frame, fonts, layout metrics, clean-up) are paid.

        No clip, nor anything else that changes what is captured: Chromium applies such a
        capture as a device emulation of the session that asks for it, and afterwards puts
        back that session's own emulation (here: none), which undoes Playwright's
        (deviceScaleFactor, viewport) on its own session: the page went on at scale 1.
        Unclipped, the image is the viewport as the window shows it, in the window's pixels:
        CSS pixels, as headless Chromium has no scale of its own (device pixels under a
        ``--force-device-scale-factor`` in chromeArgs).

        With ``page`` and ``gone``: None once ``gone()`` turns true before the answer (its
        document went away: the answer would never come)."""
        params = {"format": "jpeg", "quality": EVIDENCE_QUALITY, "optimizeForSpeed": True}
        reply = _sent(cdp, page, "Page.captureScreenshot", params) if gone else None
        if reply is None:
            return base64.b64decode(cdp.send("Page.captureScreenshot", params)["data"])
        answer = page._sync(_answer(reply, gone, RETAKE_LOOK_S))
        return None if answer is _GONE else base64.b64decode(answer["data"])

    def script(self, page: Any, js: str, arg: Any,
               then: Callable[[Any], None] | None = None,
               until: Callable[[], bool] | None = None) -> Any:
        """Call farm's own page script ``js`` (a function expression of one argument; JSON in
        and out) with ``arg`` in ``page``'s main world, as page.evaluate would: over the page's
        DevTools session when it has one (Runtime.evaluate: about half of page.evaluate's round
        trip and 60% of its Python CPU, measured), else through page.evaluate. Raises
        Playwright's Error as page.evaluate does (a navigation that takes the document away
        included). ``then`` is called with the value as the answer comes, in Playwright's
        event loop (where there is none: before this returns). ``until`` ends the wait for
        the answer as a navigation does once it turns true (a tab the device is to follow
        opened meanwhile: the call then raises as for a navigation)."""
        self._told = None       # (the page may change meanwhile: an action's look is old)
        if self._cdp is None or self._cdp[0] is not page:
            value = page.evaluate(js, arg)
            if then is not None:
                then(value)
            return value
        params = {"expression": f"({js})({json.dumps(arg)})", "awaitPromise": True,
                  "returnByValue": True}
        reply = _sent(self._cdp[1], page, "Runtime.evaluate", params)
        if reply is None:
            value = _value(self._cdp[1].send("Runtime.evaluate", params))
            if then is not None:
                then(value)
            return value
        return page._sync(_valued(_unless(reply, lambda: self.wait.awaiting or bool(
            until is not None and until())), then))

    def attach(self, page: Any) -> None:
        """A page has started loading: open its DevTools session now, its round trips
        overlapping the load, not later in the case's first step."""
        if self._cdp is None or self._cdp[0] is not page:
            with self.errors("screenshot"):
                self._session(page)

    def devtools(self, page: Any) -> Any:
        """``page``'s DevTools session (opened now if need be): what a `javascript` step's
        Python-side timeout stops a script still running over (Runtime.terminateExecution)."""
        with self.errors("javascript"):
            return self._session(page)

    def _session(self, page: Any) -> Any:
        """The page's DevTools session, opened on first use. It tells `PageWait` when the main
        frame loads (a navigation in flight: Page events, a few a navigation, where
        Playwright's request events would be several a request) and when its document is
        parsed (which ends a wait for it). Runtime is not enabled on it: that would send this
        process every console call of the page (5,000 console.log lines: 0.4 s of farm's CPU)
        and every execution context."""
        if self._cdp is None or self._cdp[0] is not page:
            cdp = page.context.new_cdp_session(page)
            self._cdp, self.wait.loading = (page, cdp), False
            self.wait.arrived()      # (what the last page awaited is not this one's)
            cdp.on("Page.frameStartedLoading", lambda event: self._on_loading(event, True))
            cdp.on("Page.frameStoppedLoading", lambda event: self._on_loading(event, False))
            cdp.on("Page.domContentEventFired", lambda event: self.wait.progressed())
            cdp.on("Page.frameNavigated", self._on_navigated)
            cdp.on("Page.frameRequestedNavigation", self._on_requested)
            # sent together, the file chooser watch's call after them: a renderer busy with
            # the document it loads answers them in one go, not a wait each
            enabled, tree = _sent_at_once(cdp, page, [("Page.enable", None),
                                                      ("Page.getFrameTree", None)])
            if self.opened is not None:
                self.opened(page, cdp)
            enabled()
            self._frame = tree()["frameTree"]["frame"]["id"]
        return self._cdp[1]

    def _on_navigated(self, event: dict[str, Any]) -> None:
        """The main frame has a new document: its loads are new."""
        if event.get("frame", {}).get("id") != self._frame:
            return
        self._documents += 1
        self.wait.arrived()

    def _on_requested(self, event: dict[str, Any]) -> None:
        """The page asked for a navigation of its main frame (a link, a script): where to."""
        if event.get("frameId") == self._frame and isinstance(event.get("url"), str):
            from farm.config import mask_url     # (a user:password@ is no one's to read)
            self.wait.requested(mask_url(event["url"]))

    def _on_loading(self, event: dict[str, Any], loading: bool) -> None:
        if event.get("frameId") == self._frame:
            self.wait.main_frame(loading)

    def _without_secrets(self, page: Any, image: bytes, texts: Any = None) -> bytes:
        """``image`` with each box of the page's text that holds a secret blacked out (`hide`
        finds it, in any form the text masking knows): a secret the page shows stays out of
        the report and the model's prompt. ``texts``: SECRET_TEXTS_JS's answer sent with the
        capture (else the page is read now). A page whose text cannot be read keeps its image
        as taken (said in farm.log); text drawn on a canvas or in an image is not text."""
        hide = self.hide
        if hide is None:
            return image
        try:
            looked = _value(_answered_now(page, texts)) if texts is not None else None
            if looked is None:
                looked = self._evaluate(page, SECRET_TEXTS_JS, None)
            spans = secret_spans(looked[0], hide)
            fields = secret_fields(looked[1], hide)
            if not spans and not fields:
                return image
            width, boxes = self._evaluate(page, SECRET_BOXES_JS, [spans, fields])
        except Exception as exc:    # the page went away: its image is kept as it is
            log.warning("%s: the page's text was not read (%s): a secret it shows is not "
                        "hidden in its screenshot", self.device, first_line(exc))
            return image
        from farm.agent.images import blacked_out, png_size
        scale = png_size(image)[0] / width if width else 1.0
        self.hidden += len(boxes)
        log.info("%s: %d region(s) of the page's text holding a secret blacked out of a "
                 "screenshot", self.device, len(boxes))
        return blacked_out(image, boxes, scale, EVIDENCE_QUALITY)

    def _evaluate(self, page: Any, js: str, arg: Any) -> Any:
        """farm's page script ``js`` called with ``arg`` now, over the page's DevTools
        session when it has one (`script` without its side effects)."""
        if self._cdp is None or self._cdp[0] is not page:
            return page.evaluate(js, arg)
        return _value(self._cdp[1].send("Runtime.evaluate", {
            "expression": f"({js})({json.dumps(arg)})", "returnByValue": True}))

    def settle(self) -> None:
        """Before an action: let captures still under way finish (their images are kept)."""
        while self._pending and self._cdp is not None:
            try:
                self._finish(self._cdp[0], self._pending[0])
            except FarmError as exc:   # evidence is best effort; the runner sees the failure
                log.debug("%s: capture failed: %s", self.device, exc)


_GONE = object()     # `_answer`: the call was given up on


def _between_documents_error(exc: BaseException | None) -> bool:
    """Whether ``exc`` is Chromium refusing a capture as the page was between two documents
    ("Not attached to an active page", "Unable to capture screenshot")."""
    from playwright.sync_api import Error as PlaywrightError
    return isinstance(exc, PlaywrightError) and BETWEEN_DOCUMENTS.search(str(exc)) is not None


def _loop_of(cdp: Any, page: Any) -> bool:
    """Whether a call over ``cdp`` can be sent on ``page``'s event loop without waiting
    (Playwright's sync API, its client's own objects at hand)."""
    return (getattr(cdp, "_impl_obj", None) is not None and page is not None
            and getattr(page, "_sync", None) is not None)


def _sent(cdp: Any, page: Any, method: str, params: dict[str, Any] | None) -> Any:
    """``method`` sent over ``cdp`` without waiting: its answer to await (Playwright's own
    coroutine), or None where Playwright's sync API offers none (the caller then sends it
    as usual)."""
    if not _loop_of(cdp, page):
        return None
    impl = cdp._impl_obj
    try:
        return impl.send(method, params, None)    # (newer Playwright: a timeout)
    except TypeError:
        return impl.send(method, params)


async def _answer(reply: Any, gone: Callable[[], bool], look: float) -> Any:
    """``reply`` (a DevTools call), or _GONE once ``gone()`` turns true first (looked at
    every ``look`` s; the call's late answer is dropped)."""
    task = asyncio.ensure_future(reply)
    while True:
        done, _ = await asyncio.wait({task}, timeout=look)
        if done:
            return task.result()
        if gone():
            task.add_done_callback(_drop)
            return _GONE


def _value(reply: dict[str, Any]) -> Any:
    """A Runtime.evaluate's value; the script's exception as Playwright's Error (as
    page.evaluate raises it)."""
    failed = reply.get("exceptionDetails")
    if failed:
        from playwright.sync_api import Error as PlaywrightError

        thrown = (failed.get("exception") or {}).get("description") or failed.get("text")
        raise PlaywrightError(f"page script failed: {thrown}")
    return reply.get("result", {}).get("value")


async def _valued(reply: Any, then: Callable[[Any], None] | None) -> Any:
    """The value of the Runtime.evaluate ``reply``, given to ``then`` first (in the loop)."""
    value = _value(await reply)
    if then is not None:
        then(value)
    return value


async def _unless(reply: Any, navigating: Callable[[], bool]) -> Any:
    """``reply`` (a DevTools call), unless ``navigating()`` turns true first (looked at every
    LOOK_S): then Playwright's Error saying so (the call's late answer is dropped)."""
    from playwright.sync_api import Error as PlaywrightError

    answer = await _answer(reply, navigating, LOOK_S)
    if answer is _GONE:
        raise PlaywrightError("navigating: the page's next document has not come")
    return answer


def _answered_now(page: Any, task: "asyncio.Future[Any]") -> Any:
    """The answer of ``task`` (a call sent on ``page``'s event loop), waited for if need be."""
    if not task.done():
        async def answer() -> Any:
            return await task
        return page._sync(answer())
    return task.result()


def _sent_at_once(cdp: Any, page: Any, calls: list[tuple[str, dict[str, Any] | None]]
                  ) -> list[Callable[[], Any]]:
    """``calls`` ((method, params)) sent over ``cdp`` now, without waiting for any answer;
    calling one of the results gives that call's answer (waited for if need be) or raises its
    error. Where Playwright's sync API offers no event loop, each is sent and answered here."""
    if not _loop_of(cdp, page):
        answers = [cdp.send(method, params) for method, params in calls]
        return [lambda answer=answer: answer for answer in answers]
    tasks = [asyncio.ensure_future(_sent(cdp, page, method, params), loop=page._loop)
             for method, params in calls]
    for task in tasks:
        task.add_done_callback(_drop)       # (an error no one asks for is not reported)
    _flush(page)
    return [lambda task=task: _answered_now(page, task) for task in tasks]


def _flush(page: Any) -> None:
    """Let ``page``'s event loop (Playwright's sync API) run what is scheduled on it now:
    no message, a switch to the loop and back."""
    if getattr(page, "_sync", None) is not None:
        page._sync(asyncio.sleep(0))


def _drop(task: "asyncio.Future[Any]") -> None:
    if not task.cancelled():
        task.exception()        # seen: asyncio says nothing of it at exit


@dataclass
class _Shot:
    """One evidence capture: started (its Page.captureScreenshot sent) by the look that finds
    the page settled, done when its JPEG (or error) is in; ``ready`` (a future of Playwright's
    event loop) is resolved then."""

    token: str | None
    ready: "asyncio.Future[None] | None" = None
    took: float | None = None           # seconds the capture itself took (not the wait for
                                        # its start: a step's sleep, the page settling)
    started: bool = False
    navigations: int = 0                # main-frame loads begun before its capture started
    done: bool = False
    data: bytes | None = None
    error: BaseException | None = None
    # the page's text read just before its capture (SECRET_TEXTS_JS's answer to come)
    texts: "asyncio.Future[Any] | None" = None


# -- secrets the page shows, blacked out of its images ----------------------------------------
# Two page scripts, neither given a secret: the first returns the page's text (each non-blank
# text node under the body, in document order, and each field's value, '' for a field drawn
# as discs), which farm masks as it masks any text (`hide`); the second, given only where the
# texts that changed are (node index, UTF-16 offsets) and which fields, returns their boxes.
SECRET_TEXTS_JS = """() => {
  const texts = [], values = [], root = document.body || document.documentElement;
  if (!root) return [texts, values];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) if (n.nodeValue.trim()) texts.push(n.nodeValue);
  for (const f of root.querySelectorAll('input, textarea')) {
    const discs = f.type === 'password' || (getComputedStyle(f).webkitTextSecurity || 'none') !== 'none';
    values.push(discs || typeof f.value !== 'string' ? '' : f.value);
  }
  return [texts, values];
}"""
SECRET_BOXES_JS = """([spans, fields]) => {
  const boxes = [], root = document.body || document.documentElement;
  if (!root) return [innerWidth, boxes];
  const want = new Map(spans.map(s => [s[0], s])), range = document.createRange();
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let i = 0;
  for (let n = walk.nextNode(); n && want.size; n = walk.nextNode()) {
    if (!n.nodeValue.trim()) continue;
    const s = want.get(i++);
    if (!s) continue;
    want.delete(i - 1);
    const same = n.nodeValue.length === s[3];     // (else the node changed: all of it)
    range.setStart(n, same ? s[1] : 0);
    range.setEnd(n, same ? s[2] : n.nodeValue.length);
    for (const b of range.getClientRects()) if (b.width && b.height) boxes.push([b.left, b.top, b.width, b.height]);
  }
  const all = root.querySelectorAll('input, textarea');
  for (const k of fields) {
    const b = all[k] && all[k].getBoundingClientRect();
    if (b && b.width && b.height) boxes.push([b.left, b.top, b.width, b.height]);
  }
  return [innerWidth, boxes];
}"""


def _utf16(text: str) -> int:
    """``text``'s length as a page's script counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def secret_spans(texts: list[str], hide: Callable[[str], str]) -> list[list[int]]:
    """Where the page's text nodes ``texts`` hold a secret, as ``hide`` (the case's mask)
    finds it in any of its forms: [node index, start, end, node length] (UTF-16 offsets), from
    the first secret character of the node to its last. One pass over the whole text first:
    a page that shows no secret costs one mask of its text."""
    joined = "\n".join(texts)
    if not texts or hide(joined) == joined:
        return []
    spans = []
    for i, text in enumerate(texts):
        masked = hide(text)
        if masked == text:
            continue
        start = 0
        while start < min(len(text), len(masked)) and text[start] == masked[start]:
            start += 1
        tail = 0
        while (tail < min(len(text), len(masked)) - start
               and text[-1 - tail] == masked[-1 - tail]):
            tail += 1
        end = len(text) - tail
        if end <= start:
            start, end = 0, len(text)
        spans.append([i, _utf16(text[:start]), _utf16(text[:end]), _utf16(text)])
    return spans


def secret_fields(values: list[str], hide: Callable[[str], str]) -> list[int]:
    """The fields (indexes) whose shown value holds a secret."""
    return [i for i, value in enumerate(values) if value and hide(value) != value]
