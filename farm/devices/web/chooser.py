"""aiTap with fileChooserAccept: a tap that must open the page's file chooser, answered with
the step's files.

Chromium is asked directly (a DevTools session of the page's own): intercept file choosers
(`Page.setInterceptFileChooserDialog`), tap, wait for `Page.fileChooserOpened`, set the files
on the input it names (`DOM.setFileInputFiles`, which fires its input and change events).
Playwright's ``expect_file_chooser`` answered only about 95 of 100 choosers of a fresh page
here (its handler drops a chooser whose element it cannot adopt into its utility world, with
no error), and its request to intercept goes out without waiting for an answer, so a first tap
raced it (65 of 100 missed before that was waited for). 0 of 100 missed this way.

Every page of a case's context has its choosers intercepted from its start (`watch_choosers`):
one opened by a tap without fileChooserAccept (or by the model's tap in an ai step) is
answered as a headless Chromium answers it, with no file and the input's cancel event, and
said (`NOT_CHOSEN`): a later failure names it, where before the upload step passed having
uploaded nothing, unsaid. Nothing is waited for: a tap that opens no chooser costs what it did.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from farm.errors import StepFailed

log = logging.getLogger("farm.devices.web.chooser")
NOT_CHOSEN = ("the page opened a file chooser and farm chose no file in it, so nothing was "
              "uploaded; `fileChooserAccept: <path>` on the aiTap that opens it chooses one")
# (the chooser answered as Chromium answers one its user closed: files kept, a cancel event)
CANCEL_JS = "function () { this.dispatchEvent(new Event('cancel', {bubbles: true})); }"

POLL_S = 0.05     # (a Playwright without the internals to wait on an event: how often to look)
# Chromium opens a file chooser only within 5 s of the user's tap (its transient activation;
# "File chooser dialog can only be shown with a user activation" after that): a tap whose
# chooser has not opened by then opens none. The rest is room for a busy machine's events.
ACTIVATION_S = 5.0
CHOOSER_WAIT_S = 10.0


def tap_choosing_files(page: Any, x: int, y: int, files: list[str], timeout_s: float) -> None:
    """Click ``page`` (Playwright's sync Page) at (x, y), which must open a file chooser within
    ``timeout_s`` (at most CHOOSER_WAIT_S: none opens later), and give it ``files`` (absolute
    paths). StepFailed when no chooser opens, or when several files go to a chooser for one."""
    timeout_s = min(timeout_s, CHOOSER_WAIT_S)
    watch = _watch_of(page)
    own = watch is None or watch.session is None
    session = page.context.new_cdp_session(page) if own else watch.session
    opened: list[dict] = []
    future = _future(page)

    def take(event: dict) -> None:
        opened.append(event)
        if future is not None and not future.done():
            future.set_result(None)
    try:
        if own:
            session.send("Page.enable")
            session.send("Page.setInterceptFileChooserDialog", {"enabled": True})
            session.on("Page.fileChooserOpened", take)
        else:
            watch.taking = take
        page.mouse.click(x, y)
        _wait_for(page, future, opened, timeout_s)
        if not opened:
            raise StepFailed(not_opened(timeout_s))
        chooser = opened[0]
        if chooser.get("mode") == "selectSingle" and len(files) > 1:
            raise StepFailed(f"the tap opened a chooser for one file; fileChooserAccept gives "
                             f"{len(files)}")
        session.send("DOM.setFileInputFiles",
                     {"files": files, "backendNodeId": chooser["backendNodeId"]})
    finally:
        if own:
            _quietly(session.detach)
        else:
            watch.taking = None


def not_opened(waited_s: float) -> str:
    """A fileChooserAccept tap's failure after ``waited_s``: the wait it made, and, when that
    was the whole CHOOSER_WAIT_S, why no longer (Chromium's ACTIVATION_S; the rest of the wait
    is for a busy machine's events)."""
    why = (f"; a page can open one only in the first {ACTIVATION_S:g} s after a tap, and "
           f"farm waited {waited_s - ACTIVATION_S:g} s more for a busy machine"
           if waited_s >= CHOOSER_WAIT_S else "")
    return f"the tap opened no file chooser within {waited_s:g} s (fileChooserAccept{why})"


class ChooserWatch:
    """A page's file choosers, intercepted on a DevTools session of its own: each goes to
    ``taking`` while a fileChooserAccept tap waits for one, else is answered with no file
    (`NOT_CHOSEN`, told to ``noted``)."""

    def __init__(self, noted: Callable[[str], None]) -> None:
        self.noted = noted
        self.session: Any = None       # (None until it intercepts)
        self.taking: Callable[[dict], None] | None = None

    def start(self, session: Any) -> None:
        """Intercept on ``session``, the page's DevTools session farm reads it through (its
        Page domain enabled: a session of the watch's own, with its Page events, cost each
        case 3 messages more and 28 more events, all through Python)."""
        session.on("Page.fileChooserOpened", self._opened)
        session.send("Page.setInterceptFileChooserDialog", {"enabled": True})
        self.session = session

    def _opened(self, event: dict) -> None:
        if self.taking is not None:
            self.taking(event)
            return
        self.noted(NOT_CHOSEN)
        log.warning("%s", NOT_CHOSEN)
        try:
            node = self.session.send("DOM.resolveNode", {"backendNodeId": event["backendNodeId"]})
            self.session.send("Runtime.callFunctionOn", {
                "objectId": node["object"]["objectId"], "functionDeclaration": CANCEL_JS})
        except Exception as exc:     # the page went away meanwhile
            log.debug("file chooser not cancelled: %s", exc)


# A page's watch is kept on the page itself (a cycle the collector frees with the page): in a
# module-level WeakKeyDictionary the watch (through its DevTools session) held its page, so no
# entry ever went, and each browser killed mid-run (its driver sends no close) stayed in
# memory whole for the rest of the run.
_ATTR = "_farm_chooser_watch"


def _watch_of(page: Any) -> "ChooserWatch | None":
    return getattr(page, _ATTR, None)


def watch_choosers(page: Any, session: Any, noted: Callable[[str], None]) -> None:
    """Intercept the file choosers ``page`` opens from now on (`ChooserWatch`), on its
    DevTools ``session`` (its Page domain enabled); what a chooser no fileChooserAccept tap
    took is said to ``noted``. A page closed meanwhile is left alone."""
    if _watch_of(page) is not None:
        return
    watch = ChooserWatch(noted)
    setattr(page, _ATTR, watch)
    try:
        watch.start(session)
    except Exception as exc:      # (closed at once: a popup a script shut)
        log.debug("file choosers not watched: %s", exc)


def _future(page: Any) -> Any:
    """A future of Playwright's event loop (where the event's listener runs) to wait on; None
    when this Playwright has no loop to wait on."""
    loop = getattr(getattr(page, "_impl_obj", None), "_loop", None)
    return loop.create_future() if loop is not None and hasattr(page, "_sync") else None


def _wait_for(page: Any, future: Any, opened: list, timeout_s: float) -> None:
    """Until a chooser opened (``future`` done, ``opened`` not empty) or ``timeout_s``
    passed, serving Playwright's events meanwhile."""
    if future is not None:
        try:
            page._sync(asyncio.wait_for(future, timeout_s))
        except asyncio.TimeoutError:
            pass
        return
    end = time.monotonic() + timeout_s
    while not opened and time.monotonic() < end:
        page.wait_for_timeout(POLL_S * 1000)


def _quietly(call: Any) -> None:
    try:
        call()
    except Exception:      # (the page or browser is gone: nothing to detach)
        pass
