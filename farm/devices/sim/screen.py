"""Simulated phone screens: one headless Chromium backs every screen of a simulator, one
browser context per device (its own storage, like an app's data dir).

The adb and WDA servers answer from many threads; Playwright's async API runs on one event-loop
thread here and every call is handed to it with `run_coroutine_threadsafe`.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import html
import json
import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Coroutine
from urllib.parse import urlsplit

from farm.devices.chromium import BROWSER_FLAGS, driver_end_seen, find_chromium
from farm.devices.sim.page_dialogs import PageDialogs

log = logging.getLogger(__name__)
Point = tuple[float, float]

# the visual viewport: where the layout viewport's CSS pixels land on the screen
VIEWPORT_JS = ("({scale: visualViewport.scale, left: visualViewport.offsetLeft, "
               "top: visualViewport.offsetTop})")

# What scrolls, read right after dom.js's walk (which leaves its elements in __farmNodes): the
# page itself and each element whose overflow scrolls and holds more than it shows, by node id;
# "y" up and down, "x" sideways. A phone's tree says so (uiautomator's scrollable="true").
SCROLL_JS = """() => {
  const ways = (el, style, w, h) => (el.scrollHeight > h + 1 && /auto|scroll|overlay/
    .test(style.overflowY) ? "y" : "") + (el.scrollWidth > w + 1 && /auto|scroll|overlay/
    .test(style.overflowX) ? "x" : "");
  const nodes = {};
  (window.__farmNodes || []).forEach((el, i) => {
    if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) return;
    const way = ways(el, el.ownerDocument.defaultView.getComputedStyle(el), el.clientWidth,
                     el.clientHeight);
    if (way) nodes[i] = way;
  });
  const page = document.scrollingElement || document.documentElement;
  if (!page) return {nodes, page: ""};    // a new document with no element yet (navigating)
  const shown = getComputedStyle(page);
  const free = (v) => v !== "hidden" && v !== "clip";
  return {nodes, page: (page.scrollHeight > innerHeight + 1 && free(shown.overflowY) ? "y" : "")
    + (page.scrollWidth > innerWidth + 1 && free(shown.overflowX) ? "x" : "")};
}"""

# What a read-only or disabled text field holds (dom.js gives the value of editable ones only),
# by node id: a phone's tree shows it (an EditText's text, a WDA value) greyed out or not.
LOCKED_VALUES_JS = """() => {
  const values = {};
  (window.__farmNodes || []).forEach((el, i) => {
    const field = el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement
      && ["text", "search", "email", "url", "tel", "number"].includes(el.type));
    if (field && el.value && (el.disabled || el.readOnly)) values[i] = el.value;
  });
  return values;
}"""

# Text fields as WDA's element endpoints see them: the one with the keyboard focus (a field a
# keyboard types into, not a picker), kept by id until its page goes; text inserted at the caret
# as an input method does (beforeinput/input events, no key events), or everything deleted.
FIELD_JS = """([op, id, text]) => {
  const fields = window.__wdaFields || (window.__wdaFields = new Map());
  if (op === "active" || op === "editing") {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    const typed = el && !el.disabled && !el.readOnly && (el.isContentEditable ||
      el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement &&
      ["", "text", "search", "email", "url", "tel", "password", "number"].includes(el.type)));
    if (op === "editing") return !!typed;
    if (!typed) return null;
    for (const [known, field] of fields) if (field === el) return known;
    fields.set(id, el);
    return id;
  }
  const el = fields.get(id);
  if (op === "redraw" && el && el.isConnected) {    // the app draws the field anew: same look,
    const drawn = el.cloneNode(true);             // value and focus, another object
    drawn.value = el.value;
    el.replaceWith(drawn);
    drawn.focus();
    return "stale";
  }
  if (!el || !el.isConnected) return "stale";
  if (op === "value") return {value: el.isContentEditable ? el.innerText : el.value};
  if (document.activeElement !== el && !el.contains(document.activeElement)) el.focus();
  if (text === null) {
    if (el.isContentEditable) getSelection().selectAllChildren(el); else el.select();
    return document.execCommand("delete") ? "done" : "insert";
  }
  if (!text) return "done";
  return document.execCommand("insertText", false, text) ? "done" : "insert";
}"""


def _scrolling(dom: dict[str, Any], scroll: dict[str, Any],
               locked: dict[str, str] | None = None) -> dict[str, Any]:
    """``dom`` with what SCROLL_JS found scrolls: ``scroll`` on its nodes, ``page_scroll``;
    and the ``value`` LOCKED_VALUES_JS read of read-only and disabled fields."""
    ways = scroll.get("nodes") or {}
    for node in dom.get("nodes") or []:
        way = ways.get(str(node["id"]))
        if way:
            node["scroll"] = way
        value = (locked or {}).get(str(node["id"]))
        if value and not node.get("value"):
            node["value"] = value
    dom["page_scroll"] = scroll.get("page") or ""
    return dom


async def _page_point(page: Any, x: float, y: float) -> tuple[float, float, float]:
    """A point of the screen (CSS pixels of the phone) as the page's mouse takes it, relative
    to the layout viewport, and the zoom. They differ on a zoomed-out page (no viewport meta
    tag: laid out 980 px wide, shown at ~0.4), where the tree and the screenshot show the
    zoomed page, so a tap must land where the screen shows the element (the inverse of
    trees.on_screen)."""
    vp = await page.evaluate(VIEWPORT_JS)
    scale = vp.get("scale") or 1.0
    return x / scale + (vp.get("left") or 0.0), y / scale + (vp.get("top") or 0.0), scale


HOME_HTML = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Home</title></head><body style="margin:0;background:#1d2733;color:#fff;
font:16px sans-serif"><div style="padding:48px 24px"><h1 style="font-weight:300">Home</h1>
<p>farm simulated device {name}</p></div></body></html>"""

# what a phone's browser shows for a page that does not load (the net::ERR_... reason)
BROWSER_ERROR_HTML = """<!doctype html><html><head><meta name="viewport"
content="width=device-width"><title>{host}</title></head><body style="margin:0;
font:16px sans-serif"><div style="padding:48px 24px"><h1 style="font-weight:400">This site
can’t be reached</h1><p>{host}</p><p>{reason}</p></div></body></html>"""


@dataclass
class Faults:
    """Fault switches of one simulated device. A value is how many more requests it hits
    (-1: until switched off, 0: off)."""

    drop: int = 0            # close the connection without answering (device gone)
    black: int = 0           # screencap/screenshot returns an all-black frame (FLAG_SECURE)
    idle: int = 0            # uiautomator dump: "could not get idle state"
    null_root: int = 0       # uiautomator dump: "null root node returned by ...", no file
    empty_tree: int = 0      # uiautomator dump / WDA source: no nodes
    slow: int = 0            # screencap/screenshot takes `slow_seconds` longer
    invalid_session: int = 0  # WDA: every session id is rejected as "invalid session id"
    input_blocked: int = 0   # input commands print a SecurityException on stderr, change nothing
    launch_fail: int = 0     # launching an app crashes it at once (it never comes to the front)
    crash: int = 0           # the app in front crashes at the next tap, swipe, key or text
    offline: int = 0         # adb lists the phone "offline" and refuses it (a replugged cable)
    keyboard_stuck: int = 0  # WDA cannot dismiss the keyboard (an iPhone's has no hide key)
    redraw: int = 0          # WDA: the app draws the field an element request names anew just
    #                          before it (its id goes stale: re-rendered between find and /value)
    permission_dialog: int = 0  # an app launched asks for a runtime permission: the system's
    #                             dialog (iOS: SpringBoard's alert) is in front until answered
    locked: int = 0          # WDA: the iPhone's screen is locked (its lock screen) until
    #                          `/wda/unlock`; no app launches behind it
    passcode: int = 0        # WDA: a passcode guards the lock screen: `/wda/unlock` fails
    unavailable: int = 0     # WDA: what stands in front of it answers 503 with an HTML page
    #                          (WDA restarting behind a proxy or a device cloud's gateway)
    slow_seconds: float = 3.0
    names: tuple[str, ...] = field(default=("drop", "black", "idle", "empty_tree", "slow",
                                            "invalid_session", "input_blocked", "launch_fail",
                                            "crash", "offline", "keyboard_stuck",
                                            "redraw", "null_root", "permission_dialog",
                                            "locked", "passcode", "unavailable"),
                                   repr=False)

    def hit(self, name: str) -> bool:
        """True if fault ``name`` applies to this request (and use one of its shots)."""
        left = getattr(self, name)
        if left == 0:
            return False
        if left > 0:
            setattr(self, name, left - 1)
        return True

    def set(self, name: str, value: int | float) -> None:
        """Switch a fault: ``value`` requests (-1 forever, 0 off); slow_seconds takes seconds."""
        if name not in self.names and name != "slow_seconds":
            raise KeyError(f"unknown fault {name!r}; known: {', '.join(self.names)}")
        setattr(self, name, float(value) if name == "slow_seconds" else int(value))

    def active(self) -> dict[str, int]:
        return {n: getattr(self, n) for n in self.names if getattr(self, n)}


class PhoneScreen:
    """One simulated device's screen: the foreground app's page (or the home screen).

    Sizes are CSS pixels; ``dpr`` maps them to the device's physical pixels.
    """

    def __init__(self, host: "ScreenHost", name: str, width: int, height: int, dpr: float,
                 user_agent: str) -> None:
        self.host, self.name = host, name
        self.width, self.height, self.dpr = width, height, dpr
        self.user_agent = user_agent
        self.faults = Faults()
        self.app: str | None = None          # package / bundle id in the foreground
        self._context: Any = None
        self._page: Any = None
        self._cdp: tuple[Any, Any] | None = None   # (page, its CDP session) for captures
        # apps in the background (Home, another app launched): their pages, kept where they
        # were, as a phone keeps an app's task until it is force-stopped
        self._background: dict[str, Any] = {}
        self.lock = threading.Lock()         # one input at a time, like a touch screen
        # pages' JavaScript dialogs held open until answered (`PageDialogs`: the iPhone's);
        # None: Playwright dismisses them at once
        self.dialogs: PageDialogs | None = None
        self._last_shot: bytes | None = None   # what a page blocked by its dialog shows

    # Each public method runs a coroutine on the host's loop and waits for it (or, with
    # dialogs held, until a dialog opens on the page in front: None then).
    def _run(self, coro: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
        if self.dialogs is not None:
            return self.host.run(self.dialogs.unless_opened(lambda: self._page, coro), timeout)
        return self.host.run(coro, timeout)

    def _switch(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run what changes the app in front (home, a launch, a stop, a data reset, the
        browser opening a URL) to its end, even while the page in front holds a dialog: a
        phone's dialog stays with its app's page (in the background, or gone when the app
        ends). Held by it (`_run`), a launch after a case that left a confirm() up never
        happened: WDA named the app in front while the screen showed the last capture."""
        return self.host.run(coro, 30)

    def dialog(self) -> Any | None:
        """The JavaScript dialog open on the page in front (held: `dialogs`), or None."""
        return self.dialogs.on(self._page) if self.dialogs is not None else None

    def answer_dialog(self, accept: bool) -> None:
        """Answer the dialog in front (OK: ``accept``; else Cancel)."""
        if self.dialogs is not None:
            self.host.run(self.dialogs.answer(self._page, accept))

    async def _ensure(self) -> Any:
        if self._context is None:
            self._context = await self.host.browser.new_context(
                viewport={"width": self.width, "height": self.height},
                device_scale_factor=self.dpr, is_mobile=True, has_touch=True,
                user_agent=self.user_agent)
        if self._page is None or self._page.is_closed():
            self._page = await self._context.new_page()
            if self.dialogs is not None:
                self.dialogs.watch(self._page)
            await self._page.set_content(HOME_HTML.replace("{name}", self.name))
        if self._page.viewport_size != {"width": self.width, "height": self.height}:
            await self._page.set_viewport_size({"width": self.width, "height": self.height})
        return self._page

    def turn(self, landscape: bool) -> None:
        """Turn the screen (Android's user_rotation): its width and height swap, and every
        page, the one in front and those in the background, is laid out again at the new
        size (a page made later is sized as it is made: `_ensure`)."""
        if (self.width > self.height) == landscape or self.width == self.height:
            return
        self.width, self.height = self.height, self.width

        async def go() -> None:
            for page in [self._page, *self._background.values()]:
                if page is not None and not page.is_closed():
                    await page.set_viewport_size({"width": self.width, "height": self.height})
        self._run(go())

    def home(self) -> None:
        """Show the home screen; the app in front goes to the background where it was."""
        async def go() -> None:
            if self.app is not None:
                await self._leave_front()
            page = await self._ensure()
            await page.set_content(HOME_HTML.replace("{name}", self.name))
        self._switch(go())
        self.app = None

    async def _leave_front(self) -> None:
        """What is in front leaves it: the app's page goes to the background where it was
        (the home screen's is closed); the next `_ensure` makes a page for what comes next."""
        page, self._page = self._page, None
        if page is None or page.is_closed():
            return
        if self.app is not None:
            self._background[self.app] = page
        else:
            await page.close()

    def launch(self, app: str, url: str, resume: bool = False) -> None:
        """Bring ``app`` to the front. With ``resume`` (Android's launcher intent) an app in
        the background comes back where it was, one in front stays as it is; otherwise, or
        when it was not running, it starts cold at ``url`` (WDA's apps/launch relaunches)."""
        async def go() -> None:
            if self.app == app and resume:
                return
            kept = self._background.pop(app, None)
            if self.app == app and self._page is not None:    # relaunched: it ends first
                await self._page.close()
                self._page = None
            elif self.app != app:
                await self._leave_front()
            if resume and kept is not None:
                self._page = kept
                return
            if kept is not None:
                await kept.close()
            page = await self._ensure()
            await page.goto(url, wait_until="load")
        self._switch(go())
        self.app = app

    def running(self, app: str) -> bool:
        """Whether ``app``'s process lives: in front or in the background."""
        return self.app == app or app in self._background

    def stop(self, app: str) -> None:
        """``am force-stop`` / WDA's terminate: ``app``'s process ends (the home screen when it
        was in front); its next launch is a cold start."""
        async def go() -> None:
            kept = self._background.pop(app, None)
            if kept is not None:
                await kept.close()
            if self.app == app and self._page is not None:
                await self._page.close()
                self._page = None
                await self._ensure()
        self._switch(go())
        if self.app == app:
            self.app = None

    def browse(self, browser: str, url: str) -> None:
        """The phone's browser (``browser``, its package / bundle id) in front at ``url``. A
        page that does not load shows the browser's own error page, as on a phone: the URL
        was opened, the site did not answer."""
        async def go() -> None:
            if self.app != browser:
                await self._leave_front()
            page = await self._ensure()
            if self.dialogs is not None:    # the page it replaces goes with its dialog
                await self.dialogs.answer(page, accept=False)
            try:
                await page.goto(url, wait_until="load")
            except Exception as exc:
                found = re.search(r"net::(ERR_[A-Z_0-9]+)", str(exc))
                # ("http://": the browser opens, and says so; the adb request went down here)
                reason = found.group(1) if found else \
                    "ERR_INVALID_URL" if "invalid URL" in str(exc) else None
                if reason is None:
                    raise
                await page.close()      # Chromium's own error page would race the one below
                page = await self._ensure()
                # the host alone, as a phone's browser says it: never the URL's user:password@
                await page.set_content(BROWSER_ERROR_HTML.format(
                    host=html.escape(_host(url)), reason=reason))
        self._switch(go())
        self.app = browser

    def clear_data(self) -> None:
        """``pm clear``: a new context (no storage), home screen."""
        async def go() -> None:
            if self._context is not None:
                await self._context.close()
            self._context = self._page = None
            self._background.clear()
            await self._ensure()
        self._switch(go())
        self.app = None

    def back(self, leave_at_first: bool = True) -> None:
        """Browser history back; at the app's first page the app goes to the background where
        it was (Android's Back; iOS's edge swipe does nothing there: ``leave_at_first``
        False). What that page was opened on (the home screen's blank page) is no page of the
        app: going back to it left a blank app to resume, and a back within the page (a
        pushState, a #hash: no response) must not send the app away."""
        async def go() -> bool:
            page = await self._ensure()
            if self._cdp is None or self._cdp[0] is not page:
                self._cdp = (page, await page.context.new_cdp_session(page))
            history = await self._cdp[1].send("Page.getNavigationHistory")
            at = history["currentIndex"]
            if at == 0 or history["entries"][at - 1]["url"] in ("about:blank", ""):
                return False
            await page.go_back(wait_until="load")
            return True
        if self.app is not None and not self._run(go()) and leave_at_first:
            self.home()

    def screenshot(self) -> bytes:
        """PNG in physical pixels (CSS size × dpr); while a dialog blocks the page in front,
        the screen as last captured."""
        if self.dialog() is not None and self._last_shot is not None:
            return self._last_shot
        shot = self._run(self._screenshot())
        if shot is None:        # a dialog opened: its page is blocked
            return self._last_shot or _blank(self)
        self._last_shot = shot
        return shot

    async def _screenshot(self) -> bytes:
        async def go() -> bytes:
            page = await self._ensure()
            # mid-navigation Chromium refuses ("Unable to capture screenshot"): a real
            # screencap never does, so wait for the document and try again
            for attempt in range(3):
                try:
                    await page.wait_for_load_state("load", timeout=3000)
                    return await asyncio.wait_for(self._capture(page), 5)
                except Exception:
                    if attempt == 2:
                        raise
                    await asyncio.sleep(0.2)
            raise AssertionError("unreachable")
        return await go()

    async def _capture(self, page: Any) -> bytes:
        """A lossless PNG at device pixels, encoded for speed, not size (Chromium's default
        PNG encoding of a 1080x2400 screen takes several times as long)."""
        if self._cdp is None or self._cdp[0] is not page:
            self._cdp = (page, await page.context.new_cdp_session(page))
        cdp = self._cdp[1]
        view = (await cdp.send("Page.getLayoutMetrics"))["cssVisualViewport"]
        if abs((view.get("scale") or 1.0) - 1.0) > 1e-3:
            # a page without a viewport meta tag is laid out 980 px wide and shown zoomed
            # out, as on a phone; a clipped capture would show it unzoomed (and disagree
            # with the tree and with where taps land): capture the screen as shown
            return await page.screenshot(type="png", scale="device", timeout=5000)
        clip = {"x": view["pageX"], "y": view["pageY"], "width": self.width,
                "height": self.height, "scale": self.dpr}    # the visible part, scrolled
        shot = await cdp.send("Page.captureScreenshot", {
            "format": "png", "clip": clip, "optimizeForSpeed": True})
        return base64.b64decode(shot["data"])

    def dom(self) -> dict[str, Any]:
        """The page's DOM walked by farm/devices/web/dom.js, its rects in screen CSS pixels (a
        page without a viewport meta tag is laid out wider and zoomed out, as on a phone)."""
        from farm.devices.web.scripts import DOM_JS
        from farm.devices.sim.trees import on_screen

        js = (f"(m) => [({DOM_JS})(m), {VIEWPORT_JS}, ({SCROLL_JS})(), "
              f"({LOCKED_VALUES_JS})()]")

        async def go() -> dict[str, Any]:
            page = await self._ensure()
            try:
                dom, viewport, scroll, locked = await page.evaluate(js, 3000)
            except Exception as exc:   # navigating: read again once the page settled
                if "Execution context was destroyed" not in str(exc):
                    raise
                await page.wait_for_load_state("load")
                dom, viewport, scroll, locked = await page.evaluate(js, 3000)
            return on_screen(_scrolling(json.loads(dom), scroll, locked), viewport,
                             self.width, self.height)
        return self._run(go())

    def tap(self, x: float, y: float, hold_ms: int = 0, count: int = 1) -> None:
        """A finger down and up at (x, y); ``count`` 2: the second tap of a double tap (the
        page gets its dblclick), as the phone counts a tap that follows one at the same spot
        at once."""
        async def go() -> None:
            page = await self._ensure()
            px, py, _ = await _page_point(page, x, y)
            if count > 1:
                await page.mouse.move(px, py)
                await page.mouse.down(click_count=count)
                await page.mouse.up(click_count=count)
            elif hold_ms:
                await page.mouse.move(px, py)
                await page.mouse.down()
                await asyncio.sleep(hold_ms / 1000)
                await page.mouse.up()
            else:
                await page.mouse.click(px, py)
            await _settle(page)
        self._run(go())

    def make_room(self, height: float) -> None:
        """Room below the page's end, ``height`` CSS px, while the keyboard shows: a phone's
        web view (iOS's scroll view inset, Android's window resized for it) lets its content
        scroll up above the keyboard."""
        async def go() -> None:
            page = await self._ensure()
            await page.evaluate("(h) => { const s = document.documentElement.style;"
                                " if ((parseFloat(s.paddingBottom) || 0) < h)"
                                " s.paddingBottom = h + 'px'; }", height)
        self._run(go())

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        """A finger drag scrolls the page the other way, as on a touch screen. The mouse that
        plays it leaves the page after: a finger that scrolled leaves no hover behind, where
        the mouse left under it raised a card (its ``:hover``) and the first swipe on a screen
        that cannot scroll read as one that moved it."""
        async def go() -> None:
            page = await self._ensure()
            px, py, scale = await _page_point(page, x1, y1)
            await page.mouse.move(px, py)
            await page.mouse.wheel((x1 - x2) / scale, (y1 - y2) / scale)
            await page.mouse.move(-1, -1)
            await asyncio.sleep(min(duration_ms, 1000) / 1000)
        self._run(go())

    def drag(self, start: Point, end: Point, hold_ms: int, move_ms: int) -> None:
        """A finger put down at ``start``, held there ``hold_ms`` (a long press: what starts
        a drag in a list that reorders), moved to ``end`` in ``move_ms`` and lifted: the page
        gets the pointer's down, moves and up, where a swipe only scrolls it."""
        self.touch("down", *start)
        self._run(asyncio.sleep(hold_ms / 1000), timeout=30 + hold_ms / 1000)
        steps = max(4, min(move_ms // 25, 40))
        for i in range(1, steps + 1):
            self.touch("move", start[0] + (end[0] - start[0]) * i / steps,
                       start[1] + (end[1] - start[1]) * i / steps)
            self._run(asyncio.sleep(move_ms / steps / 1000))
        self.touch("up", *end)

    def touch(self, action: str, x: float, y: float) -> None:
        """One finger event at (x, y): "down", "move" or "up" ("cancel" lifts it too), as
        `input motionevent` sends them one command at a time (the finger stays down between)."""
        async def go() -> None:
            page = await self._ensure()
            px, py, _ = await _page_point(page, x, y)
            await page.mouse.move(px, py)
            if action == "down":
                await page.mouse.down()
            elif action in ("up", "cancel"):
                await page.mouse.up()
                await _settle(page)
        self._run(go())

    def pinch(self, fingers: list[tuple[Point, Point]], duration_ms: int) -> None:
        """Two fingers, each from its start to its end point (CSS px of the screen): the page
        zooms around where they came down by how much farther apart (or closer) they end. A
        finger beyond an edge touches the glass at that edge, as on a touch screen, so a pinch
        by an edge still zooms. Played as Chromium's own pinch-zoom gesture in its trackpad
        form: headless Chromium turns a synthetic touchscreen pinch into no zoom at all."""
        (a0, a1), (b0, b1) = [(self._on_glass(p), self._on_glass(q)) for p, q in fingers]
        scale = _gap(a1, b1) / _gap(a0, b0)
        x, y = (a0[0] + b0[0]) / 2, (a0[1] + b0[1]) / 2

        async def go() -> None:
            page = await self._ensure()
            zoom = (await page.evaluate(VIEWPORT_JS)).get("scale") or 1.0   # the anchor is
            px, py = x / zoom, y / zoom          # in CSS px of what the screen shows
            cdp = await page.context.new_cdp_session(page)
            try:
                await cdp.send("Input.synthesizePinchGesture", {
                    "x": px, "y": py, "scaleFactor": scale, "gestureSourceType": "mouse",
                    "relativeSpeed": max(200, int(800 * 500 / max(duration_ms, 1)))})
            finally:
                await cdp.detach()
            await _settle(page)
        self._run(go())

    def _on_glass(self, point: Point) -> Point:
        return (min(max(point[0], 0.0), self.width - 1.0),
                min(max(point[1], 0.0), self.height - 1.0))

    def type(self, text: str) -> None:
        async def go() -> None:
            page = await self._ensure()
            await page.keyboard.type(text)
        self._run(go())

    def focused_field(self, new_id: str) -> str | None:
        """The id of the text field with the keyboard focus (``new_id`` when it had none), or
        None when no field has it."""
        async def go() -> str | None:
            page = await self._ensure()
            return await page.evaluate(FIELD_JS, ["active", new_id, None])
        return self._run(go())

    def editing(self) -> bool:
        """Whether a text field of the app in front has the focus (a phone's keyboard is up
        for it until dismissed)."""
        async def go() -> bool:
            if self.app is None or self._page is None or self._page.is_closed():
                return False
            return bool(await self._page.evaluate(FIELD_JS, ["editing", "", None]))
        return self._run(go())

    def field_input(self, field: str, text: str | None, redraw: bool = False) -> bool:
        """Type ``text`` into field ``field`` at its caret in one go (None: empty it), giving it
        the focus first; False when the field is gone (its page changed, or ``redraw``: the
        app draws it anew first, as a re-render between WDA's find and its use does)."""
        async def go() -> bool:
            page = await self._ensure()
            how = await page.evaluate(FIELD_JS, ["redraw" if redraw else "input", field, text])
            if how == "insert":     # the page refused execCommand: the same through the driver
                if text:
                    await page.keyboard.insert_text(text)
                else:
                    await page.keyboard.press("Delete")
            return how != "stale"
        return self._run(go())

    def field_value(self, field: str) -> str | None:
        """What field ``field`` holds (WDA's ``value`` attribute); None when it is gone."""
        async def go() -> str | None:
            page = await self._ensure()
            said = await page.evaluate(FIELD_JS, ["value", field, None])
            return said["value"] if isinstance(said, dict) else None
        return self._run(go())

    def key(self, name: str) -> None:
        """Press a Playwright key name (Enter, Backspace, Tab, End...)."""
        async def go() -> None:
            page = await self._ensure()
            await page.keyboard.press(name)
            await _settle(page)
        self._run(go())

    def url(self) -> str:
        return self._page.url if self._page is not None else "about:blank"


def _blank(screen: PhoneScreen) -> bytes:
    """A white screen of ``screen``'s size in pixels."""
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (round(screen.width * screen.dpr), round(screen.height * screen.dpr)),
              (255, 255, 255)).save(buf, "PNG")
    return buf.getvalue()


async def _driver_end_seen(pw: Any) -> None:
    """`driver_end_seen` on the loop's thread: a Ctrl-C reaches the driver's process too, and
    asyncio printed its transport's error under `farm sim`'s "farm: interrupted"."""
    driver_end_seen(pw)


def _host(url: str) -> str:
    """The host a browser's error page names for ``url`` (its start when it has none)."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        host = None
    return host or url.split("://")[-1].split("/")[0].rpartition("@")[2][:80]


def _gap(p: Point, q: Point) -> float:
    """How far apart two fingers are (at least 1 px: two fingers cannot be in one place)."""
    return max(((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5, 1.0)


async def _settle(page: Any) -> None:
    # A tap on a link starts a navigation; let it commit so the next dump sees the new page.
    try:
        await page.wait_for_load_state("load", timeout=5000)
    except Exception:
        pass


class ScreensStopped(RuntimeError):
    """A call on a simulator's screens after (or across) their stop."""


class ScreenHost:
    """One Chromium + event loop thread shared by every screen of one simulator."""

    def __init__(self, chromium_path: str | None = None) -> None:
        self.chromium_path = chromium_path
        self.loop = asyncio.new_event_loop()
        self.browser: Any = None
        self._pw: Any = None
        self._thread = threading.Thread(target=self.loop.run_forever, name="sim-screens",
                                         daemon=True)
        self._lock = threading.Lock()
        self._stopped = False

    def start(self) -> None:
        """Start the loop thread and launch Chromium."""
        from playwright.async_api import async_playwright

        self._thread.start()
        path = self.chromium_path
        if path is None:
            info = find_chromium()
            path = info.path if info else None

        async def go() -> None:
            self._pw = await async_playwright().start()
            self.browser = await self._pw.chromium.launch(
                executable_path=path, headless=True,
                args=[*BROWSER_FLAGS, "--farm-sim-screens"], timeout=60_000)
        self.run(go(), 90)

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
        """Run ``coro`` on the loop thread and wait for its result. Once the screens stopped
        (a client's request that came as the simulator shut down): ScreensStopped at once, as
        for a call the stop left waiting, where it waited out ``timeout`` (and its coroutine,
        never run, was a RuntimeWarning at exit)."""
        with self._lock:
            if self._stopped:
                coro.close()
                raise ScreensStopped("the simulator's screens have stopped")
            future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.CancelledError:
            if self._stopped:
                raise ScreensStopped("the simulator's screens stopped during the call") from None
            raise

    def stop(self) -> None:
        """Close Chromium and stop the loop; safe twice."""
        if not self._thread.is_alive():
            self._stopped = True
            return

        async def go() -> None:
            if self.browser is not None:
                await self.browser.close()
            if self._pw is not None:
                await self._pw.stop()
        try:
            self.run(go(), 20)
        except Exception as exc:
            log.debug("sim screens: error while stopping: %s", exc)
        try:
            self.run(_driver_end_seen(self._pw), 5)
        except Exception as exc:     # (a loop that no longer runs: nothing to mark)
            log.debug("sim screens: %s", exc)
        with self._lock:
            self._stopped = True
        self._end_calls()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)

    def _end_calls(self) -> None:
        """Cancel what still runs on the loop (a client's call the stop cut short), and let
        it unwind there, as asyncio.run ends its tasks: its caller has ScreensStopped now. A
        call made before the stop has its task by then (its callback came before this one's),
        and none is made after (``_stopped``)."""
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(5)
        except Exception as exc:
            log.debug("sim screens: calls left at the stop: %s", exc)
