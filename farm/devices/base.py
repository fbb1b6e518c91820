"""The Device seam: what every platform (browser, Android, iOS) offers the runner and the agent.

Coordinates are in the device's own screen units (CSS pixels for a browser viewport, physical
pixels on Android, points on iOS); screenshots are in pixels of the same screen.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
import weakref
import traceback
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from farm.errors import DeviceError, DeviceLost, FarmError, StepFailed
from farm.text import unmasked

log = logging.getLogger(__name__)


class Rect(BaseModel):
    """A box in the device's screen units: ``Rect(x, y, width, height)`` or by keyword."""

    x: int
    y: int
    width: int
    height: int

    def __init__(self, *args: Any, **kw: Any) -> None:
        if len(args) > 4:
            raise TypeError(f"Rect(x, y, width, height) takes 4 values, {len(args)} given")
        for field, value in zip(("x", "y", "width", "height"), args):
            if field in kw:
                raise TypeError(f"Rect() got {field} twice (by position and by keyword)")
            kw[field] = value
        super().__init__(**kw)

    @property
    def center(self) -> tuple[int, int]:
        return (self.x + self.width // 2, self.y + self.height // 2)

    def contains(self, other: "Rect") -> bool:
        return (self.x <= other.x and self.y <= other.y
                and self.x + self.width >= other.x + other.width
                and self.y + self.height >= other.y + other.height)

    def as_list(self) -> list[int]:
        return [self.x, self.y, self.width, self.height]


class UINode(BaseModel):
    """One element of a UI tree, platform-neutral.

    ``text`` is the element's visible text (for the web: its innerText when it has text of its
    own); ``name`` its accessible name / content-desc / label / aria-label; ``placeholder`` and
    ``resource_id`` as the platform offers them.
    """

    id: int
    parent: int | None = None
    role: str = ""                  # tag / class / XCUIElementType
    text: str = ""
    name: str = ""
    placeholder: str = ""
    resource_id: str = ""
    label: str = ""                 # text of an associated <label> (web forms)
    rect: Rect
    clickable: bool = False
    editable: bool = False
    visible: bool = True
    enabled: bool = True            # false: a disabled control (a tap or typing does nothing)
    options: list[str] = Field(default_factory=list)   # (web) a closed <select>'s options
    # (web) a tap at its middle reaches it (True) or hits something covering it (False), as
    # the read found it; None: not checked (not a control, off-screen, another platform)
    reached: bool | None = Field(default=None, exclude=True)


class UITree(BaseModel):
    source: str                     # "dom", "uiautomator", "wda"
    nodes: list[UINode] = Field(default_factory=list)
    page_text: str | None = None    # full visible text where the tree has it (the browser reads
                                    # its text apart: BrowserDevice.screen_text)
    truncated: bool = False         # the read stopped at its cap of elements (web: MAX_NODES)

    def visible_text(self) -> str:
        if self.page_text is not None:
            return self.page_text
        return "\n".join(n.text or n.name for n in self.nodes if n.visible and (n.text or n.name))

    def ancestors(self, node: UINode) -> list[UINode]:
        """``node``'s parent, its parent's, ... up to the root (a parent cycle ends the walk:
        each node once)."""
        by_id = {n.id: n for n in self.nodes}
        out = []
        seen = {node.id}
        cur = node.parent
        while cur is not None and cur in by_id and cur not in seen:
            seen.add(cur)
            out.append(by_id[cur])
            cur = by_id[cur].parent
        return out

    def parent_cycle(self) -> int | None:
        """The id of a node whose parents lead back to itself (a node its own parent), or
        None when every node's parents end at a root."""
        parent = {n.id: n.parent for n in self.nodes}
        settled: set[int] = set()       # nodes whose parents end at a root
        for start in parent:
            walk: list[int] = []
            cur: int | None = start
            while cur is not None and cur in parent and cur not in settled:
                if cur in walk:
                    return cur
                walk.append(cur)
                cur = parent[cur]
            settled.update(walk)
        return None


@runtime_checkable
class Device(Protocol):
    """One device. Its methods are called from the one thread that called ``open()`` (the
    thread running its `farm.slot.DeviceSlot`), except ``kill()``, which any thread may call.

    Optional: ``about``, one line saying what the device is, set by ``open()`` (the browser's
    version, a phone's model and OS); every result of the device carries it and the report
    shows it. A device without it is shown by name alone. A web device may offer
    ``continue_session(target)``: the next file of a ``shareBrowserContext: true`` batch, in
    the context the previous one left (cookies and storage kept); without it such a file
    fails saying so. ``failure_note()``, asked only when a step failed: one line added to its
    message in parentheses, or None (the browser: "the page answered 404 Not Found: URL" when
    the page's document was an HTTP error; a phone: its browser's error page or a system
    dialog in front of the app). Best effort: what it raises is
    ignored.

    Errors: raise `farm.errors.StepFailed` when the app refused an action (the case fails),
    `DeviceError` / `DeviceLost` when the device did (the case is retried on another device;
    3 in a row quarantine it). A plugin's device that raises anything else is taken as
    DeviceError (`PluginDevice`)."""

    name: str           # "browser-1", "emulator-5554", ...
    platform: str       # "web" | "android" | "ios"

    def open(self) -> None:
        """Start or attach (launch the browser, connect to adb/WDA)."""

    def close(self) -> None:
        """Release everything; safe to call twice."""

    def start_session(self, target: Any) -> None:
        """Fresh state for one case (new browser context + open URL, launch the app).
        ``target``: the case's section, `farm.suite.model.WebTarget` (``url``, viewport, ...)
        on the web, `AndroidTarget` / `IosTarget` (``launch``: the app id or a URL, or None)
        on phones; a device opens or launches it itself."""

    def end_session(self) -> None:
        """Drop the case's state (close the context, stop the app)."""

    def size(self) -> tuple[int, int]: ...

    def screenshot(self) -> bytes:
        """PNG bytes of the current screen."""

    def hierarchy(self) -> UITree | None:
        """The UI tree, or None where the platform has none usable."""

    def query_xpath(self, xpath: str) -> list[Rect]:
        """Rects of visible elements matching an XPath over the platform's native tree."""

    def tap(self, x: int, y: int) -> tuple[int, int] | None:
        """Tap at (x, y); None, or the point tapped instead (a browser follows a target
        that moved as the mouse reached it): where the report marks the tap."""
    def double_tap(self, x: int, y: int) -> None: ...
    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None: ...
    def hover(self, x: int, y: int) -> None: ...
    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None: ...
    def scroll(self, x: int, y: int, dx: int, dy: int) -> bool | None:
        """Scroll content by (dx, dy) over (x, y). False when the device can tell nothing
        moved (the web: no scroll event came; that way is at its end; phones: the screen
        is as it was after the swipe), else True, or None where it cannot tell."""

    def scroll_into_view(self, node: UINode) -> bool:
        """One step bringing ``node`` (off-screen, from the last ``hierarchy()``) toward the
        screen: the web scrolls it into view at once (as Playwright does), phones swipe once
        toward it. False when there is no telling where it is (nothing was done)."""

    def type_text(self, text: str) -> None: ...
    def clear_text(self) -> None:
        """Clear the focused input."""

    def press(self, key: str) -> None:
        """Press a key by name (Enter, Tab, Escape, Backspace, ArrowDown, ...)."""

    def launch(self, app: str) -> None: ...
    def terminate(self, app: str) -> None: ...

    def run_script(self, code: str, timeout_s: float) -> Any:
        """Run platform script (JavaScript in the page on the web); return a JSON-able value."""

    def healthy(self) -> bool: ...

    def kill(self) -> None:
        """Hard stop from any thread (watchdog, Ctrl-C): pending calls then fail fast. One
        still running FARM_WATCHDOG_GRACE_SECONDS later is given up (`OwnThread`): the device
        is used no more, lost to the run."""


# Every method a device offers (a plugin's device missing one is refused when it is built).
DEVICE_METHODS = tuple(n for n, v in vars(Device).items()
                       if callable(v) and not n.startswith("_"))

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"


# How long a device's call may go on after farm called kill() (a watchdog's, an open_timeout's,
# Ctrl-C's) before farm gives up on it: its thread is left running (Python cannot stop it) and
# the device is not used again (`OwnThread`)
KILL_GRACE_S = 10.0

# How long a plugin device's close() may take before farm calls its kill() (then the grace):
# a close() that hung stalled the end of the run with nothing naming it
CLOSE_TIMEOUT_S = 10.0

# A plugin's screenshot over this many pixels is refused (a screen's image is a few million;
# Pillow warns from 89 million, on stderr, and decoding one takes seconds and gigabytes)
MAX_PIXELS = 50_000_000

# How far a plugin's screenshot may be from its size() before farm says so (once): a scale
# either way (iOS's are 3x its points) and a difference of the two axes' scales
SCALE_SPAN = 8.0
ASPECT_SPAN = 1.2

# A plugin's calls that change nothing on screen: the UI tree read last stays the screen's
_READS = frozenset({"screenshot", "hierarchy", "size", "healthy", "query_xpath", "failure_note"})

# Methods whose NotImplementedError says the device never can (not: not with these arguments,
# as press("F1")): farm calls them no more on that device
_NEVER_AGAIN = ("query_xpath",)


class _Call:
    """One piece of a device's work, run on the device's own thread (`OwnThread`), in a copy
    of its caller's context (the step's output mask, `masking`)."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kw: dict[str, Any]):
        self.fn, self.args, self.kw = fn, args, kw
        self.context = copy_context()
        self.done = threading.Event()       # it returned or raised
        self.wake = threading.Event()       # done, or the device was killed meanwhile
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.context.run(self.fn, *self.args, **self.kw)
        except BaseException as exc:        # (SystemExit too: said in the caller's thread)
            self.error = exc
        finally:
            self.done.set()
            self.wake.set()


class _Serving(threading.Thread):
    """A device's own thread: its calls, one at a time, until told to end (None). Unsettled
    (`unsettled`) while in one, or once given up; idle between calls, it is not."""

    def __init__(self, calls: "queue.SimpleQueue[_Call | None]", name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.calls = calls
        self.in_call = False
        self.given_up = False

    def run(self) -> None:
        while (call := self.calls.get()) is not None:
            self.in_call = True
            try:
                call.run()
            finally:
                self.in_call = False
            del call


def unsettled(thread: threading.Thread) -> bool:
    """Whether ``thread`` (alive) may be inside a device's call: any thread may, except a
    device's own (`OwnThread`) waiting between calls and not given up, which holds nothing
    (`farm.executors.local.unsettled_devices`)."""
    return not isinstance(thread, _Serving) or thread.in_call or thread.given_up


class OwnThread:
    """The thread a device's work runs on, one piece at a time, while its caller waits: so
    that farm can give up on a device whose call goes on after ``kill()``. A device plugin's
    every method runs on one (`PluginDevice`); farm's own kinds' open, health check, restart,
    attempt and close do (`farm.slot.DeviceSlot`).

    `kill` wakes every caller waiting: a piece of work still running ``grace`` seconds later
    is given up (DeviceLost naming it, ``what``; its thread is left running: Python cannot stop
    it) and nothing runs here again (`gone`). Work handed in after `kill` (killed between
    calls: a model wait, the gap after one) has the grace alone, until `opened`. Where the
    work's ``what`` can tell one device call from another (`stuck_in`'s frame), only a call
    that lasted a whole grace since the kill is given up, not one that began a moment before
    a look (farm's own wait that ended, then a quick call: under load, a healthy device)."""

    def __init__(self, name: str, grace: float = KILL_GRACE_S) -> None:
        self.name = name                    # the thread's
        self.grace = grace
        self.pending: set[_Call] = set()    # calls waiting for theirs
        self.killed = False                 # kill() since the last opened()
        self.gone: str | None = None        # why it was given up
        self.stuck_frame: Any = None        # the frame of the device call `stuck_in` found
        self._what: Callable[[], str | None] = lambda: None    # the work's, for `kill`
        self._at_kill: Any = None           # the device call's frame as kill() came
        self._calls: queue.SimpleQueue[_Call | None] | None = None
        self._thread: _Serving | None = None

    def run(self, what: Callable[[], str | None], fn: Callable[..., Any], *args: Any,
            **kw: Any) -> _Call:
        """``fn(*args, **kw)`` run on this thread; the call, done (its value or error). Raises
        DeviceLost when given up (``what()``: the device call it is in, as "tv-1: tap() of …";
        None: not in one, a wait of farm's own that ends by itself, as a model request: it is
        waited for, another grace at a time)."""
        if self.gone is not None:
            raise DeviceLost(self.gone)
        call = _Call(fn, args, kw)
        self.pending.add(call)
        self._what = what
        if self.killed:         # killed between calls: this one has the grace alone
            call.wake.set()
        try:
            self._queue().put(call)
            call.wake.wait()
            seen = self._at_kill
            while not call.done.is_set() and not call.done.wait(self.grace):
                doing, seen, same = self._looked(what, seen)
                if doing is None or not same:
                    continue
                self.gone = (f"{doing} did not return within {self.grace:g}s of kill(): farm "
                             "gave up on it (its thread is left running) and uses the device "
                             "no more")
                if self._thread is not None:
                    self._thread.given_up = True
                log.warning("%s", self.gone)
                raise DeviceLost(self.gone)
        finally:
            self.pending.discard(call)
        return call

    def _looked(self, what: Callable[[], str | None], seen: Any) -> tuple[str | None, Any, bool]:
        """What the work is in now (``what()``), its device call's frame, and whether that call
        is the one ``seen`` a grace ago (or at the kill): a frame ``what`` cannot tell (a
        plugin's every call is the device's) is always the same."""
        self.stuck_frame = None
        doing = what()
        frame = self.stuck_frame if doing is not None else None
        return doing, frame, doing is not None and (frame is None or frame is seen)

    def opened(self) -> None:
        """The device starts again (open): work has its time again, not the grace alone."""
        self.killed = False
        self._at_kill = None

    def kill(self) -> None:
        """Any thread, after the device's own kill(): every caller waiting is woken, and
        has ``grace`` seconds more (not only the last)."""
        self.killed = True
        if self.pending:        # the device call the work is in as the kill came
            self.stuck_frame = None
            self._at_kill = self.stuck_frame if self._what() is not None else None
        for call in list(self.pending):
            call.wake.set()

    def stop(self) -> None:
        """End the thread once its work is done (not waited for when it was given up)."""
        calls, thread, self._calls, self._thread = self._calls, self._thread, None, None
        if calls is not None:
            calls.put(None)
        if thread is not None and self.gone is None and thread is not threading.current_thread():
            thread.join()

    def stuck_in(self, owner: object, code_dir: str = "") -> str | None:
        """The device call this thread's work is in: the outermost public method of ``owner``
        ("tap"), else the outermost function of a file under ``code_dir`` (a screen capture
        farm.devices runs for the report); None when in neither (farm's own code: a model
        request, a sleep) or idle."""
        thread = self._thread
        frame = sys._current_frames().get(thread.ident) if thread and thread.ident else None
        method = place = None
        while frame is not None and frame.f_code is not _Call.run.__code__:
            code = frame.f_code
            if code.co_varnames[:1] == ("self",) and frame.f_locals.get("self") is owner \
                    and not code.co_name.startswith("_"):
                method = (code.co_name, frame)
            elif code_dir and code.co_filename.startswith(code_dir):
                place = (code.co_name, frame)
            frame = frame.f_back
        found = method or place
        self.stuck_frame = found[1] if found else None     # (which call: `_looked`)
        return found[0] if found else None

    def _queue(self) -> "queue.SimpleQueue[_Call | None]":
        """The queue of the thread, started at its first call."""
        if self._calls is None:
            calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
            self._thread = _Serving(calls, self.name)
            self._thread.start()
            weakref.finalize(self, calls.put, None)     # (the thread ends with its owner)
            self._calls = calls
        return self._calls


class PluginDevice:
    """A device plugin's device as farm drives it (`farm.devices.specs.build_device` wraps
    every device a `DeviceKind` builds), so that a broken plugin says what broke:

    - an exception that is not one of farm's (`farm.errors`) becomes a DeviceError naming the
      device, the method, the plugin and where it was raised (traceback in farm.log): the
      device's fault, so the case is retried on another device and a device failing 3 cases
      in a row is quarantined. SystemExit (a ``sys.exit()`` in the plugin's SDK) too: only
      KeyboardInterrupt stops the run. NotImplementedError becomes StepFailed (the device
      cannot do that step: a test failure); from ``query_xpath()`` it is remembered, and
      the method not called again. Raise StepFailed yourself when the app refused an action.
    - ``screenshot()`` must return PNG (or JPEG) bytes whose header decodes, ``hierarchy()``
      a `UITree` without a parent cycle or None, ``size()`` two positive ints, ``healthy()``
      True or False: anything else is a DeviceError saying what came back and what was
      expected.
    - a case that refers to a secret has each screenshot (the report's, a model's) go
      through `farm.devices.phone_edges.plugin_without_secrets`: the nodes of
      ``hierarchy()``'s tree whose text holds the secret are blacked out, as on phones; a
      device whose tree cannot be read then has the image dropped; one with no tree (None)
      is said once, as its images keep what they show.
    - its methods run on one thread of the device's own (``kill()`` on the caller's). When
      farm has called ``kill()`` (a case past its timeout, ``open()`` past ``open_timeout``,
      Ctrl-C), the pending call must end: one still running ``kill_grace`` seconds later is
      given up (DeviceLost naming it; its thread is left behind) and the device is used no
      more (`abandoned`).

    Everything else (``about``, ``aliases``, optional methods such as ``back()``) is the
    plugin device's own, read and written through."""

    def __init__(self, device: Any, origin: str, open_timeout: float,
                 kill_grace: float = KILL_GRACE_S,
                 close_timeout: float = CLOSE_TIMEOUT_S, kind: str = "") -> None:
        object.__setattr__(self, "_plugin", device)
        object.__setattr__(self, "kind_name", kind)       # its kind (`tv`): the cache's keys
        object.__setattr__(self, "_close_timeout", close_timeout)
        # the case's mask (`farm.runner`): `unmasked` when it refers to no secret
        object.__setattr__(self, "hide", unmasked)
        object.__setattr__(self, "_shown", None)       # (tree, when read): no action since
        object.__setattr__(self, "_shot_at", 0.0)      # when the last screenshot began
        object.__setattr__(self, "_origin", origin)           # "device plugin 'tvfarm'"
        object.__setattr__(self, "close_overdue", None)       # a close() farm had to kill
        object.__setattr__(self, "_open_timeout", open_timeout)
        object.__setattr__(self, "_warned", set())             # methods said malformed
        object.__setattr__(self, "_cannot", {})                # method -> its StepFailed
        object.__setattr__(self, "_own", OwnThread(
            f"plugin-{getattr(device, 'name', '?')}", kill_grace))

    @classmethod
    def around(cls, device: Any, origin: str, open_timeout: float,
               kill_grace: float = KILL_GRACE_S,
               close_timeout: float = CLOSE_TIMEOUT_S, kind: str = "") -> "PluginDevice":
        """``device`` wrapped, by a class named as its own ("TvDevice on android cannot
        hover" names the plugin's class, not this one)."""
        own = type(device)
        made = _WRAPPERS.get(own)
        if made is None:
            made = _WRAPPERS[own] = type(own.__name__, (cls,), {"__module__": own.__module__})
        return made(device, origin, open_timeout, kill_grace, close_timeout, kind)

    def __getattr__(self, name: str) -> Any:
        if name == "_plugin":           # (not set yet: while being copied or unpickled)
            raise AttributeError(name)
        value = getattr(self._plugin, name)
        if callable(value) and not isinstance(value, type) and not name.startswith("_"):
            return lambda *args, **kw: self._call(name, *args, **kw)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "hide":      # the wrapper's (`without_secrets`); the plugin's own too
            object.__setattr__(self, name, value)
            if not hasattr(self._plugin, name):
                return
        setattr(self._plugin, name, value)

    def __repr__(self) -> str:
        return f"<{self._origin}: {self._plugin!r}>"

    @property
    def abandoned(self) -> str | None:
        """Why farm gave up on this device (a call that went on after ``kill()``), or None."""
        return self._own.gone

    @property
    def _pending(self) -> set[_Call]:
        return self._own.pending

    def _call(self, method: str, *args: Any, **kw: Any) -> Any:
        if self._own.gone is not None:
            raise DeviceLost(self._own.gone)
        if method in self._cannot:
            raise self._cannot[method].with_traceback(None)   # (no old frames kept alive)
        if method == "open":
            self._own.opened()
        if method not in _READS:
            object.__setattr__(self, "_shown", None)
        call = self._own.run(lambda: f"{self._plugin.name}: {method}() of {self._origin}",
                             getattr(self._plugin, method), *args, **kw)
        if call.error is None:
            return call.value
        mapped = self._mapped(method, call.error)
        if mapped is call.error:
            raise mapped
        raise mapped from call.error

    def _mapped(self, method: str, exc: BaseException) -> BaseException:
        """The error farm raises for ``exc``, raised by the plugin's ``method``."""
        if isinstance(exc, (FarmError, KeyboardInterrupt, GeneratorExit)):
            return exc
        if isinstance(exc, NotImplementedError):
            said = f": {exc}" if str(exc) else ""
            log.info("%s: %s() of %s raised NotImplementedError%s (at %s)", self._plugin.name,
                     method, self._origin, said, raised_at(exc))
            cannot = StepFailed(f"{self._plugin.name} ({type(self._plugin).__name__}) cannot "
                                f"{method}: {self._raised(method, exc, logged=True)}")
            if method in _NEVER_AGAIN:
                self._cannot[method] = cannot
            return cannot
        return DeviceError(f"{self._plugin.name}: {self._raised(method, exc)}")

    def _raised(self, method: str, exc: BaseException, logged: bool = False) -> str:
        if not logged:
            log.info("%s: %s() of %s raised", self._plugin.name, method, self._origin,
                     exc_info=exc)
        said = f": {words}" if (words := error_words(exc)) else ""
        return (f"{method}() of {self._origin} raised {type(exc).__name__}{said} "
                f"(at {raised_at(exc)})")

    def _wrong(self, method: str, value: Any, expected: str, why: str = "") -> DeviceError:
        said = f"returned {_shown(value)}: expected {expected}{why}"
        return self._warned_once(method, DeviceError(
            f"{self._plugin.name}: {method}() of {self._origin} {said}"))

    def _warned_once(self, method: str, error: DeviceError) -> DeviceError:
        if method not in self._warned:  # once: a report screenshot's failure is said nowhere else
            self._warned.add(method)
            log.warning("%s", error)
        return error

    def open(self) -> None:
        overdue = threading.Event()
        try:
            self._timed("open", self._open_timeout, overdue)
        except Exception as exc:
            if not overdue.is_set():
                raise
            raise self._overdue() from exc
        if overdue.is_set():
            raise self._overdue()

    def close(self) -> None:
        """The plugin's close(); one still running ``close_timeout`` seconds on is said and
        the device killed (then given up after the grace, said too): a close() that hung
        stalled the run's end with nothing naming it. One that ended after that kill is
        kept as ``close_overdue`` (the run's end says it: `farm.slot.DeviceSlot.close`)."""
        overdue = threading.Event()
        try:
            self._timed("close", self._close_timeout, overdue)
        finally:
            if overdue.is_set():
                object.__setattr__(self, "close_overdue", (
                    f"{self._plugin.name}: close() of {self._origin} did not finish within "
                    f"{self._close_timeout:g}s: farm killed the device"))

    def _timed(self, method: str, timeout: float, overdue: threading.Event) -> None:
        """``method()`` of the plugin; past ``timeout`` seconds it is said, ``overdue`` set
        and the device killed (the call then has the grace to end)."""
        def kill() -> None:
            overdue.set()
            log.warning("%s: %s() of %s did not finish within %gs: killing the device",
                        self._plugin.name, method, self._origin, timeout)
            try:
                self.kill()
            except Exception as exc:    # (a timer thread: nobody to raise to)
                log.warning("%s", exc)

        timer = threading.Timer(timeout, kill)
        timer.daemon = True
        timer.start()
        try:
            self._call(method)
        finally:
            timer.cancel()

    def _overdue(self) -> DeviceLost:
        return DeviceLost(f"{self._plugin.name}: open() of {self._origin} did not finish within "
                          f"{self._open_timeout:g}s (DeviceKind.open_timeout): farm killed it")

    def kill(self) -> None:
        """The plugin's kill(), in the calling thread (the device's own may be stuck in the
        call it is to end); that call has ``kill_grace`` seconds more to return."""
        try:
            self._plugin.kill()
        except FarmError:
            raise
        except Exception as exc:
            raise DeviceError(f"{self._plugin.name}: {self._raised('kill', exc)}") from exc
        finally:
            self._own.kill()     # every caller waiting, not only the last (until open())

    def continue_session(self, target: Any) -> None:
        if not callable(getattr(self._plugin, "continue_session", None)):
            raise StepFailed(f"{self._plugin.name} ({type(self._plugin).__name__}) cannot run "
                             "the next file of a shareBrowserContext batch in the same browser "
                             f"context: it has no continue_session() ({self._origin})")
        self._call("continue_session", target)

    def screenshot(self) -> bytes:
        object.__setattr__(self, "_shot_at", time.monotonic())
        png = self._call("screenshot")
        expected = "the PNG or JPEG bytes of the screen"
        if not isinstance(png, (bytes, bytearray)):
            raise self._wrong("screenshot", png, expected)
        size, bad = _image_size(bytes(png))
        if bad:
            raise self._wrong("screenshot", png, expected, f" ({bad})")
        if size is not None and "scale" not in self._warned:
            self._warned.add("scale")       # (one look: a size() per screenshot costs)
            self._same_screen(size)
        return bytes(png)

    def _same_screen(self, image: tuple[int, int]) -> None:
        """Said once: a screenshot far from the size() farm scales it to (the units taps and
        marks are in), as a 12000x12000 image of a 1280x720 screen."""
        try:
            w, h = self.size()
        except Exception as exc:
            log.info("%s: size() to compare a screenshot with: %s", self._plugin.name, exc)
            return
        iw, ih = image
        if any(1 / SCALE_SPAN <= a <= SCALE_SPAN and 1 / SCALE_SPAN <= b <= SCALE_SPAN
               and max(a, b) / min(a, b) <= ASPECT_SPAN
               for a, b in ((iw / w, ih / h), (iw / h, ih / w))):
            return
        log.warning("%s: screenshot() of %s returned a %dx%d image, but its size() says %dx%d:"
                    " farm scales a screenshot to size() (the units of tap(x, y) and the "
                    "report's marks), so what is located on it misses (is size() the screen's "
                    "size in tap()'s units, and the image the whole screen?)",
                    self._plugin.name, self._origin, iw, ih, w, h)

    @property
    def origin(self) -> str:
        """The plugin it comes from, as messages name it: "device plugin 'tvfarm'"."""
        return self._origin

    def screen_tree(self, kept_s: float) -> UITree | None:
        """The UI tree of the screen as the last screenshot has it, for its secrets to be
        blacked out (`farm.devices.phone_edges.plugin_without_secrets`): the tree read last
        when no action came since and it was read at most ``kept_s`` before that screenshot
        began, else hierarchy() now; None when the device gives no tree."""
        shown = self._shown
        if shown is not None and self._shot_at - shown[1] <= kept_s:
            return shown[0]
        try:
            return self.hierarchy()
        except StepFailed:              # (NotImplementedError: no tree)
            return None

    def hierarchy(self) -> UITree | None:
        tree = self._call("hierarchy")
        if tree is None:
            return tree
        if not isinstance(tree, UITree):
            raise self._wrong("hierarchy", tree, "a farm.devices.base.UITree, or None where "
                              "there is no UI tree")
        if (node := tree.parent_cycle()) is not None:
            raise self._warned_once("hierarchy", DeviceError(
                f"{self._plugin.name}: hierarchy() of {self._origin} returned a tree with a "
                f"parent cycle at node {node}: each node's parents must end at a root (a "
                "node whose parent is None)"))
        object.__setattr__(self, "_shown", (tree, time.monotonic()))
        return tree

    def tap(self, x: int, y: int) -> tuple[int, int] | None:
        point = self._call("tap", x, y)
        if point is None or point == (x, y):
            return point
        if not (isinstance(point, (tuple, list)) and len(point) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in point)):
            self._warned_once("tap", DeviceError(
                f"{self._plugin.name}: tap() of {self._origin} returned a "
                f"{type(point).__name__}: expected None, or the (x, y) it tapped instead: "
                f"ignored (the report marks ({x}, {y}))"))
            return None
        try:
            w, h = self.size()
        except DeviceError:
            return None
        if not (0 <= point[0] < w and 0 <= point[1] < h):
            self._warned_once("tap", DeviceError(
                f"{self._plugin.name}: tap() of {self._origin} returned ({point[0]}, "
                f"{point[1]}), off its {w}x{h} screen (size()): ignored (the report marks "
                f"({x}, {y}))"))
            return None
        return (point[0], point[1])

    def size(self) -> tuple[int, int]:
        size = self._call("size")
        if (isinstance(size, (tuple, list)) and len(size) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                        for v in size)):
            return (size[0], size[1])
        if not isinstance(size, (tuple, list)):        # (its type: "1280x720" is a str)
            return_of = f"a {type(size).__name__}" if size is not None else "None"
            raise self._warned_once("size", DeviceError(
                f"{self._plugin.name}: size() of {self._origin} returned {return_of}: "
                "expected (width, height), two positive ints"))
        raise self._wrong("size", size, "(width, height), two positive ints")

    def healthy(self) -> bool:
        ok = self._call("healthy")
        if ok is None:                  # (a healthy() that forgot to return)
            raise self._wrong("healthy", ok, "True or False")
        return bool(ok)


def error_words(exc: BaseException) -> str:
    """What ``exc`` says, on one line where a console shows it: a pydantic ValidationError
    (a plugin's ``UINode(id="a")``) names each field and its problem, and the type of the
    value given (not the value: it may be a secret), not only "1 validation error for
    UINode"."""
    from pydantic import ValidationError
    if not isinstance(exc, ValidationError):
        return str(exc)
    found = exc.errors(include_url=False)
    parts = []
    for error in found[:3]:
        field = ".".join(str(p) for p in error["loc"])
        got = "" if error["type"] == "missing" else f" (got {type(error['input']).__name__})"
        parts.append(f"{exc.title}{'.' + field if field else ''}: {error['msg']}{got}")
    more = f"; {len(found) - 3} more" if len(found) > 3 else ""
    return "; ".join(parts) + more


def _image_size(data: bytes) -> tuple[tuple[int, int] | None, str | None]:
    """(width, height) of a PNG or JPEG image whose header decodes, or why ``data`` is not
    one, or one over MAX_PIXELS (read from its header before Pillow opens it: Pillow warns of
    a decompression bomb on stderr)."""
    if data[:8] != PNG_MAGIC and data[:3] != JPEG_MAGIC:
        return None, f"{len(data):,} bytes, not a PNG or JPEG"
    what = "PNG" if data[:8] == PNG_MAGIC else "JPEG"
    said = _png_size(data) if what == "PNG" else _jpeg_size(data)
    if said is not None and said[0] * said[1] > MAX_PIXELS:
        return None, (f"a {said[0]}x{said[1]} {what}: {said[0] * said[1]:,} pixels, over "
                      f"farm's cap of {MAX_PIXELS:,} for a screen's image")
    import io

    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size, None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError,
            Image.DecompressionBombError):
        return None, f"{len(data):,} bytes: a {what} signature, but no {what} header that decodes"


def _png_size(data: bytes) -> tuple[int, int] | None:
    """A PNG's (width, height) from its IHDR chunk, or None."""
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG's (width, height) from its first start-of-frame marker, or None."""
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:                              # (fill)
            i += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:    # (no length)
            i += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return (int.from_bytes(data[i + 7:i + 9], "big"),
                    int.from_bytes(data[i + 5:i + 7], "big"))
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return None


def _forward(method: str) -> Callable[..., Any]:
    def call(self: PluginDevice, *args: Any, **kw: Any) -> Any:
        return self._call(method, *args, **kw)
    call.__name__ = call.__qualname__ = method
    return call


for _method in DEVICE_METHODS:
    if _method not in vars(PluginDevice):
        setattr(PluginDevice, _method, _forward(_method))

_WRAPPERS: dict[type, type] = {}


def raised_at(exc: BaseException) -> str:
    """``file:line`` where ``exc`` was raised: the innermost frame outside Python's own and
    installed libraries (the plugin's code that called them), else the innermost; the path
    relative to the working directory when under it."""
    import sysconfig
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown place"
    libraries = tuple(str(Path(p).resolve()) for k, p in sysconfig.get_paths().items()
                      if k in ("stdlib", "platstdlib", "purelib", "platlib"))
    own = [f for f in frames if not str(Path(f.filename).resolve()).startswith(libraries)
           and not f.filename.startswith("<")]
    frame = (own or frames)[-1]
    return source_place(frame.filename, frame.lineno)


def source_place(filename: str, line: int | None) -> str:
    """``file:line``, the path relative to the working directory when under it."""
    where = Path(filename)
    try:
        where = where.resolve().relative_to(Path.cwd())
    except (ValueError, OSError):
        pass
    return f"{where}:{line}"


def _shown(value: Any) -> str:
    """A returned value as an error message shows it: its type and its start."""
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text[:40] + '…' if len(text) > 40 else text}"


def swipe_toward(rect: Rect, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The finger's (x1, y1, x2, y2) for one swipe that scrolls an off-screen ``rect`` toward
    a screen of ``size`` (60% of a screen per swipe); None when ``rect`` is not off one edge.
    Trees clamp off-screen bounds to the edge they are beyond (uiautomator), or keep them."""
    w, h = size
    cx, cy = w // 2, h // 2
    if rect.y >= h:                                                  # below: finger goes up
        return cx, h * 4 // 5, cx, h // 5
    if rect.y + rect.height <= 0:                                    # above
        return cx, h // 5, cx, h * 4 // 5
    if rect.x >= w:                                                  # right: finger goes left
        return w * 4 // 5, cy, w // 5, cy
    if rect.x + rect.width <= 0:
        return w // 5, cy, w * 4 // 5, cy
    return None


def swipe_into_view(device: Device, node: UINode) -> bool:
    """`Device.scroll_into_view` for touch screens: one `swipe_toward` the node."""
    finger = swipe_toward(node.rect, device.size())
    if finger is None:
        return False
    device.swipe(*finger, 300)
    return True


# How often a phone's screen is read again while a locate waits for it to change (a UI dump is
# a round trip of its own on the phone: not read back to back)
TREE_LOOK_S = 0.25


def await_tree_change(read: Callable[[], str | None], before: str | None, timeout_s: float,
                      quiet_s: float | None = None) -> bool:
    """`await_change` for a device whose screen is known only by reading its UI tree (phones):
    read it again (``read``: its source text, None when unreadable) every TREE_LOOK_S until it
    is not ``before`` (True), for ``timeout_s`` at most, or ``quiet_s`` when given (False)."""
    import time
    if before is None:
        return True                  # no read to compare with: read again
    end = time.monotonic() + (timeout_s if quiet_s is None else min(timeout_s, quiet_s))
    while True:
        now = read()
        if now is not None and now != before:
            return True
        left = end - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(TREE_LOOK_S, left))


# What a step keeps of a command's or request's answer (runAdbShell's stdout, the strings in
# runWdaRequest's): the rest went into results.json twice (the step's output and the case's
# data) and into the report
OUTPUT_KEEP_CHARS = 64 * 1024


# The mask of the step running in this thread (`masking`). A driver cuts a step's output
# without knowing the case's secrets (the shell's tail is cut as it is read, in
# farm.devices.android_shell): what `kept_tail` cuts is masked first, so no secret straddles
# the cut and leaves its end (or, cut at a line's start, its last lines) in the record.
_OUTPUT_MASK: ContextVar[Callable[[str], str] | None] = ContextVar("output_mask", default=None)


@contextmanager
def masking(mask: Callable[[str], str] | None) -> Iterator[None]:
    """While inside, `kept_tail` in this thread masks a text with ``mask`` before cutting it
    (a phone action's step output: farm.agent.phone_actions)."""
    token = _OUTPUT_MASK.set(mask)
    try:
        yield
    finally:
        _OUTPUT_MASK.reset(token)


def output_mask() -> Callable[[str], str] | None:
    """The mask `masking` set in this thread (for a driver that cuts in another thread)."""
    return _OUTPUT_MASK.get()


def kept_tail(text: str, keep: int = OUTPUT_KEEP_CHARS, before: int = 0,
              mask: Callable[[str], str] | None = None) -> str:
    """``text`` as a step keeps it: whole up to ``keep`` characters, else its last ``keep``
    from a line's start (the newest of a log), after one line saying how much was cut.
    ``before``: what came ahead of ``text`` and was cut already (bytes of a phone's output
    dropped as it came in, counted as characters). A text that is cut is masked first with
    ``mask`` (default: `masking`'s): a secret the cut fell inside is hidden whole."""
    if len(text) <= keep and not before:
        return text
    total = len(text) + before
    mask = mask or _OUTPUT_MASK.get()
    if mask is not None:
        text = mask(text)
    tail = text[-keep:]
    start = tail.find("\n")
    if 0 <= start < len(tail) - 1:      # (a single huge line: cut inside it)
        tail = tail[start + 1:]
    return (f"[farm: {total - len(tail):,} characters of {total:,} cut; the last "
            f"{len(tail):,} kept]\n{tail}")


def kept_tails(value: Any, keep: int = OUTPUT_KEEP_CHARS,
               mask: Callable[[str], str] | None = None) -> Any:
    """`kept_tail` of every string in a JSON value (a WDA answer: a screenshot's base64, a
    page source), its structure as it is; ``mask`` as there."""
    if isinstance(value, str):
        return kept_tail(value, keep, mask=mask)
    if isinstance(value, dict):
        return {k: kept_tails(v, keep, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [kept_tails(v, keep, mask) for v in value]
    return value
