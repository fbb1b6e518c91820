"""BrowserDevice: one device slot = one Chromium process driven by Playwright's sync API.

Threading: every method except `kill` (and `healthy`, which degrades to a process check) runs
on the thread that called `open` -- Playwright's sync API is bound to that thread.  `kill` only
uses psutil, so a watchdog or Ctrl-C handler can call it while the device thread is blocked in
a Playwright call; that call then fails and surfaces as DeviceLost.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from farm.devices.base import Rect, UINode, UITree
from farm.devices.chromium import BROWSER_FLAGS, ChromiumInfo, find_chromium
from farm.devices.keys import normalize_key
from farm.devices.procs import alive, find_marked_process, kill_tree
from farm.errors import CaseTimeout, DeviceError, DeviceLost, FarmError, StepFailed
from farm.text import clean, clean_json

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings
    from farm.suite.model import WebTarget

log = logging.getLogger(__name__)

MAX_NODES = 5000


def _read_js(name: str) -> str:
    """A function expression shipped beside this module, minus its leading comment lines
    (Playwright decides whether a string is a function by how it starts)."""
    lines = Path(__file__).with_name(name).read_text(encoding="utf-8").splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("//")):
        lines.pop(0)
    return "\n".join(lines)


# The walker's result goes back as ONE JSON string: Playwright's structured serialisation of
# thousands of small objects costs seconds, a string costs milliseconds.
DOM_JS = "(maxNodes) => JSON.stringify((\n" + _read_js("dom.js") + "\n)(maxNodes))"
XPATH_JS = _read_js("xpath.js")
RUN_JS = _read_js("run_script.js")
PAGE_STATE_JS = _read_js("page_state.js")
# The same walk, skipped when the page's change counter (page_state.js) still has the value of
# the last walk: a run of checks on an unchanged page walks the DOM once.
TREE_JS = ("([maxNodes, last]) => { const s = window.__farm;\n"
           "  const token = s ? performance.timeOrigin + ':' + s.gen : null;\n"
           "  if (token !== null && token === last) return 'same';\n"
           "  const out = (\n" + _read_js("dom.js") + "\n)(maxNodes);\n"
           "  out.token = token; return JSON.stringify(out); }")
# [navigating?, readyState, change token]; ``settle`` first lets tasks an action queued run
# (a form submission starts its navigation from a task).
STATE_JS = """async (settle) => {
  if (settle) await new Promise((resolve) => setTimeout(resolve, 0));
  const s = window.__farm;
  return [s ? s.leaving : false, document.readyState,
          s ? performance.timeOrigin + ':' + s.gen : null];
}"""
# Replace the focused field's content: selected, then the value inserted as an input method
# would ("done"; "insert" when the browser refused, so Python inserts it); inputs that take no
# typed text get their value set ("set"); null: nothing fillable has the focus.
FOCUSED_FILL_JS = """(value) => {
  const insert = () => document.execCommand(value ? "insertText" : "delete", false, value)
    ? "done" : "insert";
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el.disabled || el.readOnly) return null;
  if (el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
    return insert();
  }
  if (el instanceof HTMLTextAreaElement) { el.select(); return insert(); }
  if (!(el instanceof HTMLInputElement)) return null;
  if (["", "text", "search", "email", "url", "tel", "password", "number"].includes(el.type)) {
    el.select(); return insert();
  }
  if (["checkbox", "radio", "file", "button", "submit", "reset", "image"].includes(el.type)) {
    return null;
  }
  el.value = value;
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return "set";
}"""
EVIDENCE_QUALITY = 70        # JPEG quality of report screenshots, encoded by Chromium
SCROLL_JS = """(i) => { const el = (window.__farmNodes || [])[i];
  if (!el || !el.isConnected) return false;
  el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  if (window.__farm) window.__farm.gen++;  // the scroll event comes a frame later
  return true; }"""
EVIDENCE_OPTIONS = {"type": "jpeg", "quality": EVIDENCE_QUALITY, "scale": "css",
                    "caret": "initial", "timeout": 10_000}

# Playwright error texts meaning the browser (or its driver) is gone, not that an action failed.
_LOST = re.compile(r"has been closed|browser has disconnected|target closed|crash|"
                   r"connection closed|pipe closed|websocket|driver .*(exited|closed)", re.I)
# A DOM read that raced a navigation: the old document went away under it.
_NAVIGATING = re.compile(r"Execution context was destroyed|Cannot find context|"
                         r"navigat|frame was detached", re.I)
# Strip string literals before looking for `return`, so "#return-btn" does not count.
_STRINGS = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:\\.|[^`\\])*`", re.S)
_RETURN = re.compile(r"\breturn\b")


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


def _first_line(exc: BaseException) -> str:
    text = clean(str(exc)).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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
        self._killed = False
        self._crashed = False
        self.open_seconds: float | None = None        # how long the last open() took
        self.hierarchy_seconds: float | None = None   # how long the last hierarchy() took
        self.last_observation: str | None = None      # "tree" once a step read the DOM
        self.navigation_timeout = 30.0                # how long a DOM read waits for a new page
        self._may_navigate = False                    # an action ran since the last settle
        self._nav_requests: set[Any] = set()          # main-frame navigation requests in flight
        self._tree: tuple[str, UITree] | None = None  # (change token, tree) of the last walk
        self._capture: Any = None                     # an evidence capture still under way
        self._shown: str | None = None                # change token of the last evidence image
        self._chrome_args: tuple[str, ...] = ()       # a case's chromeArgs Chromium runs with
        self._follow_new_pages = True
        self._opened: Any = None                      # a new tab to follow (autoFollowNewPage)

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def marker(self) -> str:
        """Command-line switch that identifies this device's Chromium among our children."""
        return f"--farm-device={self.name}"

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
        try:
            self._pw = sync_playwright().start()
            self._browser = self._pw.chromium.launch(
                executable_path=info.path,
                headless=self.settings.headless,
                args=[*BROWSER_FLAGS, *self.settings.browser_args, *self._chrome_args,
                      self.marker],
                timeout=60_000,
            )
        except (PlaywrightError, OSError, RuntimeError) as exc:
            self.close()
            if "inside the asyncio loop" in str(exc):
                # A thread already runs a sync Playwright (another device) or an asyncio loop.
                raise DeviceError(f"cannot open {self.name}: Playwright's sync API allows one "
                                  "BrowserDevice per thread (and none on a thread running an "
                                  "asyncio loop): open each device on its own thread") from exc
            raise DeviceError(f"cannot launch Chromium {info.path} for {self.name}: "
                              f"{_first_line(exc)}") from exc
        proc = find_marked_process(self.marker)
        self._pid = proc.pid if proc else None
        self.open_seconds = time.monotonic() - started
        log.debug("%s: Chromium %s pid %s up in %.2fs", self.name, info.version, self._pid,
                  self.open_seconds)

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
                log.debug("%s: ignoring error during close: %s", self.name, _first_line(exc))
        # Belt and braces: never leave an orphaned Chromium behind (the driver normally
        # reaps it, but a hung browser would otherwise survive the run).
        self._kill_processes()
        self._pid = None

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
        with self._errors("new context"):
            self._context = browser.new_context(**_context_options(target))
            self._context.add_init_script(script=PAGE_STATE_JS)
            if target.cookies:
                self._context.add_cookies([_cookie(c) for c in target.cookies])
            if target.same_tab:     # forceSameTabNavigation: links and window.open stay here
                self._context.add_init_script(SAME_TAB_JS)
            self._context.on("page", self._new_page)
            self._adopt_page(self._context.new_page())
        self._goto(target.url)
        if target.network_idle_ms:
            self.wait_network_idle(target.network_idle_ms,
                                   raise_on_timeout=not target.network_idle_continue)

    def _new_page(self, page: Any) -> None:
        """A tab the page opened: a browser agent with autoFollowNewPage works in it, once it
        has loaded (taken over on the next use of the page, not inside this event)."""
        if self._follow_new_pages:
            self._opened = page

    def _follow(self) -> None:
        page, self._opened = self._opened, None
        try:
            page.wait_for_load_state("load", timeout=self.navigation_timeout * 1000)
        except Exception as exc:     # closed or still loading: the next read says what is wrong
            log.debug("%s: new tab not loaded: %s", self.name, _first_line(exc))
        self._adopt_page(page)

    def wait_network_idle(self, timeout_ms: int, raise_on_timeout: bool = False) -> None:
        """waitForNetworkIdle: wait until no request was in flight for 500 ms."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        page = self._need_page()
        try:
            page.wait_for_load_state("networkidle", timeout=timeout_ms)
        except PlaywrightTimeout:
            if raise_on_timeout:
                raise StepFailed(f"the network did not go idle within {timeout_ms} ms "
                                 "(waitForNetworkIdle, continueOnNetworkIdleError: false)")
        except Exception as exc:
            with self._errors("wait for network idle"):
                raise exc

    def end_session(self) -> None:
        """Close the case's context; ignores errors when the browser is already dead."""
        self._drop_capture()
        self._tree, self._may_navigate, self._shown = None, False, None
        self._nav_requests.clear()
        context, self._context, self._page, self._opened = self._context, None, None, None
        if context is not None:
            try:
                context.close()
            except Exception as exc:
                log.debug("%s: ignoring error closing context: %s", self.name, _first_line(exc))

    def _adopt_page(self, page: Any) -> None:
        if page is self._page:  # new_page() also fires the context's "page" event
            return
        self._page = page
        self._crashed = False
        self._tree = None
        self._nav_requests.clear()
        page.on("crash", self._on_crash)
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_request_done)
        page.on("requestfailed", self._on_request_done)

    def _on_request(self, request: Any) -> None:
        try:
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self._nav_requests.add(request)
        except Exception:   # a service worker's request has no frame: not a navigation
            pass

    def _on_request_done(self, request: Any) -> None:
        self._nav_requests.discard(request)

    def _on_crash(self, _page: Any) -> None:
        self._crashed = True

    def _goto(self, url: str) -> None:
        page = self._acting()
        # the message names the URL and Playwright's net::ERR_... reason
        with self._errors(f"open {url}"):
            page.goto(url, wait_until="load")

    # -- observation -------------------------------------------------------------------------

    def size(self) -> tuple[int, int]:
        """Viewport size in CSS pixels."""
        if self._page is not None and self._page.viewport_size:
            vs = self._page.viewport_size
            return (vs["width"], vs["height"])
        return self._viewport

    def screenshot(self) -> bytes:
        """PNG of the viewport, in CSS pixels (so it matches tap coordinates at any DPR)."""
        from playwright.sync_api import Error as PlaywrightError

        page = self._need_page()
        if self._may_navigate:
            self._settled(page)
        with self._errors("screenshot"):
            # While a navigation or redirect is under way a capture fails ("Unable to capture
            # screenshot", "Not attached to an active page") or stalls until Playwright's 30 s
            # timeout: wait for the document, keep each try short, and try again.
            for attempt, limit_ms in ((1, 1500), (2, 3000), (3, 10000)):
                try:
                    page.wait_for_load_state("load", timeout=limit_ms)
                    return page.screenshot(type="png", scale="css", caret="initial",
                                           timeout=limit_ms)
                except PlaywrightError as exc:
                    if attempt == 3 or _LOST.search(_first_line(exc)) or self._killed:
                        raise
                    page.wait_for_timeout(300)
            raise AssertionError("unreachable")

    def capture_evidence(self) -> Callable[[], bytes | None]:
        """Start an image of the viewport for the report and return at once; calling the
        result gives the JPEG (encoded by Chromium, CSS pixels), or None when the page has not
        changed since the last image (nothing was captured).

        The job runs on Playwright's event loop while farm goes on (the next step reads the
        page meanwhile): it waits for a navigation the step started, reads the page's change
        token and captures only a changed page. The next action waits for it first, so the
        image never shows what that action did."""
        page = self._need_page()
        self._drop_capture()
        task = _start_in_background(page, lambda impl: self._evidence_job(impl, self._shown))
        if task is None:      # this Playwright has no such internals: do it now
            token = self.frame_token()
            if token is not None and token == self._shown:
                return lambda: None
            with self._errors("screenshot"):
                try:
                    page.wait_for_load_state("load", timeout=1500)
                except Exception as exc:   # still loading: capture what is there
                    log.debug("%s: capturing before load: %s", self.name, _first_line(exc))
                data = page.screenshot(**EVIDENCE_OPTIONS)
            self._shown = token
            return lambda: data
        self._capture = (page, task)
        return lambda: self._finish_capture(page, task)

    async def _evidence_job(self, impl: Any, last: str | None) -> bytes | None:
        loop = asyncio.get_running_loop()
        limit, settle = loop.time() + self.navigation_timeout, True
        while True:      # as _settled, on the loop: wait for a navigation the step started
            try:
                leaving, ready, token = await impl.evaluate(STATE_JS, settle)
            except Exception as exc:
                if not _NAVIGATING.search(str(exc)) or _LOST.search(_first_line(exc)):
                    raise
                leaving, ready, token = True, "loading", None
            settle = False
            if (not leaving and ready != "loading") or loop.time() > limit or (
                    leaving and ready != "loading" and not self._nav_requests):
                break
            await asyncio.sleep(0.025)
        if token is not None and token == last:
            return None
        try:
            await impl.wait_for_load_state("load", 1500)
        except Exception as exc:   # still loading: capture what is there
            log.debug("%s: capturing before load: %s", self.name, _first_line(exc))
        data = await impl.screenshot(**_impl_args(impl.screenshot, EVIDENCE_OPTIONS))
        self._shown = token
        return data

    def _finish_capture(self, page: Any, task: Any) -> bytes | None:
        if self._capture is not None and self._capture[1] is task:
            self._capture = None
        with self._errors("screenshot"):
            if not task.done():
                page._sync(task)
            return task.result()

    def _settle_capture(self) -> None:
        """Before an action: let a capture still under way finish (its image is kept)."""
        if self._capture is not None:
            page, task = self._capture
            try:
                self._finish_capture(page, task)
            except FarmError as exc:   # evidence is best effort; the runner sees the failure
                log.debug("%s: capture failed: %s", self.name, exc)

    def _drop_capture(self) -> None:
        if self._capture is not None:
            self._capture = None

    def frame_token(self) -> str | None:
        """Wait for a navigation an action started, then a token that stays the same while the
        page shows the same thing (None when unknown)."""
        return self._settled(self._need_page())

    def _settled(self, page: Any) -> str | None:
        """Wait until no navigation is under way and the document is parsed (within
        ``navigation_timeout``); return the page's change token."""
        limit = time.monotonic() + self.navigation_timeout
        stuck_since: float | None = None
        settle = self._may_navigate
        while True:
            with self._errors("wait for the page"):
                try:
                    leaving, ready, token = page.evaluate(STATE_JS, settle)
                except Exception as exc:
                    if not _NAVIGATING.search(str(exc)) or _LOST.search(_first_line(exc)):
                        raise
                    leaving, ready, token = True, "loading", None
            settle = False
            if not leaving and ready != "loading":
                self._may_navigate = False
                return token
            now = time.monotonic()
            if leaving and ready != "loading" and not self._nav_requests:
                # unloading began but no navigation came of it (a download, a 204): go on
                stuck_since = stuck_since or now
                if now - stuck_since > 1.0:
                    self._may_navigate = False
                    return None
            else:
                stuck_since = None
            if now > limit:
                raise StepFailed(f"the page was still loading after "
                                 f"{self.navigation_timeout:g}s")
            with self._errors("wait for the page"):
                page.wait_for_timeout(25)

    def hierarchy(self) -> UITree:
        """The rendered DOM as a UITree, collected in one page.evaluate (not walked again while
        the page has not changed since the last walk)."""
        page = self._need_page()
        started = time.monotonic()
        last = self._tree[0] if self._tree else None
        raw = self._evaluate_settled(page, TREE_JS, [MAX_NODES, last], what="read the DOM")
        self.last_observation = "tree"
        if raw == "same" and self._tree is not None:
            self.hierarchy_seconds = time.monotonic() - started
            return self._tree[1]
        raw = clean_json(raw)
        nodes = [UINode.model_validate(n) for n in raw["nodes"]]
        self.hierarchy_seconds = time.monotonic() - started
        if raw.get("truncated"):
            log.info("%s: DOM has more than %d rendered elements; tree truncated", self.name,
                     MAX_NODES)
        tree = UITree(source="dom", nodes=nodes, page_text=raw.get("pageText") or "")
        self._tree = (raw["token"], tree) if raw.get("token") else None
        return tree

    def query_xpath(self, xpath: str) -> list[Rect]:
        """Viewport rects of rendered elements matching ``xpath``; bad XPath -> StepFailed."""
        page = self._need_page()
        res = clean(self._evaluate_settled(page, XPATH_JS, xpath, what="evaluate XPath"))
        if "error" in res:
            raise StepFailed(f"invalid XPath {xpath!r}: {res['error']}")
        return [Rect(x=r[0], y=r[1], width=r[2], height=r[3]) for r in res["rects"]]

    def _evaluate_settled(self, page: Any, js: str, arg: Any, what: str) -> Any:
        """Evaluate a read-only script once no navigation is under way. After an action that
        may have navigated, wait for that navigation first; a read that still races one (the
        old document goes away under it) waits for the new document and reads again."""
        from playwright.sync_api import Error as PlaywrightError

        if self._may_navigate:
            self._settled(page)
        limit = time.monotonic() + self.navigation_timeout
        while True:
            with self._errors(what):
                try:
                    return page.evaluate(js, arg)
                except PlaywrightError as exc:
                    if (not _NAVIGATING.search(str(exc)) or _LOST.search(_first_line(exc))
                            or time.monotonic() > limit):
                        raise
            self._settled(page)

    # -- actions -----------------------------------------------------------------------------

    def _acting(self) -> Any:
        """The page, for an action: a capture under way finishes first (it shows the screen
        before this action), and the next DOM read waits for any navigation it starts."""
        page = self._need_page()
        self._settle_capture()
        self._may_navigate = True
        return page

    def tap(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("tap"):
            page.mouse.click(x, y)

    def double_tap(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("double tap"):
            page.mouse.dblclick(x, y)

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        page = self._acting()
        with self._errors("long press"):
            page.mouse.move(x, y)
            page.mouse.down()
            page.wait_for_timeout(duration_ms)
            page.mouse.up()

    def hover(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("hover"):
            page.mouse.move(x, y)

    def right_click(self, x: int, y: int) -> None:
        page = self._acting()
        with self._errors("right click"):
            page.mouse.click(x, y, button="right")

    def tap_choosing_files(self, x: int, y: int, files: list[str]) -> None:
        """Click at (x, y), which must open a file chooser, and give it ``files``
        (aiTap fileChooserAccept)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        page = self._acting()
        try:
            with self._errors("tap for a file chooser"):
                with page.expect_file_chooser(timeout=5000) as chooser:
                    page.mouse.click(x, y)
                chooser.value.set_files(files)
        except PlaywrightTimeout:
            raise StepFailed("the tap opened no file chooser within 5 s "
                             "(fileChooserAccept)") from None

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

    def scroll(self, x: int, y: int, dx: int, dy: int) -> None:
        """Wheel-scroll by (dx, dy) CSS px over (x, y), then let smooth scrolling settle."""
        page = self._acting()
        with self._errors("scroll"):
            page.mouse.move(x, y)
            page.mouse.wheel(dx, dy)
            page.wait_for_timeout(100)

    def scroll_into_view(self, node: UINode) -> bool:
        """Scroll node (of the last `hierarchy`) to the middle of the viewport, every
        scrolling ancestor included, as Playwright's scrollIntoViewIfNeeded does."""
        page = self._acting()
        with self._errors("scroll into view"):
            return bool(page.evaluate(SCROLL_JS, node.id))

    def type_text(self, text: str) -> None:
        """Key by key (real key events: what `mode: typeOnly` asks for)."""
        page = self._acting()
        with self._errors("type"):
            page.keyboard.type(text)

    def fill(self, text: str) -> bool:
        """Replace the focused field's content with ``text`` in one go: its content selected,
        then the text inserted as an input method would (input events, no key events; a date
        or colour input gets its value set). False when nothing fillable has the focus."""
        page = self._acting()
        with self._errors("fill"):
            how = page.evaluate(FOCUSED_FILL_JS, text)
            if how == "insert":      # execCommand refused: the same through the driver
                if text:
                    page.keyboard.insert_text(text)
                else:
                    page.keyboard.press("Delete")
        return how in ("done", "insert", "set")

    def clear_text(self) -> None:
        """Select everything in the focused element and delete it."""
        page = self._acting()
        with self._errors("clear"):
            page.keyboard.press("Control+A")
            page.keyboard.press("Backspace")

    def press(self, key: str) -> None:
        name = normalize_key(key)
        page = self._acting()
        try:
            with self._errors(f"press {name}"):
                page.keyboard.press(name)
        except DeviceError as exc:
            if "Unknown key" in str(exc):  # the suite named a key that does not exist
                raise StepFailed(f"unknown key {key!r}") from exc
            raise

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
        are awaited up to ``timeout_s`` (CaseTimeout); a thrown error is StepFailed.
        """
        from playwright.sync_api import Error as PlaywrightError

        page = self._acting()
        ms = max(1, int(timeout_s * 1000))
        # Expression first (what Midscene's page.evaluate does); if that does not parse, a
        # top-level `return` means a function body, anything else is a script for eval.
        expr = code.strip().rstrip(";").strip() or "undefined"
        has_return = bool(_RETURN.search(_STRINGS.sub("''", code)))
        producers = ["async () => (\n" + expr + "\n)",
                     "async () => {\n" + code + "\n}" if has_return
                     else "async () => (0, eval)(code)"]
        res: Any = None
        for i, producer in enumerate(producers):
            with self._errors("javascript"):
                try:
                    res = clean(page.evaluate(RUN_JS.replace("__PRODUCER__", producer),
                                              [ms, code]))
                    break
                except PlaywrightError as exc:
                    msg = str(exc)
                    if _LOST.search(_first_line(exc)) or self._killed:
                        raise  # _errors makes it DeviceLost
                    if "SyntaxError" in msg and i + 1 < len(producers):
                        continue  # parse error, nothing ran: try the next form
                    if "Execution context was destroyed" in msg:
                        return None  # the script navigated away: that was its effect
                    # a parse error in the last form, or anything else: the suite's code
                    detail = _first_line(exc).removeprefix("Page.evaluate: ")
                    raise StepFailed(f"javascript error: {detail}") from exc
        if res.get("timeout"):
            raise CaseTimeout(f"javascript did not finish within {timeout_s:g}s")
        if "error" in res:
            raise StepFailed(f"javascript error: {res['error']}")
        if "str" in res:
            return res["str"]
        return clean_json(res["json"])

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
        """SIGKILL this device's Chromium (any thread); pending Playwright calls then fail."""
        self._killed = True
        self._kill_processes()

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
        if getattr(self, "_opened", None) is not None:
            self._follow()
        return self._page

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Map Playwright failures: browser gone -> DeviceLost, anything else -> DeviceError."""
        from playwright.sync_api import Error as PlaywrightError

        if self._killed:
            raise DeviceLost(f"browser {self.name} crashed or was closed: killed")
        try:
            yield
        except FarmError:
            raise
        except PlaywrightError as exc:
            msg = _first_line(exc)
            if self._killed or self._crashed or _LOST.search(msg):
                raise DeviceLost(f"browser {self.name} crashed or was closed: {msg}") from exc
            raise DeviceError(f"{what} failed on {self.name}: {msg}") from exc
        except Exception as exc:
            # After a kill the driver may fail in odd ways (greenlet, broken pipe): all lost.
            if self._killed:
                raise DeviceLost(f"browser {self.name} crashed or was closed: "
                                 f"{_first_line(exc)}") from exc
            raise



# forceSameTabNavigation (Midscene's page agents): a link with a target and window.open load
# in the current tab instead of a new one.
SAME_TAB_JS = """
(() => {
  document.addEventListener('click', (e) => {
    const a = e.target && e.target.closest ? e.target.closest('a[target]') : null;
    if (a && a.target !== '_self') a.target = '_self';
  }, true);
  window.open = function (url) { if (url) window.location.href = url; return window; };
})();
"""


def _context_options(target: "WebTarget") -> dict[str, Any]:
    options: dict[str, Any] = {
        "viewport": {"width": target.viewport_width, "height": target.viewport_height},
        "device_scale_factor": target.device_scale_factor or 1,
        "ignore_https_errors": target.accept_insecure_certs,
    }
    if target.user_agent:
        options["user_agent"] = target.user_agent
    if target.extra_http_headers:
        options["extra_http_headers"] = dict(target.extra_http_headers)
    return options


def _cookie(c: dict[str, Any]) -> dict[str, Any]:
    """A cookie as Chrome extensions export it -> Playwright's form."""
    out: dict[str, Any] = {"name": str(c["name"]), "value": str(c["value"])}
    if c.get("url"):
        out["url"] = c["url"]
    else:
        out["domain"] = c.get("domain") or "localhost"
        out["path"] = c.get("path") or "/"
    expires = c.get("expires", c.get("expirationDate"))
    if isinstance(expires, (int, float)) and expires > 0:
        out["expires"] = float(expires)
    for key in ("httpOnly", "secure"):
        if key in c:
            out[key] = bool(c[key])
    same = str(c.get("sameSite", "")).lower()
    if same in ("strict", "lax", "none", "no_restriction"):
        out["sameSite"] = {"no_restriction": "None"}.get(same, same.capitalize())
    return out
