"""BrowserDevice: one device slot = one Chromium process driven by Playwright's sync API.

Threading: every method except `kill` (and `healthy`, which degrades to a process check) runs
on the thread that called `open` -- Playwright's sync API is bound to that thread.  `kill` only
uses psutil, so a watchdog or Ctrl-C handler can call it while the device thread is blocked in
a Playwright call; that call then fails and surfaces as DeviceLost. It kills the device's
Playwright driver with its Chromium: a page Chromium was still setting up when it died is never
settled by the driver (new_page() would wait for ever), while a call whose driver is gone fails.

The device's parts are in farm/devices/web/: the page scripts, the error mapping, the case's
context, the wait for a navigation, the DOM read, the screenshots and the javascript step.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator
from urllib.parse import quote

import psutil

from farm.devices.base import Rect, UINode, UITree
from farm.devices.chromium import BROWSER_FLAGS, ChromiumInfo, driver_end_seen, find_chromium
from farm.devices.keys import normalize_key
from farm.devices.procs import alive, find_marked_process, kill_tree
from farm.devices.web import frames, javascript
from farm.devices.web.capture import PageCapture
from farm.devices.web.context import (cookie_notes, new_context, reuse_context,
                                      without_credentials)
from farm.devices.web.dom_read import DomReader
from farm.devices.web.failures import mapped_errors, unreachable_site
from farm.devices.web.hang import HangGuard
from farm.devices.web.new_tabs import TabsOpening
from farm.devices.web.page_wait import PageWait, load_state
from farm.devices.web.scripts import (AWAIT_CHANGE_JS, AWAIT_NOW_JS, AWAIT_SCROLLED_JS,
                                      BROWSER_KEY_JS, BROWSER_KEYS, FILL_AT_JS, FOCUS_AT_JS,
                                      FOCUSED_FILL_JS, INTO_VIEW_JS,
                                      KEY_WATCH_JS, MAX_NODES, SCROLL_END_JS, SCROLL_JS,
                                      SCROLL_WATCH_JS, VEIL_JS, VEIL_WATCH_JS, WHEEL_JS,
                                      looked, veiled)
from farm.errors import (CaseTimeout, ConfigError, DeviceError, DeviceLost, FarmError,
                         StepFailed)
from farm.text import first_line, unmasked

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings
    from farm.suite.model import WebTarget

log = logging.getLogger(__name__)

__all__ = ["BrowserDevice", "MAX_NODES"]

# How long opening a page waits for its load event once its document is parsed: a resource
# that never comes (an image whose server holds the request) must not fail the case.
LOAD_GRACE_S = 10.0
# A wheel that scrolls nothing (the end of the page) is done once no scroll came for this long
SCROLL_QUIET_MS = 100
# An aiInput naming no option of a select lists this many of its options
MAX_OPTIONS_SHOWN = 15
# A wait for a change on a page with frames of another origin asks them this often (a round
# trip a frame: their changes move no counter of the page's)
FRAME_LOOK_MS = 100


def _action(method: Callable[..., Any]) -> Callable[..., Any]:
    """An action on the page. After it, when the case has ``waitForNetworkIdle``, wait (up to
    its timeout, then go on) until the page's requests are done, as Midscene does after every
    action, a model-planned one too."""
    @functools.wraps(method)
    def act(self: "BrowserDevice", *args: Any, **kwargs: Any) -> Any:
        try:
            out = method(self, *args, **kwargs)
        finally:
            self._aim = None        # (checked for the tap that follows its check alone)
            if method.__name__ != "tap":    # (where the last action tapped, for a fill)
                self._tapped = None
        if self._idle_ms and self._page is not None:
            self._wait.network_idle(self._page, self._idle_ms)
        return out
    return act



# A device's ``hide`` until a runner gives it the case's mask, and the mask a run with no
# secret gives it: no image is scanned for one (`farm.devices.web.capture.PageCapture.hide`)
_unmasked = unmasked

class BrowserDevice:
    """A Chromium browser slot implementing the `farm.devices.base.Device` protocol."""

    platform = "web"

    def __init__(self, name: str, settings: "Settings", chromium: ChromiumInfo | None = None):
        self.name = name
        self.settings = settings
        self.chromium = chromium
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._page: Any = None
        self._viewport = (1280, 800)
        self._thread: int | None = None
        self._pid: int | None = None
        self._driver: psutil.Process | None = None    # the Playwright driver of this device
        # (node, x, y) `tap_point` found reached, for the tap that follows (`_aimed_tap`)
        self._aim: tuple[int, int, int] | None = None
        self._tapped: tuple[int, int] | None = None   # the last action's tap: what a fill hit
        # (x, y, its frame) `wheel_point` aimed a scroll at in a frame of another origin
        self._wheel: tuple[int, int, frames.FrameRoute] | None = None
        self.scrolled_to_end: bool | None = None      # (`scroll`)
        self._killed = False
        self._crashed = False
        self.about = ""                               # "Chromium 156.0… (binary)", once open
        # the case's secrets hidden (its runner sets it): a URL's own masking (`mask_url`)
        # cuts a query value at an "&", which a secret may hold: hidden first
        self.hide: Callable[[str], str] = _unmasked
        self._veiled = False                          # a field drew a secret as discs (`_veil`)
        self.open_seconds: float | None = None        # how long the last open() took
        self.hierarchy_seconds: float | None = None   # how long the last hierarchy() took
        self.last_observation: str | None = None      # "tree" once a step read the DOM
        # a page that stopped responding (a script that does not return): closed, the call
        # on it failed (the case's failure), the browser kept
        self._hang = HangGuard(name, self._page_answers, self._close_hung_page, self.kill)
        self._wait = PageWait(self._errors)
        self._dom = DomReader(self._wait, name)
        self._shots = PageCapture(name, self._errors, self._wait, lambda: self._killed)
        self._wait.script = self._shots.script    # page reads over its DevTools session
        self._shots.opened = self._session_opened
        self._tabs = TabsOpening(name)      # tabs the page opened, Playwright not yet told of
        self._downloads = [0, 0]          # downloads the case's pages began, by its last action
        self._chrome_args: tuple[str, ...] = ()       # a case's chromeArgs Chromium runs with
        self._follow_new_pages = True
        # the target's answer to dialogs, and what each dialog of the case was answered
        self._dialogs: tuple[str, list[str]] = ("dismiss", [])
        self._thrown: list[str] = []      # the case's uncaught page errors (failure_note)
        self._cut: list[str] = []         # the case's fills a maxlength cut (failure_note)
        self._step_said: list[str] = []   # … of the step under way, its notes (step_notes)
        self._went: list[str] = []        # the case's page's navigations (failure_note)
        self._stepped = False             # farm acted on the page since its last read
        self._address = ""                # the URL of the document the case's page shows
        # how many of the case's notes (dialogs, errors, cuts) came before the step before
        # this one, and before this one: a failure names those of the two steps only
        self._marks: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self._opened: Any = None                      # a new tab to follow (autoFollowNewPage)
        # the case's new tabs not followed, and the target's mode (failure_note says so)
        self._unfollowed: tuple[str, list[Any]] = ("page", [])
        self._idle_ms: int | None = None              # waitForNetworkIdle.timeout of the session
        # (origin, user) the context sends the target URL's basic auth credentials to
        self._signed_in: tuple[str, str] | None = None
        # a url being opened whose server has not answered: the page has no document, and
        # a capture of it is answered only once one comes (it held a timed-out case 20 s)
        self._unanswered_open: str | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def marker(self) -> str:
        """Command-line switch that identifies this device's Chromium among our children."""
        return f"--farm-device={self.name}"

    @property
    def deadline(self) -> float | None:
        """The case's end (monotonic seconds), set by the slot that runs it: the page's waits
        for its server end there, saying what the page was waiting for (before, a silent
        server held them past it until the watchdog killed the browser as "crashed")."""
        return self._wait.deadline

    @deadline.setter
    def deadline(self, value: float | None) -> None:
        self._wait.deadline, self._wait.cut_short = value, None

    @property
    def cut_short(self) -> str | None:
        """What a wait of the page that the case's end cut short was waiting for (the
        timeout of a case whose report image waited for it says so)."""
        return self._wait.cut_short

    @property
    def browser_pid(self) -> int | None:
        """PID of this device's Chromium main process (None before open)."""
        return self._pid

    def open(self) -> None:
        """Start Playwright and launch this slot's Chromium."""
        from playwright.sync_api import Error as PlaywrightError, sync_playwright

        started = time.monotonic()
        self._killed = False
        self._crashed = False
        self._thread = threading.get_ident()
        info = self.chromium or find_chromium(self.settings)
        if info is None:
            raise DeviceError("no Chromium found: install Debian's chromium (apt-get install "
                              "chromium) or set FARM_CHROMIUM_PATH")
        self.chromium = info
        if (problem := no_display(self.settings)) is not None:
            raise ConfigError(problem)
        try:
            self._pw = sync_playwright().start()
            # Ctrl-C and SIGTERM are farm's to handle (`kill` when a case does not stop on
            # them): the driver, in farm's process group, must not close the browser under a
            # case that is finishing its screenshots
            self._browser = self._pw.chromium.launch(
                executable_path=info.path,
                headless=self.settings.headless,
                args=[*BROWSER_FLAGS, *self.settings.browser_args, *self._chrome_args,
                      self.marker],
                timeout=60_000, handle_sigint=False, handle_sigterm=False,
            )
        except (PlaywrightError, OSError, RuntimeError) as exc:
            self.close()
            if "inside the asyncio loop" in str(exc):
                # A thread already runs a sync Playwright (another device) or an asyncio loop.
                raise DeviceError(f"cannot open {self.name}: Playwright's sync API allows one "
                                  "BrowserDevice per thread (and none on a thread running an "
                                  "asyncio loop): open each device on its own thread") from exc
            # (a program that names no Chromium version: FARM_CHROMIUM_PATH set to another)
            hint = (f" ({info.path} --version names no Chromium version: is it Chromium?)"
                    if info.version == "unknown" else "")
            raise DeviceError(f"cannot launch Chromium {info.path} for {self.name}: "
                              f"{first_line(exc)}{hint}") from exc
        proc = find_marked_process(self.marker)
        self._pid = proc.pid if proc else None
        self._driver = _driver_of(proc)
        self.open_seconds = time.monotonic() - started
        binary = os.path.basename(info.path)
        mode = ", headless" if self.settings.headless and "headless" not in binary else ""
        self.about = f"Chromium {self._browser.version or info.version} ({binary}{mode})"
        log.info("%s: Chromium %s (%s) pid %s up in %.2fs", self.name, info.version, info.path,
                 self._pid, self.open_seconds)

    def close(self) -> None:
        """Close the browser and stop Playwright; tolerates a dead browser, safe twice."""
        context, browser, pw = self._context, self._browser, self._pw
        self._context = self._page = self._browser = self._pw = None
        for step in (context and context.close, browser and browser.close, pw and pw.stop):
            if step is None:
                continue
            try:
                step()
            except Exception as exc:  # the browser may already be dead: nothing to release
                log.debug("%s: ignoring error during close: %s", self.name, first_line(exc))
        if pw is not None:
            driver_end_seen(pw)
        # Belt and braces: never leave an orphaned Chromium behind (the driver normally
        # reaps it, but a hung browser would otherwise survive the run).
        self._kill_processes()
        self._pid = self._driver = None

    def _kill_processes(self) -> None:
        proc = find_marked_process(self.marker, self._pid)
        if proc is not None:
            kill_tree(proc)

    def start_session(self, target: "WebTarget") -> None:
        """Fresh context (no shared cookies/storage) and page, then load ``target.url``, with
        the target's Midscene options (farm.suite.targets)."""
        self.end_session()
        if tuple(target.chrome_args) != self._chrome_args:   # chromeArgs are launch flags
            self.close()
            self._chrome_args = tuple(target.chrome_args)
            self.open()
        browser = self._need_browser()
        self._viewport = (target.viewport_width, target.viewport_height)
        self._follow_new_pages = target.follow_new_pages
        self._dialogs, self._thrown, self._cut = (target.dialogs, []), [], []
        self._step_said, self._marks, self._went, self._address = [], ((), ()), [], ""
        self._unfollowed = (target.mode, [])
        with self._errors("new context"):
            self._context = new_context(browser, target, [*self.settings.browser_args,
                                                           *target.chrome_args])
            self._context.on("page", self._new_page)
            self._downloads = [0, 0]
            self._adopt_page(self._context.new_page())
        self._cookies_said(target)
        # a user:password@ goes to the context (`without_credentials`), the rest is opened
        url, credentials = without_credentials(target.url)
        self._signed_in = (credentials["origin"], quote(credentials["username"], safe="")) \
            if credentials else None
        self._open_url(target, url)

    def _cookies_said(self, target: "WebTarget") -> None:
        """The target's cookies set otherwise than its cookie file says (`cookie_notes`: an
        insecure SameSite=None one, set as Lax), in farm.log now and, as a note, with the
        case's first step."""
        for note in cookie_notes(target.cookies):
            log.warning("%s: %s", self.name, note)
            self._step_said.append(note)

    def _open_url(self, target: "WebTarget", url: str) -> None:
        self._idle_ms = target.network_idle_ms
        if self._idle_ms:
            self._wait.watch_requests(self._need_page())
        self._goto(url, named=target.url)
        if target.network_idle_ms and not self.wait_network_idle(
                target.network_idle_ms, raise_on_timeout=not target.network_idle_continue):
            # Midscene logs a warning and goes on; said with the case's first step
            self._step_said.append(
                f"the network did not go idle within {target.network_idle_ms} ms of opening "
                "the page (waitForNetworkIdle): the case went on "
                "(continueOnNetworkIdleError: true)")
        self._step_ends()     # (the case's opening is the step before its first)

    def continue_session(self, target: "WebTarget") -> None:
        """The next file of a shared-context batch: the context and page the previous file left
        open (cookies, localStorage, sessionStorage kept), with ``target``'s page settings,
        at ``target.url``; a fresh session when there is nothing left to share."""
        if (self._context is None or self._page is None or self._page.is_closed()
                or self._crashed):
            self.start_session(target)
            return
        self._shots.reset()
        self._dom.forget()
        self._viewport = (target.viewport_width, target.viewport_height)
        self._follow_new_pages = target.follow_new_pages
        self._dialogs, self._thrown, self._cut = (target.dialogs, []), [], []
        self._step_said, self._marks, self._went, self._address = [], ((), ()), [], ""
        self._unfollowed = (target.mode, [])
        with self._errors("reuse the shared browser context"):
            reuse_context(self._context, self._page, target)
        self._cookies_said(target)
        self._open_url(target, target.url)      # (a context's credentials are its own)

    def _session_opened(self, page: Any, session: Any) -> None:
        """A page's DevTools session opened: its file choosers are watched on it, and the
        windows it asks to open noted (`TabsOpening`: the next read waits for their tabs)."""
        self._watch_choosers(page, session)
        session.on("Page.windowOpen", lambda event: self._tabs.asked(page))

    def _watch_choosers(self, page: Any, session: Any) -> None:
        """A page's DevTools session opened: its file choosers are watched on it, one no
        fileChooserAccept took noted with the case's dialogs (`chooser.watch_choosers`)."""
        from farm.devices.web.chooser import watch_choosers
        watch_choosers(page, session, lambda said: self._dialogs[1].append(said))

    def _new_page(self, page: Any) -> None:
        """A tab the page opened: a browser agent with autoFollowNewPage works in it, once it
        has loaded (taken over on the next use of the page, not inside this event)."""
        self._tabs.came()
        if self._follow_new_pages:
            self._opened = page
        else:
            self._unfollowed[1].append(page)

    def _follow(self) -> None:
        page, self._opened = self._opened, None
        try:
            load_state(page, "load", _ms_until(self._wait.limit(self._wait.timeout)),
                       until=lambda: self._became_download(page))
        except Exception as exc:     # closed or still loading: the next read says what is wrong
            log.debug("%s: new tab not loaded: %s", self.name, first_line(exc))
        if self._became_download(page):   # (a blank tab that never draws: not gone on in)
            log.info("%s: the new tab's address was a download; going on in the tab the page "
                     "was in", self.name)
            return
        self._adopt_page(page)
        self._shots.attach(page)

    def _became_download(self, page: Any) -> bool:
        """Whether ``page``, a new tab with no document yet, is one whose address turned out
        to be a download (a link with target=_blank to a file): a download began since the
        last action, and the tab never loads (it is left blank, or closes)."""
        url = str(getattr(page, "url", "") or "")
        return self._downloads[0] > self._downloads[1] and url in ("", "about:blank")

    def wait_network_idle(self, timeout_ms: int, raise_on_timeout: bool = False) -> bool:
        """waitForNetworkIdle: wait until no request was in flight for 500 ms; whether it
        went idle (else StepFailed, with ``raise_on_timeout``)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        page = self._need_page()
        try:
            page.wait_for_load_state("networkidle", timeout=timeout_ms)
        except PlaywrightTimeout:
            if raise_on_timeout:
                raise StepFailed(f"the network did not go idle within {timeout_ms} ms "
                                 "(waitForNetworkIdle, continueOnNetworkIdleError: false)")
            return False
        except Exception as exc:
            with self._errors("wait for network idle"):
                raise exc
        return True

    def end_session(self) -> None:
        """Close the case's context; ignores errors when the browser is already dead."""
        self._shots.reset()
        self._dom.forget()
        self._wait.reset()
        self._hang.reset()
        self._crashed = self._veiled = False     # (a new context: no field of it is veiled)
        self._idle_ms, self._unanswered_open = None, None
        context, self._context, self._page, self._opened = self._context, None, None, None
        self._tabs.reset()
        if context is not None:
            try:
                context.close()
            except Exception as exc:
                log.debug("%s: ignoring error closing context: %s", self.name, first_line(exc))

    def _adopt_page(self, page: Any) -> None:
        if page is self._page:  # new_page() also fires the context's "page" event
            return
        if self._page is not None:
            self._left_page()
        self._page = page
        self._crashed = False
        self._dom.forget()
        url = str(getattr(page, "url", "") or "")     # (a new tab taken over: its address)
        self._address = "" if url.startswith("about:") else url
        page.on("crash", self._on_crash)
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("pageerror", self._on_page_error)
        # a new document in the main frame (not a route an app's pushState changed): the
        # notes so far are of an earlier page (Playwright's client event; where this one has
        # none, they stay as they are)
        frame = getattr(page.main_frame, "_impl_obj", None)
        emitter = getattr(frame, "_event_emitter", None)
        if emitter is not None:
            emitter.on("navigated", lambda event: self._navigated(page, event))
        if self._idle_ms:
            self._wait.watch_requests(page)

    def _navigated(self, page: Any, event: dict) -> None:
        """The case's page loaded a new document: the notes so far are of an earlier page
        (`_left_page`), and a failure of this step or the next says the page went from one
        address to another (a timer's redirect: the text a check looked for was on the page
        it left), unless farm acted on the page since it last read it (a tap on a link: the
        step's own doing). Its opening (from no page) and a reload are not said."""
        if page is not self._page or event.get("error") or not event.get("newDocument"):
            return
        self._left_page()
        to = str(event.get("url") or "")
        was, self._address = self._address, to
        if was and to and was != to and not was.startswith("about:") and not self._stepped:
            from farm.config import mask_url
            self._went.append(f"the page navigated from {mask_url(was)[:160]} to "
                              f"{mask_url(to)[:160]}")

    def _left_page(self) -> None:
        """The case left the document it showed (another loaded, a new tab taken over): the
        notes of its dialogs and uncaught errors so far now say "an earlier page", not "the
        page", for a failure that comes after (they may still be why: a confirm cancelled, a
        handler that threw before the form was sent)."""
        for notes in (self._dialogs[1], self._thrown):
            notes[:] = ["an earlier page " + n.removeprefix("the page ")
                        if n.startswith("the page ") else n for n in notes]

    def _on_crash(self, page: Any) -> None:
        """The case's page lost its renderer (out of memory, or a bug of the renderer): its calls
        fail from now on, the case's failure (`_page_gone`); the browser carries on, the next
        case in a fresh context."""
        if page is self._page:
            self._crashed = True
            log.warning("%s: the page's renderer crashed (%s)", self.name, page.url)
            # a call sent to the page before this event came never returns (a crash between
            # steps: a timer's allocation during a `sleep`, then the step's screenshot hung
            # until the case's timeout and the watchdog's kill of the browser, "case timed
            # out ... waiting for the device's screenshot"): closing the case's context ends
            # it, failing as the crash (`_page_gone`); the next case has a fresh one
            self._close_hung_page()

    def _on_page_error(self, error: Any) -> None:
        """An error the page's scripts threw and nothing caught: kept for the note of a step
        that then fails (a button whose handler threw did nothing), never a failure itself."""
        from farm.devices.web.failures import thrown_note
        self._thrown.append(thrown_note(error))
        log.info("%s: %s", self.name, self._thrown[-1])

    def _on_dialog(self, dialog: Any) -> None:
        """An alert, confirm or prompt the page opened: dismissed, as Playwright does with
        dialogs nobody handles (a confirm answers Cancel, a prompt null), or accepted with the
        target's ``dialogs: accept`` (OK; a prompt its default text); said in the log and
        kept for the note of a step that then fails (`failure_note`)."""
        how, seen = self._dialogs
        # (an alert has OK alone; a beforeunload dialog dismissed keeps the page: Cancel)
        asks = dialog.type in ("confirm", "prompt", "beforeunload")
        answer = "Cancel" if asks and how == "dismiss" else "OK"
        if dialog.type == "beforeunload":    # its text is the browser's, never the page's
            said = ("the page asked to confirm leaving it (a beforeunload dialog) and farm "
                    f"answered {answer}" + (": it stayed on the page" if answer == "Cancel"
                                            else ""))
        else:
            said = f'the page opened {_article(dialog.type)} {dialog.type} dialog ' \
                   f'"{first_line(dialog.message)[:120]}" and farm answered {answer}'
        if answer == "Cancel":
            said += "; `dialogs: accept` in the web: section answers OK"
        seen.append(said)
        self._step_said.append(said)    # (a step that passed says it: `step_notes`)
        log.warning("%s: %s", self.name, said)
        try:
            if how == "dismiss":
                dialog.dismiss()
            elif dialog.type == "prompt":
                dialog.accept(dialog.default_value)
            else:
                dialog.accept()
        except Exception as exc:    # the page or browser went away meanwhile
            log.debug("%s: dialog not answered: %s", self.name, first_line(exc))

    def _on_download(self, download: Any) -> None:
        """A file the page started to download (a link to a report, a blob the page saves): a
        note of the step that started it (`step_notes`), naming the file; farm keeps no
        download (the browser's copy goes with the case's context)."""
        try:
            name = first_line(download.suggested_filename)[:120]
        except Exception:           # (the page or browser went away meanwhile)
            name = ""
        said = (f'the page started a download of "{name}"' if name else
                "the page started a download") + " (farm does not keep downloaded files)"
        self._step_said.append(said)
        self._downloads[0] += 1
        log.info("%s: %s", self.name, said)

    def _goto(self, url: str, named: str | None = None) -> None:
        """Open ``url``; a failure names it as ``named`` (the target's, credentials masked)."""
        self._address = ""     # (its own navigation is no news: `_navigated`)
        self._dom.acted()
        from farm.config import mask_url
        from farm.suite.urls import url_problem
        # (basic auth's user:password@: no one's to read)
        shown = mask_url(self.hide(named or url))
        problem = url_problem(url)   # a ${NAME} gave one the load could not check: the case's
        if problem is not None:      # mistake, not the browser's (no retry, no quarantine)
            raise StepFailed(f"cannot open {shown}: {problem}")
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        page = self._acting()
        self._stepped = False    # (its own navigation is from no address: not said)
        limit = self._wait.limit(self._wait.timeout)
        # the message names the URL and Playwright's net::ERR_... reason; a site that does not
        # answer, or whose document never finishes, is the site's doing, not the browser's.
        # Until the server answers no script of the page runs: not watched for a hang (the
        # guard's ping waits for the document too, and called a silent server a page's loop)
        with mapped_errors(self.name, f"open {shown}", lambda: self._killed, self._page_gone,
                           self._tab_closed), unreachable_site(shown):
            self._unanswered_open = shown
            try:
                page.goto(url, wait_until="commit", timeout=_ms_until(limit))
            except PlaywrightTimeout:
                raise self._unanswered(shown, limit, "the server sent no answer") from None
            except BaseException:
                self._unanswered_open = None    # (an error page is a page)
                raise
            self._unanswered_open = None
        with self._errors(f"open {shown}"), unreachable_site(shown):
            self._shots.attach(page)     # while the document loads
            try:
                load_state(page, "domcontentloaded", _ms_until(limit))
            except PlaywrightTimeout:
                raise self._unanswered(shown, limit, "its document was still loading",
                                       " (still coming from the server, or a script in it "
                                       "has not come)") from None
            self._wait_loaded(page, shown)

    def _unanswered(self, shown: str, limit: float, what: str, why: str = "") -> FarmError:
        """Opening ``shown`` waited in vain until ``limit``: the step fails (the site's
        doing), or, when that was the case's end, the case timed out, saying what the page
        waited for (Playwright's clock may end it a moment before ours)."""
        if self._wait.deadline is not None and limit >= self._wait.deadline:
            return CaseTimeout(f"case timed out opening {shown}: {what}{why}")
        after = "within" if what.endswith("answer") else "after"
        return StepFailed(f"cannot open {shown}: {what} {after} {self._wait.timeout:g} s{why}")

    def _wait_loaded(self, page: Any, url: str) -> None:
        """The page's load event (images, frames, stylesheets in), at most LOAD_GRACE_S: a
        resource that never comes (a request the server holds) leaves a usable page, which
        the steps then work on (a warning says so)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        try:
            load_state(page, "load", LOAD_GRACE_S * 1000)
        except PlaywrightTimeout:
            log.warning("%s: %s has not finished loading after %g s (a resource it asked for "
                        "has not come); the case goes on with the page as it is", self.name,
                        url, LOAD_GRACE_S)

    # -- observation -------------------------------------------------------------------------

    def size(self) -> tuple[int, int]:
        """Viewport size in CSS pixels."""
        if self._page is not None and self._page.viewport_size:
            vs = self._page.viewport_size
            return (vs["width"], vs["height"])
        return self._viewport

    def screenshot(self) -> bytes:
        """PNG of the viewport, in CSS pixels (so it matches tap coordinates at any DPR); the
        page's text that holds a secret (``hide`` changes it) blacked out."""
        self._shots.hide = None if self.hide is _unmasked else self.hide   # no secrets: no scan
        return self._shots.screenshot(self._need_page())

    def capture_evidence(self) -> Callable[[], bytes | None]:
        """Start an image of the viewport for the report and return at once; calling the
        result gives the JPEG (encoded by Chromium), or None when the page has not changed
        since the last image (`farm.devices.web.capture.PageCapture.evidence`), as when the
        step only read the page (a check) and that read saw it as the last image shows it.
        A read counts for its own step's image only: a step after it that does not read (a
        sleep) gets the page as it is then. The page's text that holds a secret is blacked
        out of it."""
        page = self._need_page()
        if self._unanswered_open is not None:
            raise StepFailed(f"no image: {self._unanswered_open} sent no page (its server "
                             "has not answered)")
        self._shots.hide = None if self.hide is _unmasked else self.hide   # no secrets: no scan
        seen, self._dom.seen = self._dom.seen, None
        return self._shots.evidence(page, seen=seen)

    def finish_captures(self) -> None:
        """Let report images under way come in (before a wait that serves no page events)."""
        if self._page is not None:
            self._shots.settle()

    def await_change(self, timeout_s: float, quiet_s: float | None = None) -> bool:
        """Wait for the page to change from what its last read saw (a locate that missed waits
        so for a target that comes later: a list a request fills, a button a timer adds): True
        once it has (or a navigation took the document away); False after ``timeout_s``, or
        once it stayed the same for ``quiet_s`` with none of its requests (fetch, XHR) in
        flight. The page watches its own change counter (page_state.js): no DevTools traffic
        while nothing happens. Frames of another origin the last read saw (a payment form
        drawing its fields) count as the page: `_await_frames`. A tab the page opened, for a
        browser agent with autoFollowNewPage to work on in, is a change (its old tab may never
        change again: the target is in the new one)."""
        seen, page = self._dom.seen, self._page    # (None: a page without farm's watch, as
        if page is None or self._opened is not None:   # an error page: it waits out its time)
            return True
        cap = round(timeout_s * 1000)
        quiet = cap if quiet_s is None else min(cap, round(quiet_s * 1000))
        with self._errors("wait for the page to change"):
            if self._dom.frames_seen:
                return self._await_frames(page, seen, quiet, cap)
            return self._unless_navigating(lambda: self._shots.script(
                page, AWAIT_CHANGE_JS, [seen, quiet, cap], until=self._tab_opened), True) is True

    def await_page_change(self, timeout_s: float, quiet_s: float | None = None,
                          since_scroll: bool = False, since_check: bool = False) -> bool:
        """Wait up to ``timeout_s`` for the page to change from how it is now (not from how its
        last read saw it: `await_change`): True once it has, or a navigation took the document
        away; False when it stayed the same, or a tab the page opened is to be followed. A
        target something covers waits so for its cover to go (a spinner, an overlay a request
        takes away: `farm.agent.action_base.Locate.reachable`), as Playwright's click waits for
        its element to receive the click. Given ``quiet_s``: False as well once the page stayed
        the same that long with none of its requests in flight (a list that loads more as it
        is scrolled to its end has settled: `farm.agent.actions.Scroll`). ``since_scroll``:
        from how the page was when the last wheel's scroll ended instead of now (rows it
        added as it reached its end, before this call, are a change). ``since_check``: from
        how the page was when the last `tap_point` found its target covered (a spinner its
        timer took away between that check and this call is gone: no wait for a change)."""
        page, cap = self._page, max(1, round(timeout_s * 1000))
        quiet = cap if quiet_s is None else min(cap, round(quiet_s * 1000))
        checked = self._dom.checked if since_check else None
        script, arg = ((AWAIT_CHANGE_JS, [checked, quiet, cap]) if checked is not None
                       else (AWAIT_SCROLLED_JS if since_scroll else AWAIT_NOW_JS, [cap, quiet]))
        if page is None or self._opened is not None:
            return False
        with self._errors("wait for the page to change"):
            return self._unless_navigating(lambda: self._shots.script(
                page, script, arg, until=self._tab_opened), True) is True

    def _tab_opened(self) -> bool:
        """A tab the page opened is to be followed (`_new_page`)."""
        return self._opened is not None

    def _await_frames(self, page: Any, seen: str | None, quiet_ms: int, cap_ms: int) -> bool:
        """`await_change` on a page with frames of another origin: their changes move no
        counter of the page's, nor do their requests count in its own. Each frame is asked
        (frames.watch, a round trip each), then the page watched for FRAME_LOOK_MS, in turn;
        a frame that changed, navigated or went away is a change (the next read sees it)."""
        began = time.monotonic()
        while True:
            busy = frames.watch(self._dom.frames_seen)
            if busy is None:
                return True
            waited = round((time.monotonic() - began) * 1000)
            look = max(1, min(FRAME_LOOK_MS, cap_ms - waited))
            own = self._unless_navigating(lambda: self._shots.script(
                page, AWAIT_CHANGE_JS, [seen, look, look], until=self._tab_opened), True)
            if own is True:
                return True
            waited = round((time.monotonic() - began) * 1000)
            if waited >= cap_ms or (waited >= quiet_ms and not (own or busy)):
                return False

    def failure_note(self) -> str | None:
        """For a step that failed: "the page answered 404 Not Found: URL" when the server
        answered the page's current document with an HTTP error, else None (one page round
        trip, only then, once a navigation under way is over: a load that failed leaves
        Chromium's error page coming; `farm.devices.web.failures.page_status_note`). The
        last dialog answered, error thrown, value cut, when it came in this step or the one
        before (the case's opening is the step before its first; "N more before" counts
        the case's): one ten steps back is no reason."""
        from farm.devices.web.failures import last_of, page_status_note
        since = self._marks[0] or (0,) * len(self._noted())
        recent = [notes if len(notes) > n else [] for notes, n in zip(self._noted(), since)]
        said = "; ".join(filter(None, [*map(last_of, recent), self._tab_note()])) or None
        status = self._page_status(page_status_note)
        return "; ".join(filter(None, [status, said])) or None

    def step_notes(self) -> list[str]:
        """What the step that just ended says though it did what it was asked (the runner
        asks at each step's end: a step note in the report and results.json): a value a
        field's maxlength cut ("the input[type=text] kept 3 of the 5 characters of …")."""
        if self._stepped and self._page is not None and not self._crashed:
            self._pump_events(self._page)   # (a download the step's tap started: its own)
        said, self._step_said = self._step_said, []
        self._step_ends()
        return said

    def _pump_events(self, page: Any) -> None:
        """One round trip to ``page``'s document (over its DevTools session: Playwright's
        evaluate waits out a navigation under way): the events the browser sent meanwhile
        (a download a tap started) are handled before it returns. Best effort. (It does not
        tell the capture its look: a form's requestSubmit navigates a task after that look,
        and the image sent with no look of its own came under the navigation, retaken until
        the step's limit: "the page navigated under each of 5 captures", once in a CI run.)"""
        try:
            self._unless_navigating(lambda: self._shots.script(page, "() => 0", None))
        except Exception as exc:    # (a page or browser going away: the next step says it)
            log.debug("%s: no events taken: %s", self.name, first_line(exc))

    def _noted(self) -> tuple[list[str], ...]:
        """The case's notes a failure may name, of each kind (`failure_note`)."""
        return self._went, self._dialogs[1], self._thrown, self._cut

    def _step_ends(self) -> None:
        """A step (or the case's opening) ended: its notes become the step before's."""
        self._marks = (self._marks[1], tuple(map(len, self._noted())))

    def error_page(self) -> str | None:
        """"the page answered 404 Not Found: URL" when the server answered the page's current
        document with an HTTP error, else None: a target no zero-token tier found there is a
        failure, not a step for a model (`farm.runner`)."""
        from farm.devices.web.failures import document_error
        return self._page_status(document_error)

    def _page_status(self, read: Callable[..., str | None]) -> str | None:
        """``read`` (a `farm.devices.web.failures` reader) of the current page's document, in
        one page round trip; None without a page that can answer (none, killed, going away,
        or a navigation under way)."""
        page = self._page
        if page is None or self._killed or self._wait.awaiting or page.is_closed():
            return None
        return read(page, lambda p, js, arg: self._wait.evaluate(
            p, js, arg, "read the page's HTTP status"), self._signed_in)

    def _tab_note(self) -> str | None:
        """For a failed step: the last tab the page opened that the case does not work in, still
        open (a link with target=_blank, window.open), where what the step looked for may be."""
        mode, opened = self._unfollowed
        left = [p for p in opened if p is not self._page and not p.is_closed()]
        if not left:
            return None
        how = ("`autoFollowNewPage: true` works on in it" if mode == "browser" else
               "`forceSameTabNavigation: true` (the default) opens it in this tab")
        from farm.config import mask_url
        return (f"the page opened a new tab, {mask_url(left[-1].url)[:160]}, and farm goes on "
                f"in the tab it was in; {how}")

    def requests_in_flight(self) -> int:
        """How many of the page's own fetch / XMLHttpRequest calls are under way (page_state.js
        counts them): a check that failed while some were may have come before their answer.
        0 when it cannot be read (a page without farm's watch, or going away)."""
        page = self._page
        if page is None or self._killed or page.is_closed():
            return 0
        try:
            n = self._wait.evaluate(page, "() => (window.__farm && window.__farm.inflight) || 0",
                                    None, "count the page's requests")
        except Exception as exc:     # best effort: the failure is what the step reports
            log.debug("%s: no request count: %s", self.name, first_line(exc))
            return 0
        return n if isinstance(n, int) and not isinstance(n, bool) else 0

    def hierarchy(self) -> UITree:
        """The rendered DOM as a UITree, collected in one page.evaluate (not walked again while
        the page has not changed since the last walk)."""
        self._aim = self._wheel = None      # (node ids of the read before)
        tree = self._read(self._dom.tree)
        self.last_observation = "tree"
        self.hierarchy_seconds = self._dom.seconds
        return tree

    def screen_text(self) -> str:
        """The page's visible text (what text checks compare), read without walking the DOM
        into a tree (not read again while the page has not changed)."""
        text = self._read(self._dom.text)
        self.last_observation = "tree"
        self.hierarchy_seconds = self._dom.seconds
        return text

    def canvas_shown(self) -> bool:
        """Whether the last `screen_text` saw, in the viewport, a canvas that can hold text
        (of the page or of a frame it read; read in the same round trip): text drawn there (a
        chart's labels, a Flutter web app) is in no rendered text, only in the pixels."""
        return self._dom.canvas

    def query_xpath(self, xpath: str) -> list[Rect]:
        """Viewport rects of rendered elements matching ``xpath``; bad XPath -> StepFailed."""
        return self._read(lambda page: self._dom.xpath_rects(page, xpath))

    def node_frame(self, node: int) -> str | None:
        """Where node ``node`` of the last `hierarchy` is when a frame of another origin holds
        it: that frame's origin and path ("https://pay.example/card.html", its query and any
        credentials left out), for a message listing it beside the page's own elements."""
        url = self._dom.frame_url(node)
        if not url:
            return None
        from urllib.parse import urlsplit
        parts = urlsplit(url)
        if not parts.scheme.startswith("http"):
            return url.split("?")[0][:120]
        return f"{parts.scheme}://{parts.hostname or ''}" + \
            (f":{parts.port}" if parts.port else "") + parts.path

    @property
    def xpath_hidden(self) -> list[str]:
        """Why each element of the page the last `query_xpath` matched but left out is not
        shown ("display:none on its div.sub"): a miss says it matched them all the same."""
        return self._dom.xpath_hidden

    def _read(self, read: Callable[[Any], Any]) -> Any:
        """``read(page)``; when the page closed its tab under the read, the same read of the
        tab the device goes on in (`_back_to_open_tab`). A read waits for a navigation the
        last action started: one after it is the page's own (`_navigated`)."""
        try:
            out = read(self._need_page())
        except StepFailed:
            if not self._tab_closed():
                raise
            out = read(self._need_page())
        self._stepped = False
        return out

    # -- actions -----------------------------------------------------------------------------

    def _acting(self) -> Any:
        """The page, for an action: a capture under way finishes first (it shows the screen
        before this action), and the next DOM read waits for any navigation it starts."""
        self._dom.acted()           # (the page may change now: `tap_point` reads it again)
        self._stepped = True        # (a navigation now may be this action's: `_navigated`)
        page = self._need_page()
        self._downloads[1] = self._downloads[0]
        self._shots.settle()
        self._wait.acted()
        return page

    @_action
    def tap(self, x: int, y: int) -> tuple[int, int] | None:
        """Click at (x, y); None, or the point the click went to instead when the target
        moved as the mouse reached it (`_aimed_tap`: the report marks that point)."""
        aim, page = self._aim, self._acting()
        with self._errors("tap"):
            if aim is None or aim[1:] != (x, y):
                nx, ny = self._in_view(page, x, y, "a tap")
                page.mouse.click(nx, ny)
                self._tapped = (nx, ny)
                return None if (nx, ny) == (x, y) else (nx, ny)
            went = self._aimed_tap(page, aim[0], x, y)
            self._tapped = went or (x, y)
            return went

    def _in_view(self, page: Any, x: int, y: int, act: str) -> tuple[int, int]:
        """Where ``act`` at (x, y) goes: there, inside the viewport (no round trip); outside
        it (an XPath's element below the fold, whose rect is where the page has it), where the
        point is once the page scrolled it to the middle (`INTO_VIEW_JS`), as Playwright scrolls
        its target in. A click outside the viewport reaches nothing, and the step passed. Still
        outside (a page that does not scroll that way) fails the step."""
        w, h = self.size()
        if 0 <= x < w and 0 <= y < h:
            return x, y
        moved = self._unless_navigating(
            lambda: self._shots.script(page, INTO_VIEW_JS, [x, y, w, h]), [0, 0])
        nx, ny = x - round(moved[0]), y - round(moved[1])
        if not (0 <= nx < w and 0 <= ny < h):
            raise StepFailed(f"{act} at ({x}, {y}) is outside the page's {w}x{h} viewport, "
                             "and scrolling the page does not bring that point in: it would "
                             "reach nothing")
        return nx, ny

    def _aimed_tap(self, page: Any, node: int, x: int, y: int) -> tuple[int, int] | None:
        """A tap on node ``node`` that `tap_point` found reached at (x, y): the mouse goes
        there, and the button goes down only where the target is then. A page may move or
        cover it when the pointer arrives (a button that shifts on hover, a hover panel over
        it): the target is followed once to where it went, as Playwright retries (the point
        it was clicked at is returned); still not reached fails the step, where the click
        went elsewhere and the step passed."""
        first = (x, y)
        for _ in range(2):
            page.mouse.move(x, y)
            now = self._unless_navigating(lambda: self._dom.aim(page, node, x, y))
            if now is None:
                break
            if isinstance(now, str):
                raise StepFailed(f"the target moved when the mouse reached it (its hover "
                                 f"effect?): a tap at ({x}, {y}) would hit {now}")
            x, y = now
        else:
            raise StepFailed("the target moves away each time the mouse reaches it (its "
                             "hover effect?): no tap reaches it")
        page.mouse.click(x, y)      # (where the mouse is: one call for down and up)
        return None if (x, y) == first else (x, y)

    @_action
    def double_tap(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("double tap"):
            page.mouse.dblclick(*self._in_view(page, x, y, "a double tap"))

    @_action
    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        page = self._acting()
        with self._errors("long press"):
            page.mouse.move(*self._in_view(page, x, y, "a long press"))
            page.mouse.down()
            page.wait_for_timeout(duration_ms)
            page.mouse.up()

    @_action
    def hover(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("hover"):
            page.mouse.move(*self._in_view(page, x, y, "a hover"))

    @_action
    def right_click(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("right click"):
            page.mouse.click(*self._in_view(page, x, y, "a right click"), button="right")

    @_action
    def tap_choosing_files(self, x: int, y: int, files: list[str],
                           timeout_s: float = 30.0) -> None:
        """Click at (x, y), which must open a file chooser within ``timeout_s``, and give it
        ``files`` (aiTap fileChooserAccept). A tap that opens none fails the step: the page's
        doing, not the browser's."""
        from farm.devices.web.chooser import tap_choosing_files
        page = self._acting()
        with self._errors("tap for a file chooser"):
            tap_choosing_files(page, *self._in_view(page, x, y, "a tap"), files, timeout_s)

    @_action
    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """Drag with the mouse: down at (x1, y1), move in ~16 ms steps, up at (x2, y2)."""
        page = self._acting()
        steps = max(5, duration_ms // 16)
        with self._errors("swipe"):
            page.mouse.move(x1, y1)
            page.mouse.down()
            for i in range(1, steps + 1):
                page.mouse.move(x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps)
                page.wait_for_timeout(duration_ms / steps)
            page.mouse.up()

    @_action
    def scroll(self, x: int, y: int, dx: int, dy: int) -> bool | None:
        """Wheel-scroll by (dx, dy) CSS px over (x, y); return once the page has scrolled (its
        scrollend event): True, or once SCROLL_QUIET_MS passed with no scroll (the wheel moved
        nothing, that way is at its end): False. None when a navigation took the page away.
        Over a frame of another origin `wheel_point` aimed at, its scrolls count too (they
        stay in its document: a scroll there was "nothing moved"). ``scrolled_to_end``: after
        a scroll that moved, whether what it scrolled is now at its end that way."""
        page, arg = self._acting(), [SCROLL_QUIET_MS, dx, dy]
        wheel = self._wheel
        run: list[Callable[[str, Any], Any]] = [
            lambda js, a: self._shots.script(page, js, a)]
        if wheel is not None and wheel[:2] == (x, y):   # the frame's first: it scrolls first
            run.insert(0, lambda js, a: wheel[2].run(js, a))
        with self._errors("scroll"):
            page.mouse.move(x, y)
            for call in run:
                self._unless_navigating(lambda: call(SCROLL_WATCH_JS, arg))
            page.mouse.wheel(dx, dy)
            ends = [self._unless_navigating(lambda: call(SCROLL_END_JS, None)) for call in run]
        moved = next((e for e in ends if e), None if None in ends else False)
        self.scrolled_to_end = moved == "end" if moved else None
        return bool(moved) if moved is not None else None

    def wheel_point(self, node: int | None, rect: Rect, x: int, y: int) -> tuple[int, int, str]:
        """Where a scroll aimed at a target (node ``node`` of the last `hierarchy`, else the
        element whose box is ``rect``) at (x, y) wheels, so that it scrolls what holds the
        target (wheel.js): a point of the part of it that shows where nothing covers it. A
        wheel at the middle of a list's content taller than its box went outside the box,
        often below the viewport: the page scrolled, or nothing, and the step passed.
        (x, y, why): why is "" when the wheel reaches the target there, else what keeps it
        from it. A box alone wholly outside the viewport (an XPath's, below the fold) is
        scrolled in first, as for a tap (`_in_view`). No telling (no such element, a
        navigation meanwhile): the middle of the part of ``rect`` in the viewport."""
        page, (w, h) = self._acting(), self.size()
        self._wheel = None
        got = self._wheel_at(page, node, rect, x, y)
        if got is None and not _in_viewport(rect, w, h):
            nx, ny = self._in_view(page, x, y, "a scroll")
            rect = rect.model_copy(update={"x": rect.x + nx - x, "y": rect.y + ny - y})
            x, y = nx, ny
            got = self._wheel_at(page, node, rect, x, y)
        if isinstance(got, (list, tuple)):
            x, y = int(got[0]), int(got[1])
            route = self._dom.route(node) if node is not None else None
            self._wheel = (x, y, route) if route is not None else None
            return x, y, ""
        if got == "":
            return x, y, f"none of it shows in the page's {w}x{h} viewport"
        if isinstance(got, str):
            return x, y, f"it is covered by {got}"
        shown = _in_viewport(rect, w, h)
        return (shown.x + shown.width // 2, shown.y + shown.height // 2, "") if shown \
            else (x, y, "")

    def _wheel_at(self, page: Any, node: int | None, rect: Rect, x: int, y: int) -> Any:
        """wheel.js's answer for the target, in the page's viewport (in its frame, for one in
        a frame of another origin: that frame's piece of the page's viewport clipping it)."""
        w, h = self.size()
        route = self._dom.route(node) if node is not None else None
        with self._errors("aim a scroll"):
            if route is None:
                return self._unless_navigating(lambda: self._shots.script(
                    page, WHEEL_JS, [-1 if node is None else node, x, y, rect.as_list(),
                                     [0, 0, w, h]]))
            got = route.run(WHEEL_JS, [route.index, *route.local(x, y), rect.as_list(),
                                       [*route.local(0, 0), *route.local(w, h)]])
        return route.page(*got) if isinstance(got, list) else got

    @staticmethod
    def _unless_navigating(call: Callable[[], Any], otherwise: Any = None) -> Any:
        """``call()`` (a page script), unless a navigation takes its document away: then
        ``otherwise`` (the next read waits for the page it loads)."""
        from farm.devices.web.failures import raced_navigation
        try:
            return call()
        except Exception as exc:
            if not raced_navigation(exc):
                raise
            return otherwise

    def scroll_into_view(self, node: UINode) -> bool:
        """Scroll node (of the last `hierarchy`) to the middle of the viewport, every
        scrolling ancestor included, as Playwright's scrollIntoViewIfNeeded does (in a frame
        of another origin: there, and the frame in the page)."""
        page, route = self._acting(), self._dom.route(node.id)
        with self._errors("scroll into view"):
            if route is None:
                return bool(self._shots.script(page, SCROLL_JS, node.id))
            return bool(self._unless_navigating(lambda: route.reveal() or route.run(
                SCROLL_JS, route.index), False))

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        """Before a tap at (x, y) on node ``node`` (an id of the last `hierarchy`): what the
        tap would hit there, in one page round trip. (x, y, "") when that is the target (or
        what takes its clicks: its button, link or label); when something else covers it
        (a sticky header, a banner, a modal's backdrop), the target is scrolled to the middle
        of the viewport once and checked again: the point to tap then, and what still covers
        it ("" when nothing does). A navigation under the check: (x, y, ""), no telling.
        No round trip when the tree just read (no action on the page since) found the target
        reached at that point (dom.js's ``reached``)."""
        if self._dom.reached(node, x, y):
            self._aim = (node, x, y)
            return x, y, ""
        page = self._acting()
        with self._errors("check what a tap would hit"):
            nx, ny, cover = self._unless_navigating(
                lambda: self._dom.tap_point(page, node, x, y), (x, y, ""))
        self._aim = (node, nx, ny) if not cover else None
        return nx, ny, cover

    @_action
    def type_text(self, text: str) -> None:
        """Key by key (real key events: what `mode: typeOnly` asks for)."""
        page = self._acting()
        if text and self.hide(text) != text:    # a secret: each field it goes to is veiled
            self._veil(page, text, VEIL_WATCH_JS)
        with self._errors("type"):
            page.keyboard.type(text)
        self._veil(page, text)

    def _script_veiling(self, page: Any, fill: str, arg: Any, text: str,
                        route: Any = None) -> Any:
        """The fill script ``fill`` with ``arg``; where ``text`` holds one of the case's
        secrets (its mask changes it), the field it filled then draws its text as discs (and
        text that is none, typed into a field so veiled, as typed again), in the same round
        trip: no report image and no screenshot sent to a model shows the secret. In the
        page, or in the frame of another origin ``route`` (frames.FrameRoute) names. In the
        page, the script then looks at the page as the report image's look would
        (`scripts.looked`), in the same round trip: a fill that did all it does there tells
        the capture (`PageCapture.told`), whose image then needs no look of its own."""
        secret = self._veil_wanted(text)
        script, given = (fill, arg) if secret is None else (veiled(fill), [arg, secret])
        if route is not None:
            return route.run(script, given, gone="tap")
        how, look = self._shots.script(page, looked(script), given)
        if how not in ("tap", "frame", "insert"):      # (else more is done to the page)
            self._shots.told(page, look)
        return how

    def _in_focus(self, page: Any, script: str, arg: Any) -> Any:
        """``script`` with ``arg`` in the page; when it answers "frame" (the focus is in a
        frame of another origin), in that frame (its answer then; None when no frame holds
        the focus any more)."""
        how = self._shots.script(page, script, arg)
        if how != "frame":
            return how
        frame = frames.focused(page)
        return None if frame is None else frame.evaluate(script, arg)

    def _focused_fill(self, page: Any, text: str) -> Any:
        """FOCUSED_FILL_JS, veiling (`_script_veiling`), in the page or in the frame of
        another origin that holds the focus."""
        how = self._script_veiling(page, FOCUSED_FILL_JS, text, text)
        if how == "frame":
            frame = frames.focused(page)
            how = None if frame is None else self._script_veiling(
                page, FOCUSED_FILL_JS, text, text, frames.FrameRoute(frame, -1))
        return how

    def _veil_wanted(self, text: str) -> bool | None:
        """What `VEIL_JS` is to be given for ``text`` just typed: True when it holds one of
        the case's secrets (its mask changes it), False when it holds none but a field of the
        session was veiled (this one may be), None when there is nothing to do."""
        secret = bool(text) and self.hide(text) != text
        self._veiled = self._veiled or secret
        return secret if self._veiled else None

    @_action
    def fill(self, text: str) -> bool:
        """Replace the focused field's content with ``text`` in one go: its content selected,
        then the text inserted as an input method would (input events, no key events; a date
        or colour input gets its value set; a select, the option ``text`` names, as shown or
        its value). False when nothing fillable has the focus."""
        page = self._acting()
        with self._errors("fill"):
            how = self._inserted(page, self._focused_fill(page, text), text)
        return self._filled(how, text)

    def fill_at(self, x: int, y: int, node: int, text: str) -> bool | None:
        """aiInput on a text field, as Playwright's fill: ``node`` (an id of the last
        `hierarchy`, which found a tap at (x, y) reaching it, no action since) gets the focus
        without the mouse and ``text`` as `fill` puts it, in one round trip (a tap first, the
        mouse moving in, checking the target is still there, then the fill: four). None, the
        page not asked, when the read did not find it so: the caller taps, then fills."""
        if not self._dom.field_reached(node, x, y):
            return None
        return self._fill_at(x, y, node, text)

    @_action
    def _fill_at(self, x: int, y: int, node: int, text: str) -> bool:
        page, route = self._acting(), self._dom.route(node)
        at = [route.index, *route.local(x, y)] if route is not None else [node, x, y]
        with self._errors("fill"):
            how = self._script_veiling(page, FILL_AT_JS, [*at, text], text, route)
            if how == "tap":    # not so any more (the page changed by itself): as before
                page.mouse.click(x, y)
                how = self._focused_fill(page, text)
            how = self._inserted(page, how, text)
        return self._filled(how, text)

    def focus_at(self, x: int, y: int, node: int) -> bool | None:
        """aiKeyboardPress on a text field, as Playwright's press: ``node`` (as `fill_at`'s)
        gets the focus without the mouse, for the key that follows: True (at once, no round
        trip, when that read found the focus on it). None, nothing done, when the last read
        did not find it so or it is not so now: the caller taps it."""
        if not self._dom.field_reached(node, x, y):
            return None
        if self._dom.has_focus(node):     # (typed into just before: no round trip)
            return True
        return self._focus_at(x, y, node)

    @_action
    def _focus_at(self, x: int, y: int, node: int) -> bool | None:
        page, route = self._acting(), self._dom.route(node)
        with self._errors("focus"):
            if route is not None:
                return True if route.run(FOCUS_AT_JS, [route.index, *route.local(x, y),
                                                       None]) == "focused" else None
            return True if self._shots.script(page, FOCUS_AT_JS, [node, x, y, None]) \
                == "focused" else None

    def _veil(self, page: Any, text: str, script: str = VEIL_JS) -> None:
        """`_script_veiling`'s veil for text typed key by key (`VEIL_JS`, a round trip of its
        own; `VEIL_WATCH_JS` before the keys, for a secret: the fields they change are veiled
        too). A field gone meanwhile (the text submitted a form) has nothing to hide."""
        from playwright.sync_api import Error as PlaywrightError

        secret = self._veil_wanted(text)
        if secret is not None:
            try:
                self._in_focus(page, script, secret)
            except PlaywrightError as exc:
                log.debug("%s: the secret's field not veiled: %s", self.name, first_line(exc))

    @staticmethod
    def _inserted(page: Any, how: Any, text: str) -> Any:
        """The fill script's answer ``how``; "insert" (execCommand refused): the text is put
        in through the driver."""
        if how == "insert":
            if text:
                page.keyboard.insert_text(text)
            else:
                page.keyboard.press("Delete")
        return how

    def _filled(self, how: Any, text: str) -> bool:
        """What `fill` returns for the fill script's answer ``how``: a refusal fails the step;
        a value cut at the field's maxlength is noted (`step_notes`, `failure_note`)."""
        if isinstance(how, dict) and "refused" in how:
            raise StepFailed(_refused(how["refused"], text, how.get("holds") or ""))
        if isinstance(how, dict) and "cut" in how:    # taken as far as it fits, as typing
            # is: kept for the note of a step that then fails (a secret's first characters
            # would escape its mask: its length alone is said)
            given = "the text" if self.hide(text) != text else f'"{text}"'
            took = _code_points(text, how["took"])
            self._cut.append(f'the {how["cut"]} kept {took} of the {len(text)} '
                             f'characters of {given} typed into it (its maxlength is '
                             f'{how["max"]})')
            self._step_said.append(self._cut[-1])     # (the runner logs it with the case)
            log.info("%s: %s", self.name, self._cut[-1])
            return True
        if isinstance(how, dict):       # a <select> without that option
            shown = ", ".join(f'"{o}"' for o in how.get("options", [])[:MAX_OPTIONS_SHOWN])
            more = len(how.get("options", [])) - MAX_OPTIONS_SHOWN
            raise StepFailed(f'the select has no option "{text}" (its options: '
                             f'{shown or "none"}{f", and {more} more" if more > 0 else ""})')
        if isinstance(how, str) and how.startswith("not:"):
            focus = how[4:]
            hint = ("a file input takes files: aiTap it with fileChooserAccept: <path>"
                    if focus.endswith("[type=file]")
                    else f"a {focus.split()[0]} field takes no text: a user cannot type "
                         "there either" if focus.startswith(("read-only ", "disabled "))
                    else "a page that reads keys itself takes them with mode: typeOnly")
            tapped = self._tapped_on() if focus == "nothing" else None
            if tapped:
                raise StepFailed(f"no text field took the text: {tapped}")
            raise StepFailed("no text field took the text: " + (
                "nothing has the focus where it tapped" if focus == "nothing"
                else f"the focus is on {_article(focus)} {focus}") + f" ({hint})")
        return how in ("done", "insert", "set")

    def _tapped_on(self) -> str:
        """After a fill that found the focus on nothing: what the tap before it hit, ``the
        target is a <p> "Welcome text", not a text field`` and how the text goes in where it
        may (an element that may read keys itself: a canvas, a tabindex, contenteditable);
        "" when there was no tap or the page cannot tell."""
        from playwright.sync_api import Error as PlaywrightError
        if self._tapped is None or self._page is None:
            return ""
        try:
            hit = self._page.evaluate(TAPPED_JS, list(self._tapped))
        except PlaywrightError as exc:
            log.debug("%s: what the tap hit not read: %s", self.name, first_line(exc))
            return ""
        if not hit:
            return ""
        tag, text, keys = hit
        said = f'the target is {_article(tag)} <{tag}>' + (f' "{text}"' if text else "")
        if keys:
            return (f"{said}, which takes no text as a field does (if it reads keys itself, "
                    "mode: typeOnly types them)")
        return (f"{said}, not a text field: name the field to type into (a page that reads "
                "keys itself takes them with mode: typeOnly)")

    @_action
    def clear_text(self) -> None:
        """Select everything in the focused element and delete it."""
        page = self._acting()
        with self._errors("clear"):
            page.keyboard.press("Control+A")
            page.keyboard.press("Backspace")

    @_action
    def press(self, key: str) -> None:
        """Press ``key`` in the page; a key the browser acts on itself (F5, Alt+Left: a key
        event sent to the page does not do it) is then done as the browser would, unless the
        page prevented it (`scripts.BROWSER_KEYS`)."""
        name = normalize_key(key)
        page = self._acting()
        act = BROWSER_KEYS.get(name)
        try:
            with self._errors(f"press {name}"):
                if act is not None:
                    self._shots.script(page, KEY_WATCH_JS, None)
                page.keyboard.press(name)
                if act is not None:
                    self._unless_navigating(lambda: self._shots.script(page, BROWSER_KEY_JS, act))
        except DeviceError as exc:
            if "Unknown key" in str(exc):  # the suite named a key that does not exist
                raise StepFailed(f"unknown key {key!r}") from exc
            raise

    @_action
    def launch(self, app: str) -> None:
        """On the web an app is a URL: open it in the current page."""
        if self._page is None:
            from farm.suite.model import WebTarget

            w, h = self._viewport
            self.start_session(WebTarget(url=app, viewport_width=w, viewport_height=h))
        else:
            self._goto(app)

    def terminate(self, app: str) -> None:
        """Nothing to stop on the web: the session's context goes at end_session."""

    def run_script(self, code: str, timeout_s: float) -> Any:
        """Midscene's ``javascript:`` step: evaluate ``code`` in the page and return its value.

        An expression is evaluated as such; other code runs as an async function body when it
        has a ``return``, else through indirect eval (value of the last statement).  Promises
        are awaited up to ``timeout_s``; a script still running then, or one that threw, is
        StepFailed; one that holds the page's main thread (a busy loop) is stopped over the
        page's DevTools session then (`javascript.Stopper`) and the page goes on.
        """
        page = self._acting()
        return javascript.run_script(page, code, timeout_s, self._errors, lambda: self._killed,
                                     said=self._step_said,    # (a BigInt kept as a string)
                                     cdp=self._shots.devtools(page))

    # -- health ------------------------------------------------------------------------------

    def healthy(self) -> bool:
        """Browser connected and page not crashed; from other threads only checks the process."""
        if self._killed or self._browser is None:
            return False
        if threading.get_ident() != self._thread:
            return self._pid is not None and alive(self._pid)
        try:
            return bool(self._browser.is_connected()) and not self._crashed
        except Exception:
            return False

    def kill(self) -> None:
        """SIGKILL this device's Chromium and its Playwright driver (any thread): pending
        Playwright calls then fail, a page being set up too (see the module's docstring)."""
        self._killed = True
        self._kill_processes()
        driver = self._driver
        if driver is not None:
            try:
                driver.kill()      # (psutil checks that the pid is still the driver's)
            except psutil.Error:
                pass

    # -- plumbing ----------------------------------------------------------------------------

    def _need_browser(self) -> Any:
        if self._killed:
            raise DeviceLost(f"browser {self.name} crashed or was closed: killed")
        if self._browser is None:
            raise DeviceError(f"browser {self.name} is not open")
        return self._browser

    def _need_page(self) -> Any:
        self._need_browser()
        if self._page is None:
            raise DeviceError(f"browser {self.name} has no session (start_session first)")
        if self._tabs.pending(self._page) and not self._page.is_closed():
            page = self._page
            self._tabs.await_tabs(page, self._browser, self._context,
                                  lambda: self._shots.devtools(page))
        if getattr(self, "_opened", None) is not None:
            self._follow()
        if self._page.is_closed() and self._tab_closed():
            self._back_to_open_tab()
        return self._page

    def _back_to_open_tab(self) -> None:
        """The page closed its own tab (window.close() in a tab it opened): go on in the tab
        opened last of those still open, as a user would; none left fails the step (the
        page's doing: the browser is fine)."""
        context = self._context
        left = [p for p in (context.pages if context is not None else []) if not p.is_closed()]
        if not left:
            raise StepFailed("the page closed its tab (window.close()) and no other tab is "
                             "open")
        log.info("%s: the page closed its tab; going on in %s", self.name, left[-1].url)
        self._adopt_page(left[-1])
        self._shots.attach(left[-1])

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Map Playwright failures: browser gone -> DeviceLost, the page's renderer crashed or
        the page stopped responding (`HangGuard` watches the calls inside), or its tab closed
        under the call by the page itself -> StepFailed, anything else -> DeviceError."""
        with self._hang.watch(what), mapped_errors(self.name, what, lambda: self._killed,
                                                   self._page_gone, self._tab_closed):
            yield

    def _page_gone(self, error: str | None, what: str) -> str | None:
        """Why the case's page is gone while its browser is fine: it stopped responding and
        farm closed it, or its renderer crashed (its "crash" event, or ``error`` saying so
        before the event came; ``error`` None: before a call). None otherwise: a browser that
        died is the device's."""
        if self._hang.hung is not None:
            return self._hang.hung
        if not (self._crashed or "Target crashed" in (error or "")) or self._killed:
            return None
        try:
            up = (self._pid is not None and alive(self._pid) and self._browser is not None
                  and self._browser.is_connected())
        except Exception:
            up = False
        during = f" during {what}" if error is not None else ""
        return f"the page's renderer crashed{during} (out of memory?)" if up else None

    def _page_answers(self, seconds: float) -> bool:
        """(Any thread) Whether the page's main thread ran a trivial script within
        ``seconds``: `HangGuard`'s ping, run on the device thread's Playwright loop, which
        serves it while that thread waits for its own call. No page, or one that failed the
        ping (gone, crashed): no hang to end."""
        import asyncio
        impl = getattr(self._page, "_impl_obj", None)
        if impl is None or self._killed:
            return True
        try:
            ping = asyncio.run_coroutine_threadsafe(impl.evaluate("0", None), impl._loop)
        except Exception as exc:       # its loop closed: the device is closing
            log.debug("%s: no ping: %s", self.name, first_line(exc))
            return True
        try:
            ping.result(seconds)
        except TimeoutError:
            return False
        except Exception:
            pass
        return True

    def _close_hung_page(self) -> bool:
        """(Any thread) Start closing the case's browser context (its hung page and any tab
        it opened): the call waiting on the page then fails. False when it cannot start."""
        import asyncio
        impl = getattr(self._context, "_impl_obj", None)
        if impl is None or self._killed:
            return False
        try:
            asyncio.run_coroutine_threadsafe(impl.close(reason="the page stopped responding"),
                                             impl._loop)
        except Exception as exc:
            log.debug("%s: cannot close the hung page: %s", self.name, first_line(exc))
            return False
        return True

    def _tab_closed(self) -> bool:
        """Whether the active tab is closed while its browser and context are not: the page
        closed it (window.close()). A browser that died (killed, crashed: its process gone,
        even before Playwright has seen its connection drop), or farm closing a page that
        stopped responding, closed it: not the page."""
        page, browser = self._page, self._browser
        try:
            return (page is not None and page.is_closed() and not self._crashed
                    and self._hang.hung is None and not self._killed
                    and self._pid is not None and alive(self._pid)
                    and browser is not None and browser.is_connected()
                    and self._context is not None and self._context.browser is not None)
        except Exception:
            return False


# what a field of each type takes, for a step whose value it refused
FIELD_FORMS = {"date": '"yyyy-mm-dd" (2026-12-03)', "time": '"hh:mm" (07:30) or "hh:mm:ss"',
               "datetime-local": '"yyyy-mm-ddThh:mm" (2026-12-03T07:30)',
               "month": '"yyyy-mm" (2026-12)', "week": '"yyyy-Www" (2026-W49)',
               "color": '"#rrggbb" (#ff0000)', "number": "a number (42, -1.5)"}


def _code_points(text: str, units: int) -> int:
    """How many characters of ``text`` its first ``units`` UTF-16 code units (a page's
    ``.length``) hold: "张三🙂" is 4 units, 3 characters, as the note counts ``text``."""
    if not isinstance(units, int) or text.isascii():
        return units
    return len(text.encode("utf-16-le")[:2 * max(units, 0)].decode("utf-16-le", "ignore"))


def _refused(field: str, text: str, holds: str) -> str:
    """The failure of a fill a date, time, colour, number or range input did not take as
    given: what it holds now and what it takes."""
    kind = field.partition("[type=")[2].rstrip("]")
    takes = FIELD_FORMS.get(kind)
    if kind == "range":
        takes = "a number within its min and max"
    now = f'it holds "{holds}"' if holds else "it is empty"
    return (f'the {field} did not take "{text}" ({now})'
            + (f"; it takes {takes}" if takes else ""))


# What a tap at (x, y) hit: [tag, its text (60 characters), whether it may read keys itself
# (a canvas, a tabindex, contenteditable, or inside one)]; null: the page itself (its body).
TAPPED_JS = """([x, y]) => {
  const e = document.elementFromPoint(x, y);
  if (!e || e === document.body || e === document.documentElement) return null;
  const text = (e.innerText || e.textContent || "").replace(/\\s+/g, " ").trim();
  const keys = !!e.closest("[tabindex], [contenteditable], canvas") || e.isContentEditable;
  return [e.tagName.toLowerCase(), text.length > 60 ? text.slice(0, 59) + "…" : text, keys];
}"""


def no_display(settings: Any, env: Any = None) -> str | None:
    """Why a visible browser (FARM_HEADLESS=false) cannot start here: on Linux with neither
    $DISPLAY nor $WAYLAND_DISPLAY set (Playwright's launch failed with "Target page, context
    or browser has been closed", its first line, the display named only further down)."""
    env = os.environ if env is None else env
    if getattr(settings, "headless", True) or not sys.platform.startswith("linux") \
            or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return ("a visible browser (FARM_HEADLESS=false) needs a display: $DISPLAY is not set "
            "(run headless, or under xvfb-run)")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _driver_of(browser: psutil.Process | None) -> psutil.Process | None:
    """The Playwright driver that launched ``browser``: its parent, a child of this process
    (each device starts a driver of its own)."""
    try:
        driver = browser.parent() if browser is not None else None
        return driver if driver is not None and driver.ppid() == os.getpid() else None
    except psutil.Error:
        return None


def _in_viewport(rect: Rect, w: int, h: int) -> Rect | None:
    """The part of ``rect`` inside the w x h viewport; None when none of it is."""
    left, top = max(rect.x, 0), max(rect.y, 0)
    right, bottom = min(rect.x + rect.width, w), min(rect.y + rect.height, h)
    if right <= left or bottom <= top:
        return None
    return Rect(x=left, y=top, width=right - left, height=bottom - top)


def _ms_until(limit: float) -> float:
    """Playwright's timeout (ms) of a wait that ends at ``limit`` (monotonic): at least 1 ms
    (its 0 means no limit at all)."""
    return max(1.0, (limit - time.monotonic()) * 1000)
