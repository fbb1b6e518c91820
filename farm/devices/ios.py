"""IosDevice: one iPhone (or simulated one) driven through facebook-wda.

A WDA session per case. Taps and swipes are in points; ``/wda/screen`` gives the scale, and
screenshots are reduced from pixels to points so they line up with the coordinates (as the
browser's CSS-pixel screenshots do). facebook-wda's own "invalid session id" retry callback
is switched off: it retries with the same dead session; here a new session is made and the
call tried once more.
"""

from __future__ import annotations

import io
import itertools
import logging
import re
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, TypeVar
from urllib.parse import urlsplit

from farm.cancellable import Cancelled, call_unless_cancelled
from farm.devices import phone_edges
from farm.devices.android import (LOOPBACK_NAMES, REATTACH_POLL_S, REATTACH_S,
                                  image_is_black, is_black, is_url, kept_words,
                                  not_in_front, phone_busy_words, png_frame)
from farm.devices.base import (Rect, UINode, UITree, await_tree_change, kept_tails,
                               output_mask, swipe_toward)
from farm.devices.keys import IOS_TYPED
from farm.devices.native_tree import (dialog_failure, page_failure, parse_wda, query_xml,
                                     shown_texts)
from farm.devices.procs import PhoneBusy, PhoneClaim
from farm.errors import DeviceError, DeviceLost, StepFailed
from farm.text import clean, cut, unmasked

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings
    from farm.suite.model import IosTarget

log = logging.getLogger(__name__)

RESET_ARG = "-farm-reset-state"      # the app starts with empty data (simulator honours it)
HTTP_TIMEOUT_S = 30.0
SOURCE_TRIES = 3
DRAG_HOLD_MS = 800      # a drag's long press (UILongPressGestureRecognizer's: 500 ms)
SWIPE_PRESS_MS = 100    # a swipe's touch before it moves: well short of a long press
# the source's root: the application in front (the simulator names it by its bundle id)
_XY = re.compile(r'\sx="(-?[\d.]+)" y="(-?[\d.]+)"')      # an element's place in the source
_APP_ROOT = re.compile(r'<XCUIElementTypeApplication [^>]*?name="([^"]*)"')
W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"     # an element reference's W3C key
# the WDA calls that only look (`IosDevice._call`'s ``what``): they leave the focus where it is
_LOOKS = frozenset({"screenshot", "source", "active element", "app state", "active app",
                    "alert", "lock state", "status"})
SPRINGBOARD = "com.apple.springboard"      # what shows the home screen and system alerts
EMPTY_SOURCE = "WDA's /source: no visible elements"
# where an iPhone's crash reports are (WebDriverAgent gives none): its crashes' causes
CRASH_REPORTS = ("its crash report says why (Xcode: Window > Devices and Simulators, the "
                 "iPhone, Open Recent Logs; or `idevicecrashreport -k -e DIR` on the host it "
                 "is plugged into; a Simulator's are in ~/Library/Logs/DiagnosticReports; "
                 "WebDriverAgent does not give them)")
T = TypeVar("T")


def pinch_paths(x: int, y: int, reach: int, spread: bool, size: tuple[int, int]
                ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of two fingers above and below (x, y), 40 points away, moving ``reach``
    points apart (``spread``) or together. A finger cannot touch beyond the glass: near an edge
    it stays on the screen's edge (1 point in) and the other finger does the moving."""
    w, h = size
    near, far = 40, 40 + reach
    start, end = (near, far) if spread else (far, near)

    def on_screen(px: float, py: float) -> tuple[int, int]:
        return min(max(int(px), 1), w - 2), min(max(int(py), 1), h - 2)
    return [(on_screen(x, y + sign * start), on_screen(x, y + sign * end)) for sign in (-1, 1)]


def finger_path(name: str, start: tuple[int, int], end: tuple[int, int], hold_ms: int,
                move_ms: int) -> dict[str, Any]:
    """One finger as a W3C action sequence: put down at ``start``, held there ``hold_ms``,
    moved to ``end`` in ``move_ms`` and lifted (what WebDriverAgent's ``/actions`` plays)."""
    return {"type": "pointer", "id": name, "parameters": {"pointerType": "touch"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "x": int(start[0]), "y": int(start[1])},
                {"type": "pointerDown", "button": 0},
                {"type": "pause", "duration": int(hold_ms)},
                {"type": "pointerMove", "duration": int(move_ms), "x": int(end[0]),
                 "y": int(end[1])},
                {"type": "pointerUp", "button": 0}]}


def ios_about(status: dict[str, Any], info: dict[str, Any]) -> str:
    """What an iPhone is, from WDA's /status and /wda/device/info: "<device name> (<model>),
    iOS <version>" (whatever WDA leaves unsaid left out)."""
    system = status.get("os") or {}
    version = f"{system.get('name') or 'iOS'} {system['version']}" \
        if system.get("version") else ""
    name, model = str(info.get("name") or ""), str(info.get("model") or "")
    device = f"{name} ({model})" if name and model and model != name else name or model
    return ", ".join(part for part in (device, version) if part)


def wda_refusal(exc: Any) -> str:
    """What WDA said when it refused a request, from facebook-wda's WDARequestError: "unknown
    command (Unhandled endpoint: POST /nonexistent)", not the exception's repr."""
    value = getattr(exc, "value", None)
    if isinstance(value, dict):
        error, message = clean(str(value.get("error") or "")), clean(str(value.get("message")
                                                                         or ""))
        said = f"{error} ({message})" if error and message else error or message
    else:
        said = clean(str(value if value is not None else exc))
    status = getattr(exc, "status", None)
    return cut(said or f"status {status}", 300)


def shown_parts(tree: UITree, width: int, height: int) -> UITree:
    """``tree`` with each node partly off the screen cut to the part that shows, as
    uiautomator's bounds are (WDA gives an element's whole frame): a tap at the middle of a
    card half scrolled out of a carousel lands on it, not beside the glass."""
    for node in tree.nodes:
        r = node.rect
        if not node.visible:
            continue
        x1, y1 = max(r.x, 0), max(r.y, 0)
        x2, y2 = min(r.x + r.width, width), min(r.y + r.height, height)
        if (x1, y1, x2 - x1, y2 - y1) != (r.x, r.y, r.width, r.height):
            node.rect = Rect(x=x1, y=y1, width=x2 - x1, height=y2 - y1)
    return tree


_APP_FRAME = re.compile(r'<XCUIElementTypeApplication [^>]*?\swidth="(\d+)"[^>]*?'
                        r'\sheight="(\d+)"')


def blank_frame(png: bytes) -> bool:
    """Whether a screenshot's middle (its middle three fifths: what scrolls, below a bar and
    above a tab bar) shows nothing a scroll could be seen moving by: no two of its pixels
    further apart than the grey levels `phone_edges.screen_moved` takes for noise (a flat
    colour, or a gentle gradient: #fff to #eee over 3000 pt moved 2 levels a swipe, and a
    scroll to the bottom stopped half way down, taken for the end)."""
    from PIL import Image
    height = Image.open(io.BytesIO(png)).height
    return phone_edges.blank_band(png, height // 5, height * 4 // 5)


def app_frame(xml: str) -> tuple[int, int] | None:
    """(width, height) in points of the application in a WDA source (its root), as it is
    turned now; None when the source does not say."""
    m = _APP_FRAME.search(xml[:2000])
    return (int(m.group(1)), int(m.group(2))) if m else None


def wda_phone_key(url: str) -> str:
    """What names one iPhone to every farm process of this machine (its `PhoneClaim`): its
    WebDriverAgent URL, as written in any of its spellings (``http://localhost:8100/`` is
    ``http://127.0.0.1:8100``; ``127.1``, ``127.x.y.z``, ``[::1]``, ``0.0.0.0`` too: each
    reaches this machine's WDA forward), so a second run naming it otherwise waits its turn."""
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(url.strip())
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return f"wda {url}"
    host = "127.0.0.1" if host in LOOPBACK_NAMES or _this_machine(host) else host
    port = port or {"https": 443, "http": 80}.get(parts.scheme.lower(), 0)
    return f"wda {parts.scheme.lower()}://{host}:{port}{parts.path.rstrip('/')}"


def _this_machine(host: str) -> bool:
    """Whether IP address ``host`` is this machine's loopback in any spelling: 127.0.0.0/8
    (``127.1`` too: the short forms inet_aton reads, as a connect does), ``::1``, an IPv4
    loopback mapped into IPv6, or the unspecified address (0.0.0.0, ``::``: a connect to
    it reaches the local host)."""
    import ipaddress
    import socket
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(host)
    except ValueError:
        if not re.fullmatch(r"[0-9a-fx.]+", host):
            return False
        try:
            ip = ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return False
    mapped = getattr(ip, "ipv4_mapped", None)
    ip = mapped if mapped is not None else ip
    return ip.is_loopback or ip.is_unspecified


class SessionReplaced(DeviceError):
    """The case's WDA session was replaced by another client's mid-case
    (`IosDevice._check_not_replaced`): the device's error, not the app's. ``why``: the
    message without the call it stopped (a failed step's note: `IosDevice.error_page`)."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}: {why}")
        self.why = why


class IosDevice:
    """A WDA endpoint implementing the `farm.devices.base.Device` protocol (points)."""

    platform = "ios"
    screenshot_command = "WDA's /screenshot"  # what a hung screenshot was waiting for

    def __init__(self, name: str, settings: "Settings | None", url: str,
                 say_which: bool = True) -> None:
        self.name, self.settings, self.url = name, settings, url
        # `about` names its UDID and URL (a phone the run started itself is its name's)
        self.say_which = say_which
        self._client: Any = None
        self._session: Any = None
        self._bundle: str | None = None
        self._opened: str | None = None     # the URL the case opened last (as shown: masked)
        self._scale = 1.0
        self._size: tuple[int, int] | None = None
        self._killed = False
        self._stopped = threading.Event()     # kill(): a WDA call in flight stops being waited for
        self._last_xml = ""
        self._last_tree: UITree | None = None   # … as read (`tap_point` checks its nodes)
        self.last_observation: str | None = None
        self.tree_problem = ""              # why the last hierarchy() gave no tree
        self.screenshot_black = False
        self.scrolled_px = 0                # how far the last scroll's swipes moved it (pt)
        # a scroll to an end: half a screen a swipe (each a mark on the report's screenshot),
        # up to 30, as Android's (a scroll of 10 screens was one swipe cut at the screen's edge)
        self.end_scroll_screens, self.scrolls_to_end = 0.5, 30
        self._shot: bytes | None = None     # the last screenshot, while no action came since
        # the tree of the screen as it is: no action since it was read (a screenshot begun
        # soon after has its secrets found in it: `without_secrets`)
        self._shown_tree: phone_edges.Shown | None = None
        self._shot_at = 0.0                 # when the last screenshot began (`phone_edges.now`)
        # the case's mask (its runner sets it): the screen's text it changes holds a secret,
        # blacked out of each screenshot farm keeps or sends (`without_secrets`); `unmasked`:
        # the case refers to none, no source is read for it
        self.hide: Callable[[str], str] = unmasked
        # the field an aiInput typed into and then hid the keyboard of, while nothing else
        # was done since (`press`: a key right after it goes there, as on Android)
        self._typed_into: Any = None
        self._step_said: list[str] = []     # the step's notes so far (`step_notes`)
        self.sessions_created = 0
        # a case runs: its session is the case's (start_session's to end_session's), and one
        # another client replaced ends the case (`_check_not_replaced`)
        self._in_case = False
        self._own_sessions: set[str] = set()    # sessions a case's runWdaRequest created
        self.about = ""                     # device name, model and iOS version, once open
        # this process's hold of the iPhone, that no other farm run drives it (make_devices
        # takes it when choosing the iPhone; open() when it has none), let go by close()
        self.claim: PhoneClaim | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def aliases(self) -> tuple[str, ...]:
        """host:port of its WebDriverAgent (what Midscene's wdaHost / wdaPort name)."""
        from urllib.parse import urlsplit
        parts = urlsplit(self.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        host = parts.hostname or ""
        local = ("localhost", "127.0.0.1") if host in ("localhost", "127.0.0.1") else (host,)
        return tuple(f"{h}:{port}" for h in local)

    def open(self) -> None:
        """Connect to WDA and check it is ready."""
        import wda

        wda.HTTP_TIMEOUT = HTTP_TIMEOUT_S
        self._killed = False
        self._shown_tree = None      # (the phone may show anything now)
        self._stopped.clear()
        self._hold()
        reopened = self._client is not None
        self._client = wda.Client(self.url)
        self._client.unregister_callback()    # see module docstring
        status = self._await_status(REATTACH_S if reopened else 0.0)
        if not status.get("ready", True):
            raise DeviceLost(f"{self.name}: WebDriverAgent is not ready")
        self._unlock()
        self._new_session()
        self.about = self._describe(status)

    def _hold(self) -> None:
        """Claim the iPhone for this process, unless it is claimed already: DeviceLost when
        another farm run drives it (its pid said)."""
        if self.claim is not None and self.claim.held:
            return
        from farm.config import mask_url
        try:
            self.claim = PhoneClaim.take(wda_phone_key(self.url),
                                         f"the iPhone at {mask_url(self.url)}")
        except PhoneBusy as busy:
            raise DeviceLost(f"{self.name}: " + phone_busy_words(busy, "FARM_IOS_WDA_URLS")) \
                from None

    def _await_status(self, patience_s: float) -> dict[str, Any]:
        """WDA's /status; an endpoint that does not answer is asked again for ``patience_s``
        (a reopen after a glitch: WebDriverAgent restarting, its USB tunnel re-forwarded take
        seconds), so the iPhone comes back instead of being dropped for the rest of the run.
        The first open fails at once: a wrong URL is said without a wait."""
        deadline = time.monotonic() + patience_s
        while True:
            try:
                return self._call(lambda: self._client.status(), "status", session=False)
            except DeviceLost:
                if self._killed or time.monotonic() > deadline:
                    raise
            log.info("%s: WebDriverAgent does not answer yet; asking again", self.name)
            time.sleep(REATTACH_POLL_S)

    def _describe(self, status: dict[str, Any]) -> str:
        """`ios_about`, then which iPhone it is: its UDID where WDA says it, and its WDA URL
        (as an Android phone's serial names it: two iPhones alike read differently)."""
        from farm.config import mask_url
        try:
            info = self._client.device_info() or {}
        except Exception as exc:    # an older WDA: the OS alone
            log.debug("%s: device info: %s", self.name, exc)
            info = {}
        udid = clean(str(info.get("udid") or ""))
        which = ((f"UDID {udid}, " if udid else "") + f"WDA {mask_url(self.url)}"
                 if self.say_which else "")
        return ", ".join(part for part in (ios_about(status, info), which) if part)

    def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and not self._killed:
            try:
                session.close()
            except Exception as exc:
                log.debug("%s: closing session: %s", self.name, exc)
        if self.claim is not None:
            self.claim.release()

    def _new_session(self, bundle: str | None = None, reset: bool = False) -> None:
        """Create a session (launching ``bundle``, its data reset with ``reset``) and read its
        screen. A session WDA calls invalid before its screen is read is made again, the same
        way (a new session on "invalid session id", as every other call gets), for REATTACH_S
        (a blip while WebDriverAgent restarts, waited out as a WDA that does not answer is):
        two in a row wrote a healthy iPhone off for the run."""
        from wda.exceptions import WDAInvalidSessionIdError

        def read_screen() -> tuple[Any, Any] | None:
            try:
                return (self._session._session_http.get("/wda/screen").value,
                        self._session.window_size())
            except WDAInvalidSessionIdError:
                return None

        args = [RESET_ARG] if reset else []
        deadline = time.monotonic() + REATTACH_S
        for attempt in itertools.count():
            if attempt > 1 and self._stopped.wait(REATTACH_POLL_S):
                raise DeviceLost(f"{self.name} was stopped")
            self._session = self._call(lambda: self._client.session(bundle, arguments=args),
                                       "create session", session=False)
            self.sessions_created += 1
            read = self._call(read_screen, "screen", session=False)
            if read is not None:
                screen, size = read
                self._scale = float(screen.get("scale") or 1)
                self._size = (int(size.width), int(size.height))
                self._see_system_alerts()
                return
            if time.monotonic() > deadline:
                break
            log.info("%s: new session invalidated at once; creating another", self.name)
        raise DeviceError(f"screen on {self.name}: session keeps being invalidated")

    def _see_system_alerts(self) -> None:
        """Ask WDA to say what is in front as a user sees it: with Appium WebDriverAgent's
        ``respectSystemAlerts`` on, a system alert over the app (a permission asked for at
        launch) makes ``activeAppInfo`` name SpringBoard and ``/source`` SpringBoard's tree
        holding the alert, so steps read and tap the alert. Off (its default) the source is
        the app's without the alert, and a tap aimed at the app's controls lands on the alert.
        A WDA without the setting (facebook's own) is left as it is."""
        try:
            self._call(lambda: self._session.appium_settings({"respectSystemAlerts": True}),
                       "settings", session=False)
        except DeviceError as exc:
            log.debug("%s: respectSystemAlerts not set: %s", self.name, exc)

    def start_session(self, target: "IosTarget | None") -> None:
        """A new WDA session per case; with ``launch`` the app starts fresh (data reset), or a
        URL (``launch: https://...``) is opened in whatever the phone opens it with."""
        self._need()
        self._in_case = False
        self.dismiss_keyboard = target is None or target.auto_dismiss_keyboard
        self._opened, self._step_said = None, []
        app = target.launch if target is not None else None
        bundle = app if app and not is_url(app) else None
        try:
            if bundle:
                self._call(lambda: self._session.app_terminate(bundle), "terminate")
            self._new_session(bundle, reset=bool(bundle))
        except DeviceError:
            if bundle:
                self._check_installed(bundle, starting=True)
            raise
        self._upright()
        if bundle:
            self._bundle = bundle
            self._wait_front(bundle)
        elif app:
            self._clear_left_alert()
            self.open_url(app)
        self._in_case = True

    def _clear_left_alert(self) -> None:
        """Close an alert left in front from before this case (a page's alert() a case before
        opened and did not answer), as a case opening a URL begins: it starts clean, as one
        launching its app does (its data reset), not failing on what another case left. A
        WDA that will not say or close it leaves it as it is."""
        try:
            shown = self._call(self._alert_shown, "alert")
            if shown is None:
                return
            log.info('%s: closing an alert left from before the case: "%s"', self.name,
                     shown[0])
            self._call(lambda: self._session.alert.dismiss(), "alert")
        except DeviceError as exc:
            log.info("%s: an alert left in front was not closed: %s", self.name, exc)

    def _upright(self) -> None:
        """Turn the phone back to portrait when a case before left it turned (a step's
        ``POST /orientation``): each case starts as a user holds the phone, as its app data
        starts empty. A WDA that will not say or turn is left as it is."""
        try:
            if self._call(lambda: self._session.orientation, "orientation") == "PORTRAIT":
                return
            self._call(lambda: setattr(self._session, "orientation", "PORTRAIT"),
                       "orientation")
        except DeviceError as exc:
            log.info("%s: not turned upright: %s", self.name, exc)
            return
        w, h = self.size()
        self._note_turn((min(w, h), max(w, h)))

    def end_session(self) -> None:
        self._in_case = False
        if self._bundle and self._session is not None and not self._killed:
            bundle = self._bundle
            try:
                self._call(lambda: self._session.app_terminate(bundle), "terminate")
            except Exception as exc:
                log.debug("%s: end_session: %s", self.name, exc)
        self._bundle = None

    # -- observation -------------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        """Screen size in points."""
        if self._size is None:
            raise DeviceError(f"{self.name} is not open")
        return self._size

    def screenshot(self) -> bytes:
        """PNG in points (pixels reduced by the scale factor)."""
        from PIL import Image

        self._shot_at = phone_edges.now()
        raw = self._call(lambda: self._session.screenshot(format="raw"), "screenshot")
        if not raw.startswith(b"\x89PNG"):
            raise DeviceError(f"screenshot on {self.name} is not a PNG")
        factor = round(self._scale)
        if factor <= 1:
            self._note_turn(png_frame(raw))
            self.screenshot_black = is_black(raw)
        else:   # decode once: the black check looks at the reduced image
            img = Image.open(io.BytesIO(raw)).reduce(factor)
            self._note_turn(img.size)
            self.screenshot_black = image_is_black(img)
        if self.screenshot_black:
            self.last_observation = "black-frame"
        if factor > 1:
            buf = io.BytesIO()
            img.save(buf, "PNG", compress_level=1)
            raw = buf.getvalue()
        self._shot = None if self.screenshot_black else raw
        return raw

    def _note_turn(self, frame: tuple[int, int] | None) -> None:
        """The screen turned since the session read its size (the app went landscape, a
        rotation asked for mid-case) when a screenshot or the source's app frame is the other
        way round: the size swaps, as WDA's coordinates and screenshots already have."""
        if self._size is None or frame is None:
            return
        w, h = self._size
        if w != h and frame[0] != frame[1] and \
                (frame[0] > frame[1]) != (w > h):
            self._size = (h, w)

    def hierarchy(self) -> UITree | None:
        """The WDA source tree; retried when empty, None when it stays empty. A source read
        for a screenshot's secrets just now (no action since: `phone_edges.spare`) is taken,
        not read again."""
        self.size()
        spare = phone_edges.spare(self._shown_tree)
        read = (spare.xml, spare.tree) if spare is not None else self._read_source()
        if read is None:
            self.last_observation = "empty-tree"
            # an empty source is often SpringBoard's after the app died: say so, not fall to OCR
            self._fail_if_app_gone()
            return None
        xml, tree = read
        self._last_xml, self._last_tree = xml, tree
        at = spare.at if spare is not None else phone_edges.now()
        self._shown_tree = phone_edges.Shown(tree, xml, at)
        self.last_observation = "tree"
        self._check_app_alive(xml)
        return tree

    def _read_source(self, keep_empty: bool = False) -> tuple[str, UITree] | None:
        """WDA's source and its tree with a visible element, retried when empty or
        unreadable; None when it stays so (``tree_problem`` says why). With ``keep_empty``, a
        source read whole that stays without a visible element (the last try's) is given."""
        self.tree_problem = EMPTY_SOURCE
        empty: tuple[str, UITree] | None = None
        for attempt in range(SOURCE_TRIES):
            if attempt:
                time.sleep(0.3 * attempt)
            xml = clean(self._call(lambda: self._session.source(), "source"))
            self._note_turn(app_frame(xml))
            w, h = self.size()
            try:
                tree = shown_parts(parse_wda(xml, w, h), w, h)
            except ValueError as exc:
                log.info("%s: unreadable source: %s", self.name, exc)
                self.tree_problem, empty = f"WDA's /source: {exc}", None
                continue
            if any(n.visible for n in tree.nodes):
                return xml, tree
            self.tree_problem, empty = EMPTY_SOURCE, (xml, tree)
        return empty if keep_empty else None

    def without_secrets(self, png: bytes) -> bytes:
        """``png`` (this screen's screenshot, for the report or a model) with each element of
        the WDA source holding a secret blacked out (`phone_edges.without_secrets`)."""
        return phone_edges.without_secrets(self, png, self._tree_now)

    def _tree_now(self) -> UITree:
        """The source tree of the screen as the last screenshot has it: the one read since
        the last action, within `phone_edges.TREE_KEPT_S` before that screenshot began, else
        one read now (`_read_source`: retried as `hierarchy` retries), kept for the step's
        next `hierarchy` while fresh; it changes nothing else (the last tree a step read: what
        its node ids name). DeviceError when WDA gives none (unreadable), or one without a
        visible element while an app is in front (its views unread); with SpringBoard's root
        (the home screen) that empty tree is the screen's: nothing on it to black out."""
        if phone_edges.fresh(self._shown_tree, self._shot_at):
            return self._shown_tree.tree
        kept = self.tree_problem
        read = self._read_source(keep_empty=True)
        problem, self.tree_problem = self.tree_problem, kept
        if read is None:
            raise DeviceError(problem)
        if not any(n.visible for n in read[1].nodes):
            # nothing shows: no app in front (the home screen after the app died or was
            # stopped: the source's root is SpringBoard's) shows none of the case's text; an
            # app in front whose views WDA does not give may (its tree is unread, not empty)
            root = _APP_ROOT.search(read[0])
            front = clean(root.group(1)) if root is not None else ""
            if front.lower() not in (SPRINGBOARD, "springboard"):
                raise DeviceError(f"{problem} while {front or 'an app'} is in front")
            return read[1]
        self._shown_tree = phone_edges.Shown(read[1], read[0], spare=True)
        return read[1]

    def _check_app_alive(self, xml: str) -> None:
        """StepFailed when the app the case launched has stopped running (WDA's app state 1):
        it crashed (or was stopped) during the case, so a step looking for its screen fails
        saying so, where it read as a miss on the home screen ("needs a model", skipped). Not
        asked while the source is the app's own (its root named by its bundle id)."""
        root = _APP_ROOT.search(xml)
        if root is None or root.group(1) != self._bundle:
            self._fail_if_app_gone()

    def _fail_if_app_gone(self) -> None:
        """StepFailed when the app the case launched has stopped running (see
        `_check_app_alive`)."""
        bundle = self._bundle
        if bundle is None:
            return
        try:
            state = self._call(lambda: self._session.app_state(bundle).value, "app state")
        except SessionReplaced:
            raise
        except DeviceError:          # an older WDA: nothing said
            return
        if state == 1:
            raise StepFailed(f"{bundle} is no longer running on {self.name} (front: "
                             f"{self.current_app() or 'unknown'}): it crashed or was stopped "
                             f"during the case; {CRASH_REPORTS}")

    def await_change(self, timeout_s: float, quiet_s: float | None = None) -> bool:
        """Wait for the screen to change from the last tree read (a locate that missed waits so
        for a target still coming): WDA's source read again until it differs (True), for
        ``timeout_s``, or ``quiet_s`` when given (False)."""
        return await_tree_change(
            lambda: clean(self._call(lambda: self._session.source(), "source")),
            self._last_xml or None, timeout_s, quiet_s)

    def query_xpath(self, xpath: str) -> list[Rect]:
        tree = self.hierarchy()
        return query_xml(self._last_xml, xpath, tree) if tree is not None else []

    # -- actions -------------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        self._call(lambda: self._session.tap(int(x), int(y)), "tap")

    def double_tap(self, x: int, y: int) -> None:
        self._call(lambda: self._session.double_tap(int(x), int(y)), "double tap")

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self._call(lambda: self._session.tap_hold(int(x), int(y), duration_ms / 1000),
                   "touch and hold")

    def hover(self, x: int, y: int) -> None:
        """Touch screens have no hover: nothing to do."""

    def pinch(self, x: int, y: int, reach: int, spread: bool, duration_ms: int = 500) -> None:
        """Two fingers above and below (x, y) move ``reach`` points each, apart (``spread``)
        or together: W3C actions, as Midscene sends them to WebDriverAgent."""
        upper, lower = pinch_paths(x, y, reach, spread, self.size())
        self.wda_request("POST", "/session/{sessionId}/actions", {"actions": [
            finger_path(name, *path, SWIPE_PRESS_MS, duration_ms)
            for name, path in (("finger1", upper), ("finger2", lower))]})

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """A swipe: the finger down SWIPE_PRESS_MS, moved to (x2, y2) in ``duration_ms`` and
        lifted, as W3C actions (as Midscene's iOS swipe). Not WDA's dragfromtoforduration (what
        facebook-wda's ``swipe`` sends): its duration is how long the finger is held before it
        moves (XCTest's pressForDuration:thenDragToCoordinate:), so a 600 ms swipe was a long
        press, which picks a table row up or opens a context menu, and then a drag."""
        self.wda_request("POST", "/session/{sessionId}/actions", {"actions": [finger_path(
            "finger1", (x1, y1), (x2, y2), SWIPE_PRESS_MS, duration_ms)]})

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 600) -> None:
        """Drag what is at (x1, y1) to (x2, y2): the finger held down DRAG_HOLD_MS (a long
        press, which starts a drag in a list that reorders or on the home screen), moved in
        ``duration_ms`` and lifted, as one W3C action sequence, as Appium's XCUITest driver
        plays a drag."""
        self.wda_request("POST", "/session/{sessionId}/actions", {"actions": [finger_path(
            "finger1", (x1, y1), (x2, y2), DRAG_HOLD_MS, duration_ms)]})

    def scroll(self, x: int, y: int, dx: int, dy: int) -> bool | None:
        """Scroll content by (dx, dy) points: the finger moves the other way, in swipes that
        move that far (`phone_edges.scroll_swipes`: begun near the edge they move away from,
        a long distance split, as on Android: one swipe cut at the screen's edge moved 420 of
        2000 pt); ``scrolled_px`` says how far they went. Whether anything moved, from the
        screens before and after each swipe (`phone_edges.screen_moved`; the last screenshot
        is the one before when no action came since): the swipes stop at the first that moved
        nothing (the end came); None when a screenshot cannot tell (black frames)."""
        swipes = phone_edges.scroll_swipes(x, y, dx, dy, self.size())
        before = self._shot or self.screenshot()
        blind = self.screenshot_black
        moved, self.scrolled_px = False, 0
        for x1, y1, x2, y2 in swipes:
            if blind:
                self.swipe(x1, y1, x2, y2, 300)
            else:
                went, before = self._swiped_moved(before, (x1, y1, x2, y2))
                if not went:
                    break
                blind = self.screenshot_black
            moved = True
            self.scrolled_px += max(abs(x2 - x1), abs(y2 - y1))
        return None if blind else moved

    def _swiped_moved(self, before: bytes,
                      finger: tuple[int, int, int, int]) -> tuple[bool, bytes]:
        """One swipe of a scroll: whether the screen moved (True too when its screenshot after
        is black: `screenshot_black` says so), and that screenshot. A frame with nothing in
        it to see move (a long blank or gently shaded stretch of a page: `blank_frame`) has
        the source's element frames compared too (two such frames look the same, and a
        scroll to the end stopped after two swipes, half way down)."""
        frames = self._frames() if blank_frame(before) else None
        self.swipe(*finger, 300)
        after = self.screenshot()
        if self.screenshot_black:
            return True, after
        return (phone_edges.screen_moved(before, after) or
                (frames is not None and self._frames() != frames)), after

    def _frames(self) -> list[tuple[str, str]]:
        """Where each element of WDA's source is (its x, y): what moves when the content
        scrolls, whether or not it shows."""
        return _XY.findall(clean(self._call(lambda: self._session.source(), "source")))

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        """Before a tap at (x, y) on node ``node`` of the last `hierarchy`: a target under the
        keyboard has it dismissed first (`phone_edges.clear_of_keyboard`); one that shows
        only a strip at the screen's edge is swiped in (`phone_edges.tap_point`)."""
        x, y, node = phone_edges.clear_of_keyboard(self, self._last_tree, node, x, y)
        return phone_edges.tap_point(self, self._last_tree, node, x, y)

    def keyboard_top(self) -> int | None:
        """The keyboard's top edge (points) in the last source read (its
        XCUIElementTypeKeyboard), None when that holds none."""
        tree = self._last_tree
        board = next((n for n in (tree.nodes if tree is not None else ())
                      if n.role == "XCUIElementTypeKeyboard" and n.visible), None)
        return board.rect.y if board is not None else None

    def scroll_into_view(self, node: UINode) -> bool:
        """One swipe (60% of the screen) toward an off-screen ``node``; False when its bounds
        do not say which edge it is beyond. Sideways along the row the node is in (a carousel
        scrolls under the finger only), kept off the screen's top and bottom edges (the home
        gesture)."""
        w, h = self.size()
        finger = swipe_toward(node.rect, (w, h))
        if finger is None:
            return False
        x1, y1, x2, y2 = finger
        if y1 == y2:
            y1 = y2 = min(max(node.rect.y + node.rect.height // 2, h // 10), h * 9 // 10)
        self.swipe(x1, y1, x2, y2, 300)
        return True

    def type_text(self, text: str) -> None:
        """Key by key into whatever has the focus (``/wda/keys``: what `mode: typeOnly` asks
        for, and the keys `press` types). With no keyboard showing WDA refuses: the step's
        failure (StepFailed), not the iPhone's."""
        self._call(lambda: self._keys(text), "type")

    def _keys(self, text: str) -> None:
        from wda.exceptions import WDAKeyboardNotPresentError
        try:
            self._session.send_keys(text)
        except WDAKeyboardNotPresentError:
            raise StepFailed(f"no keyboard shows on {self.name}, and keys go through it: "
                             "tap a text field first, or give the key a locate: (a key "
                             "right after an aiInput goes to the field it typed into)") \
                from None

    def fill(self, text: str) -> bool:
        """Replace the focused field's content with ``text`` in one go: WDA's own element
        endpoints, as facebook-wda's ``Element.clear_text`` / ``set_text`` send them (the agent
        types the whole string on the device: one request, not one per key). False when no
        element has the keyboard focus (nothing was done)."""
        def replace(field: Any) -> None:
            field.clear_text()
            if text:
                field.set_text(text)
                self._note_cut(field, text)
        return self._call(lambda: self._on_focused(replace), "fill")

    def _note_cut(self, field: Any, text: str) -> None:
        """A step note (`step_notes`) when ``field``, read again (its ``value``), holds a start
        of ``text`` shorter than it: its maxlength cut the value, as the web and Android say
        it; a secret's length alone is said. A value with keys in it (a line break, a tab)
        is not looked at."""
        from wda.exceptions import WDAError
        if len(text) < 2 or any(c in text for c in "\t\n\r\b"):
            return
        try:
            holds = field.value
        except WDAError as exc:         # (a note is a help: not read, not said)
            log.info("%s: field not read after typing: %s", self.name, exc)
            return
        given = "the text" if self.hide(text) != text else f'"{text}"'
        note = kept_words("field", holds if isinstance(holds, str) else "", text, given)
        if note:
            self._step_said.append(note)
            log.info("%s: %s", self.name, note)

    def step_notes(self) -> list[str]:
        """What the step that just ended says though it did what it was asked (the runner
        asks at each step's end): a value a field's maxlength cut (`_note_cut`)."""
        said, self._step_said = self._step_said, []
        return said

    def _on_focused(self, act: Callable[[Any], None]) -> bool:
        """``act`` on the element with the keyboard focus; False when none has it. The app may
        draw the field anew between WDA's find and its use (a re-render: "stale element
        reference"): it is found again once; stale again, the step fails (the app's state,
        not the phone's)."""
        from wda.exceptions import WDAStaleElementReferenceError
        for _ in range(2):
            field = self._focused_field()
            if field is None:
                return False
            try:
                act(field)
                return True
            except WDAStaleElementReferenceError:
                log.info("%s: the focused field went stale; finding it again", self.name)
        raise StepFailed("the text field was drawn anew each time farm typed into it (WDA: "
                         "stale element reference, twice): the app keeps re-rendering it; "
                         "wait for the screen to settle first (e.g. waitForText), or type "
                         "key by key with mode: typeOnly")

    def check_text_focus(self) -> None:
        """After a tap meant for a text field: StepFailed when no element has the keyboard
        focus (WDA's ``GET /element/active`` finds none; a real WDA then refuses keys too)."""
        if self._call(self._focused_field, "active element") is None:
            self._fail_if_app_gone()        # what took the tap may have been its crash
            raise StepFailed("no text field took the text: nothing has the focus where it "
                             "tapped (a view that reads keys itself takes them with mode: "
                             "typeOnly)")

    def _focused_field(self) -> Any:
        """The element with the keyboard focus (``GET /element/active``), or None."""
        import wda
        from wda.exceptions import WDARequestError
        try:
            found = self._session._session_http.get("/element/active").value
        except WDARequestError as exc:
            if isinstance(exc.value, dict) and exc.value.get("error") == "no such element":
                return None
            raise
        return wda.Element(self._session, found.get("ELEMENT") or found[W3C_ELEMENT])

    def hide_keyboard(self) -> None:
        """autoDismissKeyboard: hide the keyboard once aiInput's text is in (WDA's
        ``/wda/keyboard/dismiss``). One WDA cannot dismiss (no keyboard shows: a hardware one
        is attached, or the field took the text without one) is no failure, as in Midscene.
        The field is remembered: a key pressed next goes to it (`press`)."""
        try:
            field = self._call(self._focused_field, "active element")
        except DeviceError as exc:      # (remembering it is a help, never a failure)
            log.info("%s: no focused field known: %s", self.name, exc)
            field = None
        try:
            self.wda_request("POST", "/session/{sessionId}/wda/keyboard/dismiss", {})
        except StepFailed as exc:       # what WDA refused (a broken connection still raises)
            log.info("%s: keyboard not dismissed: %s", self.name, exc)
            return
        self._typed_into = field

    def clear_text(self) -> None:
        """Empty the focused field (WDA's element ``/clear``); with no field known to have the
        focus, delete backwards from the caret."""
        def clear() -> None:
            if not self._on_focused(lambda field: field.clear_text()):
                self._keys("\b" * 40)
        self._call(clear, "clear")

    def press(self, key: str) -> None:
        k = key.strip().lower()     # IOS_TYPED / IOS_BUTTONS / IOS_GESTURES: what loads
        if k in IOS_TYPED:
            self._type_key(IOS_TYPED[k])
        elif k == "home":
            self.home()
        elif k == "back":
            self.back()
        elif k in ("volumeup", "volumedown"):
            self._call(lambda: self._session.press(k[:6] + k[6:].capitalize()), "press")
        else:
            raise StepFailed(f"key {key!r} cannot be pressed on iOS; it presses "
                             f"{', '.join([*IOS_TYPED, 'home', 'volumeup', 'volumedown'])}, "
                             "and back (the swipe from the screen's left edge)")

    def _type_key(self, char: str) -> None:
        """A key typed into the field with the keyboard focus. Right after an aiInput hid the
        keyboard (autoDismissKeyboard, true by default), it goes to the field that aiInput
        typed into, as on Android, where the field keeps the focus under a hidden keyboard
        (`aiInput` then `aiKeyboardPress: Enter` passes on both): WDA's element ``/value``
        gives the field the focus back and types the key (XCTest's typeText), and the
        keyboard is hidden again. A field gone by then (the app drew it anew) is said."""
        from wda.exceptions import WDARequestError
        field = self._typed_into
        if field is None:
            self.type_text(char)
            return

        def send() -> bool:
            try:
                field.set_text(char)
            except WDARequestError as exc:      # stale: the app drew it anew, or it went
                log.info("%s: the field typed into is gone: %s", self.name, exc)
                return False
            return True
        if not self._call(send, "type"):
            raise StepFailed("the text field the last aiInput typed into is gone (the app "
                             "drew it anew), and the keyboard it hid is down: give the key "
                             "a locate: (aiKeyboardPress with locate:), or keep the keyboard "
                             "up with autoDismissKeyboard: false on the aiInput")
        self.hide_keyboard()

    def back(self) -> None:
        """iOS has no Back button: the edge swipe from the left, as iOS goes back (a
        navigation stack's interactive pop, Safari's history). StepFailed when the screen did
        not change: this screen has no way back by that swipe, which a step meant for Back
        must not pass over."""
        w, h = self.size()
        before = self._shot or self.screenshot()
        blind = self.screenshot_black
        self.swipe(2, h // 2, w * 2 // 3, h // 2, 200)
        if blind or phone_edges.screen_moved(before, self.screenshot()) or \
                self.screenshot_black:
            return
        raise StepFailed("iOS has no Back key: farm swiped from the screen's left edge, as "
                         "iOS goes back, and the screen did not change (nothing to go back "
                         "to that way here); tap the app's own back button instead (aiTap "
                         "with its label)")

    def home(self) -> None:
        self._call(lambda: self._client.home(), "home", session=False)

    def launch(self, app: str) -> None:
        """Start bundle ``app`` and wait until it is in front; a URL is opened instead
        (`open_url`). An app the phone does not have is the case's mistake (StepFailed)."""
        if is_url(app):
            self.open_url(app)
            return
        try:
            self._call(lambda: self._session.app_launch(app), "launch")
        except DeviceError:
            self._check_installed(app)
            raise
        self._wait_front(app)
        self._bundle = app

    def open_url(self, url: str) -> None:
        """Open ``url`` in whatever the phone opens it with (Safari for a web page, an app for
        its own scheme): WDA's ``POST /session/{id}/url``, as Midscene's launch of a URL. A URL
        WDA will not open is the case's mistake (StepFailed)."""
        from wda.exceptions import (WDAInvalidSessionIdError, WDAPossiblyCrashedError,
                                    WDARequestError)

        from farm.config import mask_url
        self._opened = mask_url(url)

        def send() -> None:
            try:
                self._session.open_url(url)
            except (WDAInvalidSessionIdError, WDAPossiblyCrashedError):
                raise
            except WDARequestError as exc:
                from farm.config import mask_urls_in     # (as the web shows a URL)
                said = exc.value.get("message") if isinstance(exc.value, dict) else exc.value
                raise StepFailed(f"{self.name} cannot open {mask_url(url)}: "
                                 f"{cut(mask_urls_in(clean(str(said))), 300)}") from None
        self._call(send, "open URL")

    def _check_installed(self, bundle: str, starting: bool = False) -> None:
        """After WDA refused to start ``bundle``: StepFailed naming it and the device when WDA
        knows no such app (its state is 0, unknown), so a wrong ``launch:`` (the case's, when
        ``starting``, else a launch step's) fails its case instead of counting against the
        device. Otherwise nothing: the refusal stands. (WDA lists no installed apps: no
        nearest id is said.)"""
        try:
            state = self._call(lambda: self._session.app_state(bundle).value, "app state")
        except (DeviceError, DeviceLost):
            return
        if state == 0:
            raise phone_edges.not_installed(
                bundle, self.name, starting,
                listing=" (`ideviceinstaller -l` or Xcode's Devices window lists the installed "
                        "ones)") from None

    def terminate(self, app: str) -> None:
        self._call(lambda: self._session.app_terminate(app), "terminate")
        if app == self._bundle:
            self._bundle = None         # stopped on purpose: no longer the app to watch

    def current_app(self) -> str | None:
        info = self._call(lambda: self._client.app_current(), "active app", session=False)
        return clean((info or {}).get("bundleId"))

    def _wait_front(self, bundle: str) -> None:
        """Wait until ``bundle`` is in front; a system alert it asked for in front of it (a
        permission) counts as in front: the alert is left for the case's steps to answer."""
        deadline = time.monotonic() + 5
        while (current := self.current_app()) != bundle:
            if current == SPRINGBOARD and self._alert_over(bundle):
                log.info("%s: %s asks for a permission: a system alert is in front of it",
                         self.name, bundle)
                return
            if time.monotonic() > deadline:
                raise not_in_front(bundle, self.name, current, (),
                                   CRASH_REPORTS)
            time.sleep(0.2)

    def _alert_over(self, bundle: str) -> bool:
        """Whether a system alert shows (WDA's ``/alert/text`` answers) over ``bundle``
        running in front (its state 4)."""
        from wda.exceptions import (WDAInvalidSessionIdError, WDAPossiblyCrashedError,
                                    WDARequestError)

        def shown() -> bool:
            try:
                self._session.alert.text
            except (WDAInvalidSessionIdError, WDAPossiblyCrashedError):
                raise
            except WDARequestError:         # "no such alert"
                return False
            return self._session.app_state(bundle).value == 4
        return self._call(shown, "alert")

    def run_script(self, code: str, timeout_s: float) -> Any:
        raise StepFailed("javascript steps run on the web only")

    def error_page(self) -> str | None:
        """What stands where the case's screen should be, asked when a step failed or missed
        a target the zero-token tiers looked for (`farm.runner` then fails it saying this,
        where a miss read as a step for a model, skipped, and the run passed): an alert in
        front of the app (a permission asked for: SpringBoard's), with its buttons; the
        browser's error page in place of a page (Safari's "Safari Can’t Open the Page"), or
        an HTTP error the page the case opened shows. None otherwise."""
        if self._killed or self._session is None:
            return None
        try:
            alert = self._call(self._alert_shown, "alert")
        except SessionReplaced as exc:  # (what a step read off the source alone missed)
            return exc.why
        if alert is not None:       # (a case's launch failed: no step of its came before)
            return dialog_failure("an alert", *alert, answerable=self._in_case)
        xml = clean(self._call(lambda: self._session.source(), "source"))
        w, h = self.size()
        try:
            tree = shown_parts(parse_wda(xml, w, h), w, h)
        except ValueError:
            return None
        return page_failure(shown_texts(tree), self._opened)

    failure_note = error_page       # (a step's failure says the same, e.g. an assertText's)

    def _alert_shown(self) -> tuple[str, list[str]] | None:
        """(its title, its buttons) of the alert WDA's ``/alert/text`` answers for, or None."""
        from wda.exceptions import (WDAInvalidSessionIdError, WDAPossiblyCrashedError,
                                    WDARequestError)
        try:
            text = str(self._session.alert.text or "")
        except (WDAInvalidSessionIdError, WDAPossiblyCrashedError):
            raise
        except WDARequestError:             # "no such alert"
            return None
        try:
            buttons = self._session._session_http.get("/wda/alert/buttons").value
        except WDARequestError:             # (an older WDA: the title alone)
            buttons = []
        return text.strip().split("\n")[0], [str(b) for b in buttons or []]

    def wda_request(self, method: str, path: str, data: Any = None) -> Any:
        """Send one request to WebDriverAgent (a suite's runWdaRequest); its ``value``.

        ``path`` is relative to the WDA URL; ``{sessionId}`` in it becomes the case's session.
        A request WDA refuses is the step's failure (one naming a session WDA does not know,
        not ``{sessionId}``, too); a connection that breaks is the device's.
        A string of the answer past 64K characters is kept as its tail (`kept_tails`: a
        screenshot's base64 put megabytes into results.json), masked before it is cut
        (`masking`: the request is sent from another thread).
        """
        import json

        from wda.exceptions import (WDAInvalidSessionIdError, WDAPossiblyCrashedError,
                                    WDARequestError)

        def send() -> Any:
            url = path.replace("{sessionId}", str(self._session.session_id))
            try:
                reply = self._client.http.fetch(method.upper(), url, data)
            except WDAInvalidSessionIdError:
                if "{sessionId}" in path:       # the case's own: made again (`_call`)
                    raise
                raise StepFailed(f"WDA knows no session {session_named(path) or ''} "
                                 f"({method.upper()} {path}): the case's session is "
                                 "{sessionId} in the endpoint".replace("  ", " ")) from None
            except WDAPossiblyCrashedError:
                raise
            except WDARequestError as exc:
                raise StepFailed(f"WDA refused {method.upper()} {url}: "
                                 f"{wda_refusal(exc)}") from None
            if method.upper() == "POST" and url.strip("/") == "session":    # the case's own
                self._own_sessions.add(str(reply.get("sessionId") or ""))
            # plain dicts, not AttrDicts; JSON's \udXXX escapes can carry a lone surrogate
            return kept_tails(clean(json.loads(json.dumps(reply.get("value")))), mask=mask)

        mask = output_mask()
        return self._call(send, f"{method.upper()} {path}", session="{sessionId}" in path)

    # -- health --------------------------------------------------------------------------------
    def healthy(self) -> bool:
        """WDA answers and is ready, and the screen is unlocked (unlocked here if needed: an
        app does not launch behind the lock screen). Called by the thread that owns the
        device (its DeviceSlot), before every case. A lock that stays is said (DeviceError):
        the device is reopened, and stays unusable, naming it."""
        if self._killed or self._client is None:
            return False
        try:
            if not self._client.status().get("ready", True):
                return False
        except Exception as exc:
            log.info("%s: health check failed: %s", self.name, exc)
            return False
        self._unlock()
        return True

    def _unlock(self) -> None:
        """Take the lock screen away (WDA's ``/wda/unlock`` wakes the screen and swipes it
        up). DeviceError naming the lock when it stays (a passcode guards it); a WDA that
        cannot say whether it is locked is left as it is."""
        try:
            if not self._call(lambda: self._client.locked(), "lock state", session=False):
                return
        except DeviceError as exc:
            log.debug("%s: lock state unknown: %s", self.name, exc)
            return
        log.info("%s: the screen is locked: unlocking it", self.name)
        why = "it is still locked"
        try:
            self._call(lambda: self._client.unlock(), "unlock", session=False)
            if not self._call(lambda: self._client.locked(), "lock state", session=False):
                return
        except DeviceError as exc:
            why = wda_refusal(exc.__cause__) if exc.__cause__ is not None else str(exc)
        raise DeviceError(f"{self.name} is locked, and WebDriverAgent could not unlock it "
                          f"({why}): no app starts behind the lock screen; take its passcode "
                          "off (Settings > Face ID & Passcode) or unlock it by hand")

    def kill(self) -> None:
        """Mark the device dead (any thread): a WDA call in flight is no longer waited for
        (facebook-wda's HTTP cannot be interrupted: it ends by its own timeout, unheard) and
        the next call raises DeviceLost."""
        self._killed = True
        self._stopped.set()

    # -- plumbing ------------------------------------------------------------------------------
    def _need(self) -> Any:
        if self._killed:
            raise DeviceLost(f"{self.name} was stopped")
        if self._client is None:
            raise DeviceError(f"{self.name} is not open")
        return self._client

    def _check_not_replaced(self, what: str) -> None:
        """After WDA called the case's session invalid mid-case: DeviceError when another
        client holds a session now (WDA's /status names it: Appium Inspector, a script's
        ``POST /session``, which WDA's one session at a time ends ours by, and its bundleId
        relaunches the app), so the case ends as the device's error and is retried, where a
        new session of ours went on and the app's lost state read as the app's failure ("no
        element matches", "is no longer running"). The case's later calls say the same (the
        dead session is kept). Between cases, and when WDA holds no session (it restarted),
        a new one is made as before."""
        if not self._in_case:
            return
        try:
            holder = self._client.status().get("sessionId")
        except Exception as exc:      # (a WDA that does not say: a new session, as before)
            log.debug("%s: status after an invalid session: %s", self.name, exc)
            return
        ours = getattr(self._session, "session_id", None)
        if holder and holder != ours and holder not in self._own_sessions:
            log.warning("%s: WDA session %s was replaced by %s, another client's, mid-case",
                        self.name, ours, holder)
            raise SessionReplaced(f"{what} on {self.name}", "WDA session was replaced by "
                                  "another client mid-case (the app's state is lost): "
                                  "something else (Appium Inspector, a script) created a "
                                  "WebDriverAgent session on this iPhone while the case ran; "
                                  "keep other WDA clients off it during a run") from None

    def _call(self, fn: Callable[[], T], what: str, session: bool = True) -> T:
        """Run a WDA call: a dead session is re-created once; failures mapped."""
        import requests
        from wda.exceptions import (WDABadGateway, WDAEmptyResponseError, WDAError,
                                    WDAInvalidSessionIdError)
        from wda.usbmux.exceptions import HTTPError, MuxError

        self._need()
        if what not in ("screenshot", "source"):    # (anything else may change the screen)
            self._shot = None
        if what not in _LOOKS:          # (anything else may move the focus, or the screen)
            self._typed_into = self._shown_tree = None
        for attempt in (1, 2):
            try:
                if session and self._session is None:
                    self._new_session()
                return not_wda_json(lambda: call_unless_cancelled(fn, self._stopped,
                                                                  f"{self.name} {what}"))
            except Cancelled:
                raise DeviceLost(f"{self.name} was stopped during {what}") from None
            except WDAInvalidSessionIdError as exc:
                if not session or attempt == 2:
                    raise DeviceError(f"{what} on {self.name}: session keeps being "
                                      "invalidated") from exc
                self._check_not_replaced(what)
                log.info("%s: invalid session id; creating a new session", self.name)
                self._new_session()
            except (requests.RequestException, OSError, HTTPError, MuxError, WDABadGateway,
                    WDAEmptyResponseError, _NotWdaAnswer) as exc:   # WDA itself is not there
                from farm.config import mask_url     # which of FARM_IOS_WDA_URLS it is
                # (an empty answer's error holds the request's body: a typed text, not chained)
                raise DeviceLost(f"{self.name} lost ({what}): "
                                 f"{cut(unreachable_why(self.url, exc), 200)} (WebDriverAgent "
                                 f"at {mask_url(self.url)})") \
                    from (None if isinstance(exc, WDAEmptyResponseError) else exc)
            except WDAError as exc:
                if self._killed:
                    raise DeviceLost(f"{self.name} was stopped") from exc
                raise DeviceError(f"{what} failed on {self.name}: "
                                  f"{cut(wda_refusal(exc), 200)}") from exc
        raise AssertionError("unreachable")


WDA_SCHEMES = ("http://", "https://", "http+usbmux://")     # what facebook-wda reaches
_TAG = re.compile(r"<[^>]*>")


class _NotWdaAnswer(Exception):
    """An answer that is not WebDriverAgent's JSON: an error page of what stands in front of
    it (a proxy saying 503 while WDA restarts), or another server on its port. ``args``:
    method, path and the page's text."""


def not_wda_json(fn: Callable[[], T]) -> T:
    """``fn()``, facebook-wda's plain WDAError for an answer that is no JSON raised as
    `_NotWdaAnswer`: WDA is not there, as when nothing answers (DeviceLost, waited for on a
    reopen). Before, it was the device refusing an action, said as a tuple with the page's
    markup (``status failed on iphone-1: ('GET', 'http://…/status', '<html><head>…')``)."""
    from wda.exceptions import WDAError
    try:
        return fn()
    except WDAError as exc:
        if type(exc) is not WDAError or len(exc.args) != 3:   # (WDA's own JSON errors)
            raise
        method, url, text = (str(a) for a in exc.args)
        words = " ".join(_TAG.sub(" ", text.removesuffix("...")).split())
        raise _NotWdaAnswer(method, urlsplit(url).path or "/", words) from None


def session_named(path: str) -> str:
    """The session id a WDA endpoint names (``/session/ID/...``), or "" when none."""
    parts = path.split("/")
    return parts[parts.index("session") + 1] if "session" in parts[:-1] else ""


def wda_url_problem(url: str) -> str:
    """What is wrong with a WebDriverAgent URL that is none of WDA_SCHEMES'."""
    from farm.config import usbmux_url
    if "://" not in url and usbmux_url(url):     # (http://UDID reaches no iPhone)
        return (f"no scheme: a USB iPhone's UDID is reached through usbmuxd: write "
                f"{usbmux_url(url)}")
    if "://" not in url:
        return f"no scheme: write http://{url} (or http+usbmux://<udid>:8100 for a USB iPhone)"
    return (f"farm's WebDriverAgent client speaks {', '.join(s[:-3] for s in WDA_SCHEMES)}, "
            f"not {url.split('://', 1)[0]}")


def wda_url_path(url: str) -> str:
    """What is wrong with a WebDriverAgent URL that has a path (Appium's ``/wd/hub``: WDA
    answers at its root, and a URL with a path passed the pre-run check on WDA's 404 there,
    then the run ended with a WDARequestError), or "" when it has none."""
    try:
        path = urlsplit(url).path.rstrip("/")
    except ValueError:
        return ""           # (said where the URL is used)
    return f"(WebDriverAgent's URL has no path: drop {path}?)" if path else ""


class NotWda(Exception):
    """A server that answered WebDriverAgent's ``/status``, but not as WDA does (an HTTP error,
    a page that is not JSON): another server on that port. ``str()`` says what it answered."""


def wda_status(url: str, timeout_s: float) -> dict[str, Any]:
    """The value of ``url``'s ``/status`` (facebook-wda's own fetch, as the runs reach WDA:
    http, https and a USB iPhone's http+usbmux://), as `farm devices` and the pre-run check
    ask it; NotWda when what answered is not WebDriverAgent (was "Expecting value: line 1
    column 1 (char 0)", or "?"), what the fetch raises when nothing answers."""
    import json

    from wda.usbmux import fetch
    reply = fetch(url.rstrip("/") + "/status", timeout=timeout_s)
    try:
        found = json.loads(reply.content)
    except ValueError:
        found = None
    if reply.status_code != 200 or not isinstance(found, dict):
        raise NotWda(f"answered HTTP {reply.status_code}"
                     f"{'' if isinstance(found, dict) else ' / not JSON'}: "
                     "not a WebDriverAgent")
    value = found.get("value")
    return value if isinstance(value, dict) else {}


def unreachable_why(url: str, exc: BaseException) -> str:
    """Why the WebDriverAgent at ``url`` did not answer, in a line. facebook-wda wraps what
    failed in its HTTPError (unwrapped here); for a USB-connected iPhone (``http+usbmux://
    <udid>:<port>``), usbmuxd's part is said, not a bare "No such file or directory"."""
    from wda.exceptions import WDABadGateway, WDAEmptyResponseError
    from wda.usbmux.exceptions import HTTPError

    from farm.text import first_line
    if not url.startswith(WDA_SCHEMES):     # "unknown scheme:", "Invalid URL"
        return wda_url_problem(url)
    if isinstance(exc, NotWda):
        return str(exc)
    if isinstance(exc, WDAEmptyResponseError):  # (method, url, data): never the data, which
        method, asked = (list(exc.args) + ["", ""])[:2]      # holds the text typed
        return (f"WebDriverAgent answered {method} {urlsplit(str(asked)).path or '/'} with "
                "nothing (it may have crashed)")
    if isinstance(exc, _NotWdaAnswer):
        method, path, words = exc.args
        return (f"{method} {path} was answered by something other than WebDriverAgent (is it "
                f"restarting, or another server on its port?): {cut(words, 100) or 'no text'}")
    if isinstance(exc, WDABadGateway):      # (502, the page)
        page = " ".join(_TAG.sub(" ", str(exc.args[-1]) if exc.args else "").split())
        return ("502 Bad Gateway from what stands in front of WebDriverAgent (it is down or "
                f"restarting): {cut(page, 100) or 'no text'}")
    inner = exc.args[0] if isinstance(exc, HTTPError) and exc.args else exc
    if url.startswith("http+usbmux:"):
        if isinstance(inner, (FileNotFoundError, ConnectionRefusedError)):
            return ("no usbmuxd answers on /var/run/usbmuxd (it connects USB iPhones: is it "
                    "running, the iPhone plugged in and trusted?)")
        if isinstance(inner, AttributeError):      # usbmuxd listed no such device (None)
            return "usbmuxd knows no iPhone with that UDID (plugged in and trusted?)"
    return clean(first_line(inner if isinstance(inner, BaseException) else exc))
