"""AndroidDevice: one phone (or simulated phone) driven through adbutils.

Honours ANDROID_ADB_SERVER_HOST/PORT (adbutils reads them) and ANDROID_SERIAL (registry).
farm only attaches to an adb server (someone's, or its own simulator): it never starts one.
Every shell command goes over shell_v2 where the device offers it (Android 7+; an older one's
single stream is read apart, a binary output through exec:), so stderr and the exit code
are read: `input` refused by the system prints a SecurityException on stderr and exits 0 --
that is an error here, never a silent success.
"""

from __future__ import annotations

import base64
import functools
import io
import logging
import os
import re
import socket
import threading
import time
import weakref
import zlib
from typing import TYPE_CHECKING, Any, Callable

from farm.devices import phone_edges
from farm.devices.base import Rect, UINode, UITree, await_tree_change, swipe_into_view
from farm.devices.keys import android_keycode
from farm.devices.native_tree import (android_dialog, dialog_failure, page_failure,
                                     parse_uiautomator, parse_xml, query_xml, shown_texts)
from farm.devices.procs import PhoneBusy, PhoneClaim
from farm.errors import ConfigError, DeviceError, DeviceLost, StepFailed
from farm.text import clean, cut, unmasked

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings
    from farm.suite.model import AndroidTarget

log = logging.getLogger(__name__)

DUMP_PATH = "/data/local/tmp/farm_uidump.xml"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
YADB = "/data/local/tmp/yadb"      # yadb's jar: multi-touch gestures `input` cannot do
SHELL_TIMEOUT_S = 30.0     # farm's own commands (screencap, input, a dump) and adb's socket
# what adbutils passes for a call farm gave no timeout (open_transport, get_state, shell, …):
# 10 minutes a call, so a frozen adb server held a device's restart, and the run, for minutes
ADBUTILS_DEFAULT_TIMEOUT_S = 600
DUMP_TRIES = 4
DRAG_HOLD_MS = 1000         # a drag's long press (ViewConfiguration's timeout is 400-500 ms)
DRAG_STEPS = 10             # the moves of a drag made of `input motionevent` commands
KEYBOARD_HIDE_S = 1.0      # for the soft keyboard to say it is gone after Escape / Back
# how long a phone that is offline / not listed gets to come back when it is (re)opened
REATTACH_S = 10.0
REATTACH_POLL_S = 0.5
_TRANSIENT_STATES = ("offline", "connecting", "authorizing")

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_PACKAGE = re.compile(r'<node [^>]*?package="([^"]*)"')    # the dump's first node: its window
_DUMP_ERROR = re.compile(r"^\s*ERROR:|could not get idle state", re.I | re.M)
# the soft keyboard's window in `dumpsys window InputMethod`: its frame (Android 11+ "Frames:
# ... frame=[x1,y1][x2,y2]", older "mFrame=[...]"), and the part of it above its keys
_IME_FRAME = re.compile(r"(?:\bmFrame|(?<!last )\bframe)=\[-?\d+,(-?\d+)\]\[-?\d+,-?\d+\]")
_IME_INSET = re.compile(r"mGivenContentInsets=\[-?\d+,(\d+)\]")
_ROTATION = re.compile(r'<hierarchy[^>]*?\srotation="(\d)"')   # how the screen is turned
# where a phone says which window has the focus: Android 10+, then older ones
FOCUS_COMMANDS = ("dumpsys window displays", "dumpsys window windows")
_FOCUS = re.compile(r"mCurrentFocus=Window\{[^}]*\s(?P<pkg>[^\s/}]+)/(?P<act>[^\s}]+)\}")
# adbutils/socket failures that mean the device or the adb server went away
_LOST = re.compile(r"closed|not found|offline|unknown data|connection|reset|broken pipe|"
                   r"timed? ?out|refused|no devices", re.I)


# What to do about a phone the adb server lists in a state other than "device" (adb's own
# states; "no permissions (...)" reads as "no" once the line is split into words).
ADB_STATE_HINTS = {
    "unauthorized": "accept the USB debugging prompt on the phone",
    "authorizing": "the phone is still deciding whether to trust this computer: wait and retry",
    "offline": "replug its cable, or run `adb reconnect`",
    "connecting": "the adb server is still connecting to it: wait and retry",
    "no": "the adb server may not open it: check the USB permissions (udev rules)",
    "bootloader": "it is in the bootloader: reboot it into Android",
    "recovery": "it is in recovery: reboot it into Android",
    "sideload": "it is in sideload mode: reboot it into Android",
}


def adb_state_words(state: str) -> str:
    """``"unauthorized: accept the USB debugging prompt on the phone"``: a phone's adb state
    and what to do about it."""
    shown = "no permissions" if state == "no" else state
    hint = ADB_STATE_HINTS.get(state, "not ready for adb commands")
    return f"{shown}: {hint}"


def is_black(png: bytes) -> bool:
    """True when every pixel is (near) black: a FLAG_SECURE window or a screen that is off."""
    if _surely_not_black(png):
        return False
    from PIL import Image

    return image_is_black(Image.open(io.BytesIO(png)))


def image_is_black(img: Any) -> bool:
    """`is_black` of a decoded Pillow image."""
    img = img.convert("L")
    img.thumbnail((64, 64))
    return img.getextrema()[1] <= 8


def png_frame(png: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG, from its header; None when it is no PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return None
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _surely_not_black(png: bytes) -> bool:
    """A quick look at the start of the PNG's pixel data, without decoding the image: a byte
    that is neither near 0 nor near 256 (a filtered near-black pixel is a small difference
    either way) means a pixel far from black. False means: decode and look properly."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    inflate, pos, seen = zlib.decompressobj(), 8, 0
    try:
        while pos + 8 <= len(png) and seen < 1 << 20:
            length = int.from_bytes(png[pos:pos + 4], "big")
            chunk = png[pos + 8:pos + 8 + length] if png[pos + 4:pos + 8] == b"IDAT" else b""
            while chunk and seen < 1 << 20:
                data = inflate.decompress(chunk, 1 << 16)
                chunk, seen = inflate.unconsumed_tail, seen + len(data)
                if any(9 <= b <= 247 for b in set(data)):
                    return True
            pos += 12 + length
    except zlib.error:
        return False
    return False


def adb_client(host: str | None = None, port: int | None = None,
               socket_timeout: float | None = SHELL_TIMEOUT_S) -> Any:
    """An ``adbutils.AdbClient`` that never starts an adb server.

    adbutils runs ``adb start-server`` whenever a connection is refused, so listing devices
    with no server, or a phone whose simulator went away, left a daemon running on
    ANDROID_ADB_SERVER_PORT. Here a missing server is an AdbConnectionError instead.
    """
    _check_adb_port_variable()     # (adbutils reads it as it is imported, port given or not)
    return _attach_only_client()(host=host, port=port, socket_timeout=socket_timeout)


def _check_adb_port_variable() -> None:
    """A ConfigError for an ANDROID_ADB_SERVER_PORT that is no port number, as adb itself
    refuses it: adbutils reads it with int() as it is imported, and the ValueError was farm's
    "internal error" (exit 3) in `farm run` and `farm devices`."""
    raw = os.environ.get("ANDROID_ADB_SERVER_PORT")
    if raw is None:
        return
    try:
        port = int(raw)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise ConfigError(f"ANDROID_ADB_SERVER_PORT={raw!r}: not a port number (1-65535): "
                          "set it to the adb server's port, or unset it for 5037")


def adb_server_problem(client: Any) -> str | None:
    """None when an adb server answers at ``client``'s host:port (nothing is started), else
    what is wrong: none listens there, or one listens and does not answer (frozen, wedged:
    starting another would not help)."""
    from adbutils.errors import AdbTimeout
    where = f"{client.host}:{client.port}"
    try:
        client.ask_version()
        return None
    except AdbTimeout:
        return f"the adb server on {where} does not answer (stopped or wedged: restart it)"
    except Exception as exc:
        return _no_server_words(client.host, where, exc)


def _no_server_words(host: str, where: str, exc: BaseException) -> str:
    """Why no adb server answers at ``where``: "no adb server on …" for this machine (the
    callers add how to start one); a host name that does not resolve, or another machine's
    port where nothing listens, said as such (starting a local server would not help)."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, socket.gaierror) or isinstance(exc, socket.gaierror):
        return (f"the adb server's host {host!r} does not resolve (ANDROID_ADB_SERVER_HOST: a "
                "typo? give a name or address this machine can reach)")
    if "Unknown data" in str(exc):
        return (f"what answers on {where} is no adb server (it answered "
                f"{str(exc).partition('Unknown data: ')[2][:20] or 'nothing adb says'}): "
                "ANDROID_ADB_SERVER_HOST/PORT right?")
    if str(host).lower() in LOOPBACK_NAMES:
        return f"no adb server on {where}"
    return (f"nothing answers on {where} ({_errno_words(cause or exc)}): is the adb server of "
            "that machine running and reachable from here (`adb -a start-server` there, "
            "ANDROID_ADB_SERVER_HOST/PORT right)?")


def _errno_words(exc: BaseException) -> str:
    """``connection refused`` of an OSError; the error's words otherwise."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


@functools.cache
def _attach_only_client() -> type:
    import adbutils
    from adbutils.errors import AdbConnectionError, AdbError

    class AttachOnlyConnection(adbutils.AdbConnection):
        def _safe_connect(self) -> Any:
            return self._create_socket()     # adbutils' own would `adb start-server` first

    class AttachOnlyClient(adbutils.AdbClient):
        """Keeps the connections it opened, so `interrupt` can end a call blocked on one."""

        def __init__(self, host: str | None, port: int | None,
                     socket_timeout: float | None) -> None:
            super().__init__(host=host, port=port, socket_timeout=socket_timeout)
            self._farm_timeout = socket_timeout
            self._farm_open: weakref.WeakSet[Any] = weakref.WeakSet()
            self._farm_lock = threading.Lock()
            self._farm_stopped = False
            self._farm_version: int | None = None

        def server_version(self) -> int:
            """The server's version, asked once per client: adbutils asks it before it opens
            each transport, so every shell command cost two connections to the adb server
            (five phones: ~45 a second, thousands of sockets in TIME_WAIT). A server that
            restarts is met by a reopen, which makes a new client. `ask_version` asks."""
            if self._farm_version is None:
                self._farm_version = self.ask_version()
            return self._farm_version

        def ask_version(self) -> int:
            """Ask the server its version now (whether one answers: `adb_server_problem`)."""
            return int(super().server_version())

        def make_connection(self, timeout: float | None = None) -> Any:
            conn = AttachOnlyConnection(self.host, self.port)
            with self._farm_lock:
                if self._farm_stopped:
                    conn.close()
                    raise AdbConnectionError("stopped by farm")
                self._farm_open.add(conn)
            if timeout in (None, ADBUTILS_DEFAULT_TIMEOUT_S):     # not farm's own choice
                timeout = self._farm_timeout
            if timeout:
                conn.conn.settimeout(timeout)
            return conn

        def interrupt(self) -> None:
            """Any thread: end every call on this client's connections now (a blocked read
            returns at once) and refuse new ones."""
            with self._farm_lock:
                self._farm_stopped = True
                conns = list(self._farm_open)
            for conn in conns:
                try:
                    conn.conn.shutdown(socket.SHUT_RDWR)    # wakes a recv another thread is in
                except (AdbError, OSError):                 # closed already
                    pass

    return AttachOnlyClient


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "ip6-localhost")


def adb_phone_key(host: str, port: int, serial: str) -> str:
    """What names one phone to every farm process of this machine (its `PhoneClaim`): the
    adb server it is on and its serial (two simulators both have an emulator-5554)."""
    host = host.lower()
    return f"adb {'127.0.0.1' if host in LOOPBACK_NAMES else host}:{port} {serial}"


def phone_busy_words(busy: PhoneBusy, how: str) -> str:
    """What to do about a phone another farm run drives (``how``: how to choose phones)."""
    return (f"{busy}: a phone runs one farm run's cases at a time (two at once both fail); "
            f"wait for that run to end, or choose another phone with {how}")


# what `android_about` reads: one getprop per line, in one shell call
ABOUT_PROPS = ("ro.product.manufacturer", "ro.product.model", "ro.build.version.release",
               "ro.build.version.sdk")
ABOUT_COMMAND = "; ".join(f"getprop {p}" for p in ABOUT_PROPS)


def android_about(out: str) -> str:
    """What a phone is, from ABOUT_COMMAND's output: "<manufacturer> <model>, Android
    <release> (API <sdk>)" (the manufacturer left out where the model starts with it, and
    whatever the phone leaves unsaid)."""
    lines = [line.strip() for line in out.splitlines()] + ["", "", "", ""]
    maker, model, release, sdk = lines[:4]
    name = model if not maker or model.lower().startswith(maker.lower()) else f"{maker} {model}"
    system = (f"Android {release}" if release else "") + (f" (API {sdk})" if sdk else "")
    return ", ".join(part for part in (name, system.strip()) if part)


# Characters of a value typed by one shell command: an adb request's length is 4 hex digits
# (65535 bytes at most) and an older phone takes a service of at most 4096 bytes, so a long
# value goes as several commands (1000 ASCII characters quote to at most 4000 bytes; 600 others
# to at most 3200 of base64).
TYPE_CHUNK = 1000
IME_CHUNK = 600
CLEAR_CHUNK = 500           # Delete + Forward-delete pairs per `input keyevent` (3500 bytes)


def text_chunks(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, in order."""
    return [text[i:i + size] for i in range(0, len(text), size)]


def input_text_words(text: str) -> list[str]:
    """``text`` (ASCII, one line) as arguments of `input text`, which types its argument with
    every ``%s`` read as a space and any other ``%`` kept: spaces become ``%s``, and a literal
    ``%`` right before an ``s`` ends a word (the next one starts with the ``s``)."""
    return [w.replace(" ", "%s") for w in re.split(r"(?<=%)(?=s)", text)]


_TEXT_CLASSES = ("EditText", "AutoCompleteTextView", "WebView")


def focus_problem(xml: str) -> str:
    """What is wrong with the keyboard focus of a ``uiautomator dump`` for typing: "" when an
    editable element (or a WebView, whose page decides) has it, else what has it."""
    try:
        root = parse_xml(xml)
    except ValueError:
        return ""
    node = next((n for n in root.iter("node") if n.get("focused") == "true"), None)
    if node is None:
        return "nothing has the focus where it tapped"
    cls = node.get("class", "")
    if any(kind in cls for kind in _TEXT_CLASSES) and node.get("enabled") != "false":
        return ""
    shown = node.get("text") or node.get("content-desc") or node.get("resource-id") or ""
    return f'the focus is on {cls.rsplit(".", 1)[-1] or "an element"}' + \
        (f' "{shown[:60]}"' if shown else "")


def _focused_editable(xml: str | None) -> Any:
    """The focused editable element of a ``uiautomator dump``; None when none has the focus
    or it is a password field (whose text the dump leaves out)."""
    try:
        root = parse_xml(xml or "")
    except ValueError:
        return None
    node = next((n for n in root.iter("node") if n.get("focused") == "true"), None)
    if node is None or node.get("password") == "true" or \
            not any(kind in node.get("class", "") for kind in _TEXT_CLASSES[:2]):
        return None
    return node


def cut_note(xml: str | None, text: str, given: str) -> str | None:
    """The step note for ``text`` typed into the focused field of a dump read after it, when
    the field holds a start of it shorter than it (its maxlength took the rest, as the web's
    fill says it: `BrowserDevice._filled`); ``given``: how the note names the text."""
    node = _focused_editable(xml)
    if node is None:
        return None
    return kept_words(node.get("class", "").rsplit(".", 1)[-1] or "field",
                      node.get("text", ""), text, given)


def kept_words(kind: str, holds: str, text: str, given: str) -> str | None:
    """"the KIND kept 4 of the 6 characters of GIVEN typed into it" when a field that took
    ``text`` ``holds`` a start of it shorter than it; None otherwise (the whole value, another
    one: a field that formats what it takes, or nothing read)."""
    if not holds or len(holds) >= len(text) or not text.startswith(holds):
        return None
    return (f"the {kind} kept {len(holds)} of the {len(text)} characters of {given} typed "
            "into it (a maxlength, most likely)")


def focused_text_length(xml: str | None) -> int | None:
    """How many characters the focused editable element of a ``uiautomator dump`` holds (an
    empty one shows its hint: a few deletes too many do no harm); None as `_focused_editable`."""
    node = _focused_editable(xml)
    return None if node is None else len(node.get("text", ""))


def focused_field(xml: str | None) -> tuple[str, str] | None:
    """(bounds, text) of the focused editable element of a ``uiautomator dump``; None as
    `_focused_editable`, or when it has no bounds."""
    node = _focused_editable(xml)
    if node is None or not node.get("bounds"):
        return None
    return node.get("bounds", ""), node.get("text", "")


def text_at(xml: str | None, bounds: str) -> str | None:
    """The text of a dump's element at ``bounds`` (None: none there)."""
    try:
        root = parse_xml(xml or "")
    except ValueError:
        return None
    node = next((n for n in root.iter("node") if n.get("bounds") == bounds), None)
    return None if node is None else node.get("text", "")


def _spaced(text: str) -> str:
    return " ".join(text.split())


# What is in front when the phone, not the app, keeps an app from the front (its lock screen)
_DEVICE_FRONTS = ("com.android.systemui",)
# Whose window a runtime-permission request the app made shows in (Android 10+; before: the
# package installer's): the app started, its question is in front of it
PERMISSION_FRONTS = ("com.google.android.permissioncontroller",
                     "com.android.permissioncontroller", "com.android.packageinstaller")
# Whose windows are the system's dialogs over an app: those, and the system's own ("android":
# "… isn't responding", "Open with")
SYSTEM_DIALOG_FRONTS = (*PERMISSION_FRONTS, "android")


def not_in_front(app: str, device: str, front: str | None, device_fronts: tuple[str, ...],
                 how: str) -> Exception:
    """The error for an app that did not come to the front after its launch. Another app in
    front (the launcher) means it crashed or closed on start: the app's failure (StepFailed,
    not retried elsewhere, not counted against the device). Nothing known in front, or the
    phone's own lock screen, stays the device's trouble (DeviceError)."""
    if front is None or front in device_fronts:
        return DeviceError(f"{app} did not come to the front on {device} (front: "
                           f"{front or 'nothing known'}); is the phone locked or stuck?")
    return StepFailed(f"{app} did not come to the front on {device} after its launch (front: "
                      f"{front}): it crashed or closed on start; check the app build ({how})")


# A search swipe moves half the scrolling element, slowly enough that the list barely flings
# on past where the finger lifts: rows are read after each swipe, and a fling could carry one
# past the screen between two reads.
SEARCH_SWIPE_MS = 500
_HORIZONTAL = re.compile(r"Horizontal|ViewPager|Carousel", re.I)


def search_swipe(xml: str, forward: bool) -> tuple[int, int, int, int] | None:
    """The finger's (x1, y1, x2, y2) for one `AndroidDevice.swipe_to_find` swipe through the
    largest element of the dump ``xml`` that scrolls (shown area: bounds are clipped to the
    screen), from 75% to 25% of it; sideways when its class scrolls that way (a
    HorizontalScrollView, a ViewPager). None when nothing in it scrolls or it is unreadable."""
    try:
        root = parse_xml(xml)
    except ValueError:
        return None
    best: tuple[int, int, int, int, int] | None = None   # area, x1, y1, x2, y2
    horizontal = False
    for el in root.iter("node"):
        m = _BOUNDS.match(el.get("bounds", "")) if el.get("scrollable") == "true" else None
        if m is None:
            continue
        x1, y1, x2, y2 = (int(v) for v in m.groups())
        area = max(0, x2 - x1) * max(0, y2 - y1)
        if area and (best is None or area > best[0]):
            best = (area, x1, y1, x2, y2)
            horizontal = bool(_HORIZONTAL.search(el.get("class", "")))
    if best is None:
        return None
    _, x1, y1, x2, y2 = best
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    if horizontal:
        near, far = x1 + (x2 - x1) // 4, x2 - (x2 - x1) // 4
        return (far, cy, near, cy) if forward else (near, cy, far, cy)
    near, far = y1 + (y2 - y1) // 4, y2 - (y2 - y1) // 4
    return (cx, far, cx, near) if forward else (cx, near, cx, far)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


def _pidof_says(out: str, code: int) -> bool | None:
    """Whether ``pidof APP`` (its stdout, exit code) found a process; None when the phone
    cannot tell (no ``pidof`` before Android 7: exit 127)."""
    if out.strip():
        return True
    return False if code == 1 else None


# where a watched input's own exit status stands in its shell call's output (`_input_and_pidof`)
_INPUT_STATUS = "farm-input-exit:"

# which boot of the phone this is: the kernel's boot id (new at every start), and the uptime
# (where the boot id cannot be read); both readable by adb's shell user on every Android
BOOT_COMMAND = "cat /proc/sys/kernel/random/boot_id 2>/dev/null; cat /proc/uptime 2>/dev/null"
_BOOT_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.M)
_UPTIME = re.compile(r"^(\d+(?:\.\d+)?) \d", re.M)
UPTIME_SLACK_S = 5.0        # uptime behind the host's clock by more: the phone started again


def boot_mark(out: str) -> tuple[str | None, float | None, float]:
    """(boot id, uptime in seconds, this host's monotonic time) from `BOOT_COMMAND`'s
    output; None for what the phone did not say."""
    boot, up = _BOOT_ID.search(out), _UPTIME.search(out)
    return (boot.group(0) if boot else None, float(up.group(1)) if up else None,
            time.monotonic())


def restart_between(before: tuple[str | None, float | None, float],
                    after: tuple[str | None, float | None, float]) -> str | None:
    """Why two `boot_mark` looks show the phone started again between them ("its boot id
    changed"; without boot ids: its uptime is less than the time since the first look);
    None when they show the same boot, or cannot tell."""
    if before[0] and after[0]:
        return "its boot id changed" if before[0] != after[0] else None
    if before[1] is not None and after[1] is not None and \
            after[1] + UPTIME_SLACK_S < before[1] + (after[2] - before[2]):
        return f"it has been up {after[1]:.0f} s"
    return None


def is_url(app: str) -> bool:
    """Whether a ``launch:`` value is a URL (``scheme://...``: a web page, an app's deep link)
    rather than a package or bundle id, told apart as Midscene does."""
    return "://" in app


def app_package(app: str) -> str:
    """The package of an Android ``launch:`` value: ``com.example/.MainActivity`` (Midscene's
    package/activity form, an activity started with ``am start -n``) is com.example."""
    return app.split("/", 1)[0] if "/" in app and not is_url(app) else app


# `am start`'s refusals of a component: its class not in the package ("Error type 3"), or not
# exported to the shell ("Permission Denial"), or a component name it cannot read
_AM_REFUSED = re.compile(r"^(?:Error|Exception|java\.lang\.SecurityException|"
                         r"Security exception)\b.*$", re.M)


class AndroidDevice:
    """An adb device implementing the `farm.devices.base.Device` protocol.

    Coordinates and screenshots are in physical pixels. ``last_observation`` says what the last
    look at the screen gave ("tree", "empty-tree", "black-frame"), so the agent and the report
    know when the UI tree was unusable and vision must take over.
    """

    platform = "android"
    screenshot_command = "screencap"        # what a hung screenshot was waiting for

    def __init__(self, name: str, settings: "Settings | None", serial: str,
                 host: str | None = None, port: int | None = None) -> None:
        self.name = name
        self.settings = settings
        self.serial = serial
        self.host, self.port = host, port
        self._adb: Any = None
        self._dev: Any = None
        self._size: tuple[int, int] | None = None      # upright (`wm size`)
        self._turned = False                # landscape: the last look found it turned
        self._app: str | None = None
        self._app_alive = False             # … and its process ran at the last look
        self._step_said: list[str] = []     # the step's notes so far (`step_notes`)
        self._boot: tuple[str | None, float | None, float] | None = None    # … in this boot
        self._opened: str | None = None     # the URL the case opened last (as shown: masked)
        self._killed = False
        # why farm gave the phone up: one of its own calls waited SHELL_TIMEOUT_S with no
        # answer (a hung screencap); each later call fails at once with it (not after another
        # wait each, past the case's timeout), and its health check says no after the case
        # (`healthy`): the slot opens it again, which clears this, or gives it up
        self.abandoned: str | None = None
        self._in_case = False               # its case's launch is done: a step may follow
        self._lock = threading.Lock()
        self.last_observation: str | None = None
        self.tree_problem = ""              # why the last hierarchy() gave no tree
        self._last_xml: str | None = None   # the last readable UI dump
        self._last_tree: UITree | None = None   # … as read (`tap_point` checks its nodes)
        self._dump_fresh = False            # … and no command was sent since it was read
        # the tree of the screen as it is: no command but a screencap since it was read (a
        # screenshot begun soon after has its secrets found in it: `without_secrets`)
        self._shown_tree: phone_edges.Shown | None = None
        self._shot_at = 0.0                 # when the last screencap began (`phone_edges.now`)
        # the case's mask (its runner sets it): the screen's text it changes holds a secret,
        # blacked out of each screenshot farm keeps or sends (`without_secrets`); `unmasked`:
        # the case refers to none, no tree is read for it
        self.hide: Callable[[str], str] = unmasked
        self._shot: bytes | None = None     # the last screenshot, while no command came since
        self.scrolled_px = 0                # how far the last scroll's swipes moved the content
        # a scroll to an end: half a screen a swipe (each a mark on the report's screenshot),
        # up to 30 (where a wheel on the web goes 10 screens, 10 times)
        self.end_scroll_screens, self.scrolls_to_end = 0.5, 30
        self.screenshot_black = False
        self.about = ""                     # model and Android version, once open
        self.sdk = 0                        # its API level, once open (0: it did not say)
        self._focus_from: str | None = None  # the FOCUS_COMMANDS one that names the focus
        self._shell_v2: bool | None = None  # the phone speaks shell_v2 (None: not asked yet)
        # this process's hold of the phone, that no other farm run drives it (make_devices
        # takes it when choosing the phone; open() when it has none), let go by close()
        self.claim: PhoneClaim | None = None

    @property
    def aliases(self) -> tuple[str, ...]:
        """Its adb serial (what Midscene's deviceId names), where its name is another
        (android-sim-1 is emulator-5554 of its simulator)."""
        return (self.serial,) if self.serial and self.serial != self.name else ()

    # -- lifecycle ---------------------------------------------------------------------------
    def open(self) -> None:
        """Connect through the adb server and check the device answers."""
        self._killed = False
        self.abandoned = None
        self._shown_tree = None      # (the phone may show anything now)
        reopened = self._adb is not None
        self._adb = adb_client(self.host, self.port)
        self._hold(adb_phone_key(self._adb.host, self._adb.port, self.serial))
        self._shell_v2 = None
        with self._errors("connect"):
            self._dev = self._adb.device(self.serial)
        state = self._await_ready(server_may_restart=reopened)
        if state != "device":
            raise DeviceLost(f"{self.name} is {adb_state_words(state)}")
        self._size = None
        self.size()
        self.about = self._describe()

    def _hold(self, key: str) -> None:
        """Claim the phone for this process, unless it is claimed already: DeviceLost when
        another farm run drives it (its pid said), where both runs drove it and each failed in
        its own confusing way."""
        if self.claim is not None and self.claim.held:
            return
        try:
            self.claim = PhoneClaim.take(key, self.serial)
        except PhoneBusy as busy:
            raise DeviceLost(f"{self.name}: " + phone_busy_words(busy, "ANDROID_SERIAL")) \
                from None

    def _await_ready(self, server_may_restart: bool = False) -> str:
        """The phone's adb state once it is ready ("device"), or what it stays: one that is
        offline, connecting or not listed (a cable replugged, adbd restarting: seconds) is
        asked again for up to REATTACH_S, as ``adb wait-for-device`` waits, so a restart after
        a moment's glitch gets the phone back instead of dropping it for the rest of the run.
        A phone that needs a person (unauthorized): at once. An adb server that is gone: at
        once when the phone is first opened (a wrong ANDROID_ADB_SERVER_PORT is said without
        a wait); when it is reopened (``server_may_restart``), waited for as long, since
        servers restart: `adb kill-server`, or another tool's adb of another version killing
        it and starting its own (before, every phone of the run was written off for the
        rest of it within milliseconds)."""
        deadline = time.monotonic() + REATTACH_S
        while True:
            try:
                with self._errors("connect"):
                    state = self._dev.get_state()
                if state not in _TRANSIENT_STATES:
                    return state
            except DeviceLost as exc:
                gone = any(w in str(exc) for w in ("cannot connect to the adb server",
                                                  "refuses connections: it stopped"))
                if self._killed or (gone and not server_may_restart) or \
                        time.monotonic() > deadline:
                    raise
            else:
                if time.monotonic() > deadline:
                    return state
            log.info("%s: not ready yet; asking again", self.name)
            time.sleep(REATTACH_POLL_S)

    def _describe(self) -> str:
        """What the phone is (`android_about`); its API level noted (``sdk``)."""
        try:
            out = self.shell(ABOUT_COMMAND)
        except Exception as exc:    # telling what it is is no reason to refuse the device
            log.debug("%s: getprop: %s", self.name, exc)
            return ""
        sdk = (out.splitlines() + ["", "", "", ""])[3].strip()
        self.sdk = int(sdk) if sdk.isdigit() else 0
        return android_about(out)

    def close(self) -> None:
        """Let go of the phone (adb connections are per request: nothing else to release)."""
        self._dev = None
        if self.claim is not None:
            self.claim.release()

    def start_session(self, target: "AndroidTarget | None") -> None:
        """Fresh app state for one case: force-stop, clear its data, launch it. A URL (``launch:
        https://...``) is opened instead, in whatever the phone opens it with."""
        self._need()
        self._ime_strategy = target.ime_strategy if target is not None else None
        self.dismiss_keyboard = target is None or target.auto_dismiss_keyboard
        self._dismiss_first = target.keyboard_dismiss_strategy if target else "esc-first"
        self._opened, self._step_said = None, []
        self._in_case = False
        app = target.launch if target is not None else None
        if app and is_url(app):
            self._clear_left_dialog()
            self.open_url(app)
        elif app:
            package = app_package(app)
            self.terminate(package)
            out = self.shell(f"pm clear {_quote(package)}")
            if "Success" not in out:
                said = f"pm clear: {out.strip() or 'no answer'}"
                self._check_installed(package, said, starting=True)
                raise DeviceError(f"cannot clear the data of {package} on {self.name} "
                                  f"({said})")
            self.launch(app)
        self._in_case = True

    def _clear_left_dialog(self) -> None:
        """Close a system dialog left in front from before this case (a permission another
        case's app asked for, "… isn't responding"), as a case opening a URL begins: it starts
        clean, as one launching its app does (its data cleared), not failing on what another
        case left. Back closes it (a permission's: Don't allow). Only read when what is in
        front is not an app's own window (`current_app`: a dialog's, or unnamed); a phone
        that will not say or close it leaves it as it is."""
        try:
            if self.current_app() not in (None, *SYSTEM_DIALOG_FRONTS):
                return
            xml = self._dump()
            dialog = android_dialog(xml, SYSTEM_DIALOG_FRONTS) if xml else None
            if dialog is None:
                return
            log.info('%s: closing a system dialog left from before the case: "%s"', self.name,
                     dialog[0])
            self._input("keyevent 4", watch=False)
        except (DeviceError, StepFailed) as exc:
            log.info("%s: a system dialog left in front was not closed: %s", self.name, exc)

    def end_session(self) -> None:
        self._in_case = False
        if self._app and self._dev is not None and not self._killed and not self.abandoned:
            try:
                self.terminate(self._app)
            except Exception as exc:   # the verdict is known; a dying device shows next case
                log.debug("%s: end_session: %s", self.name, exc)
        self._app = None

    # -- shell ---------------------------------------------------------------------------------
    def _run(self, cmd: str, binary: bool = False, timeout: float = SHELL_TIMEOUT_S,
             what: str = "") -> tuple[Any, str, int]:
        """(stdout, stderr, exit code) of one of farm's own commands; infrastructure failures
        mapped, saying ``what`` farm was doing (else the command's first word). A suite's
        line goes through `shell_result`."""
        dev = self._need()
        self._dump_fresh = False        # any command may change the screen: the dump is old
        self._shot = self._shown_tree = None    # (and the screenshot)
        # (a shorter wait is no sign the phone hung: `_AdbErrors`' ``own``)
        with self._errors(what or cmd.split(" ")[0], own=timeout >= SHELL_TIMEOUT_S):
            v2 = self._has_shell_v2(dev)
            if binary and not v2:
                return self._exec_out(dev, cmd, timeout), "", 0
            res = dev.shell2(cmd, timeout=timeout, encoding=None, v2=v2)
        if not v2:      # one stream, stderr in it (adbutils leaves stdout empty), through a
            text = res.output.decode("utf-8", "replace").replace("\r\n", "\n")   # terminal
            return (res.output if binary else text), "", res.returncode
        err = res.stderr.decode("utf-8", "replace")
        out = res.stdout
        return (out if binary else out.decode("utf-8", "replace")), err, res.returncode

    def _has_shell_v2(self, dev: Any) -> bool:
        """Whether the phone speaks shell_v2 (stdout, stderr and the exit code apart): every
        Android 7+ does; an older one has one stream, read apart from it (`_run`)."""
        if self._shell_v2 is None:
            self._shell_v2 = "shell_v2" in dev.get_features().split(",")
        return self._shell_v2

    @staticmethod
    def _exec_out(dev: Any, cmd: str, timeout: float) -> bytes:
        """``adb exec-out CMD``: its output as it is, where an older phone's `shell:` goes
        through a terminal that turns every LF into CRLF (a screencap PNG came back
        corrupt)."""
        conn = dev.open_transport(timeout=timeout)
        try:
            conn.send_command("exec:" + cmd)
            conn.check_okay()
            return conn.read_until_close(encoding=None)
        finally:
            conn.close()

    def shell(self, command: str) -> str:
        """Run ``command`` in the device shell; its stdout (stderr appended when any)."""
        out, err, _ = self._run(command)
        return out + err

    def shell_result(self, command: str, timeout_s: float | None = None,
                     within_s: float | None = None) -> tuple[str, str, int]:
        """`_suite_shell`; then whether the case's app still runs is looked at again (the
        command may have stopped it, or started it: `_check_input_kept_app`)."""
        result = self._suite_shell(command, timeout_s, within_s)
        if self._app is not None:
            try:
                self._app_alive = self._app_running() is not False
            except (DeviceError, DeviceLost):    # the command took the phone away a moment
                self._app_alive = False         # (`farm-sim fault offline`, a replug): its
        return result                           # step passed; the next command finds out

    def _suite_shell(self, command: str, timeout_s: float | None,
                     within_s: float | None) -> tuple[str, str, int]:
        """Run ``command`` in the device shell: (stdout, stderr, exit code), for a suite's
        runAdbShell step (its `timeout`), which fails on a non-zero exit. With ``timeout_s``
        the command has that long in all, printing or not: past it, it is stopped and fails
        the step (StepFailed; a plain `logcat` that prints on for ever was read until the
        case's timeout, the phone's loss then). Without, it fails once silent for
        FARM_ADB_SILENCE_SECONDS (30 s; `am instrument -w` may run for minutes,
        printing, a slow build step may say nothing for longer), and is stopped
        after ``within_s`` if given (the case's time left), printing or not. Each stream is
        kept as its tail (`kept_tail`: 64K characters; a `logcat -d` put megabytes into
        results.json and the report, and farm's memory grew by 300 MB a second on an endless
        command; grep on the phone for the rest)."""
        from farm.devices.android_shell import PastDeadline, ShellCut, run_bounded
        dev = self._need()
        self._dump_fresh = False        # the command may change the screen
        self._shot = self._shown_tree = None
        what = command.split(" ")[0]
        silence = self.settings.adb_silence_seconds if self.settings else SHELL_TIMEOUT_S
        with self._errors(what, own=False):     # (the suite's limits, not farm's own wait)
            v2 = self._has_shell_v2(dev)
            # an older phone's exit status comes from an echo after the line: a line that
            # ends the shell (`... || exit 1`) never reached it and read as a broken phone;
            # there a suite's line runs in a shell of its own
            try:
                return run_bounded(dev, command if v2 else f"sh -c {_quote(command)}",
                                   timeout_s if timeout_s is not None else within_s,
                                   None if timeout_s is not None else silence, v2)
            except PastDeadline as late:
                if self._killed:
                    raise DeviceLost(f"{self.name} was stopped") from None
                end = timeout_s if timeout_s is not None else within_s
                said = f"; it printed: {_last_lines(late.said)}" if late.said else ""
                failed = StepFailed((_silent_for(silence, self._silence_setting())
                                     if late.silent else _past_deadline(end or 0, late.printed))
                                    + said)
                failed.output = late.said or None   # the step's output, as a finished one's
                raise failed from None
            except ShellCut:
                if self._killed:
                    raise DeviceLost(f"{self.name} was stopped") from None
                raise DeviceLost(f"{self.name} lost ({what}): the phone's shell stopped "
                                 "answering in the middle of the command") from None

    def _silence_setting(self) -> str:
        """The silence limit's setting, named as it was set (``FARM_…`` when it was not)."""
        name = "adb_silence_seconds"
        if self.settings is None or self.settings.source(name) is None:
            return "FARM_ADB_SILENCE_SECONDS"
        return self.settings.named(name)

    def _input(self, args: str, watch: bool = True) -> None:
        """``input ARGS``; then, ``watch`` True, whether the app survived it, asked in the
        same shell call (`_input_and_pidof`; a text typed in many commands is looked at once,
        after the last)."""
        verb = args.split(" ")[0]
        watched = watch and self._app is not None and self._app_alive
        if watched:
            out, err, code, running = self._input_and_pidof(args)
        else:
            (out, err, code), running = self._run("input " + args), None
        # (`input` says nothing when it works; an older phone's one stream holds its stderr)
        problem = err.strip() or (out.strip() if code or "Exception" in out else "")
        unknown = re.search(r"Unknown keycode: (\S+)", problem, re.I)
        if unknown:     # a key name the suite gave (KEYCODE_…) that Android has not: its mistake
            raise StepFailed(f"{self.name} knows no key {unknown.group(1)} (input keyevent: "
                             "unknown keycode); Android's names are as in KeyEvent, e.g. "
                             "KEYCODE_VOLUME_UP, KEYCODE_APP_SWITCH")
        if code or "Exception" in problem or "Error" in problem:
            raise DeviceError(f"input {verb} refused on {self.name}: "
                              f"{problem.splitlines()[0] if problem else f'exit {code}'}")
        if watched:
            self._fail_if_app_gone(verb, running)

    def _input_and_pidof(self, args: str) -> tuple[str, str, int, bool | None]:
        """``input ARGS``'s (stdout, stderr, exit code) and then whether the case's app runs
        (`_app_running`'s answer), in one shell call: one adb round trip per input, not two.
        Input's status comes on a line of its own (`_INPUT_STATUS`), pidof's after it (its
        "not found" before Android 7 sent away: the call's exit 127 says it)."""
        out, err, code = self._run(f"input {args}; echo {_INPUT_STATUS}$?; "
                                   f"pidof {_quote(self._app or '')} 2>/dev/null", what="input")
        said, mark, after = out.rpartition(_INPUT_STATUS)
        status, _, pids = after.partition("\n")
        if not mark or not status.strip().isdigit():    # (the line did not get that far)
            return out, err, code, None
        return said, err, int(status), _pidof_says(pids, code)

    def _app_running(self) -> bool | None:
        """Whether the case's app has a process (``pidof``); None when the phone cannot tell
        (no ``pidof`` before Android 7)."""
        out, _err, code = self._run(f"pidof {_quote(self._app or '')}", what="pidof")
        return _pidof_says(out, code)

    def _check_input_kept_app(self, verb: str) -> None:
        """`_fail_if_app_gone` after inputs sent unwatched (a text typed in many commands),
        asking ``pidof`` now; an app not running before them is not looked at."""
        if self._app is not None and self._app_alive:
            self._fail_if_app_gone(verb, self._app_running())

    def _fail_if_app_gone(self, verb: str, running: bool | None) -> None:
        """StepFailed when the case's app, running before this input, has no process after
        it (``running`` False): the tap (key, swipe, text) crashed it, and this step fails
        saying so, where the step passed on the launcher's screen and the next one failed
        ("no longer running"). An app the suite stopped itself (`shell_result`) is not
        watched until it runs again."""
        if running is not False or self._app is None:
            return
        app, self._app_alive = self._app, False
        self._check_same_boot(app)
        front = self.current_app() or "unknown"
        raise StepFailed(f"{app} is no longer running on {self.name} (front: {front}): it "
                         f"crashed at this step's input ({verb}){self._crash_words(app)}")

    def _boot_now(self) -> tuple[str | None, float | None, float] | None:
        """`boot_mark` of the phone now; None when it refuses to say."""
        try:
            return boot_mark(self._run(BOOT_COMMAND, what="boot id")[0])
        except DeviceError:
            return None

    def _check_same_boot(self, app: str) -> None:
        """DeviceLost when the phone started again since ``app`` was launched (its boot id
        changed: a reboot, an emulator or simulator restarted): the app went with it, which
        is the device's failure, retried on a device, not a crash of the app's (before,
        "no longer running ... crashed", a new failure of the case). An adb connection lost
        now is DeviceLost as well."""
        now = self._boot_now() if self._boot is not None else None
        why = restart_between(self._boot, now) if self._boot and now else None
        if why:
            self._app = None
            raise DeviceLost(f"{self.name} restarted during the case ({why}): {app} stopped "
                             "with it, no crash of its own")

    def _crash_words(self, app: str) -> str:
        """``: <the exception>; adb logcat -b crash -d shows it`` from the phone's crash
        log when it holds ``app``'s last crash, else where to look."""
        try:
            out, _err, _code = self._run("logcat -b crash -d -t 60", what="logcat")
        except (DeviceError, StepFailed):
            out = ""
        lines = out.splitlines()
        said = [i for i, line in enumerate(lines) if f"Process: {app}," in line]
        if not said or said[-1] + 1 >= len(lines):
            return " (adb logcat -b crash -d says why)"
        cause = re.sub(r"^.*?AndroidRuntime:\s*", "", lines[said[-1] + 1]).strip()
        return f": {cut(cause, 200)} (adb logcat -b crash -d shows it)"

    # -- observation -------------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        """Screen size in physical pixels as the screen is turned now: ``wm size`` (override
        first) gives it upright, whatever the rotation; the last screenshot or UI dump says
        whether it is turned (`_note_turn`), as `input`, screencap and the dump's bounds
        all are."""
        if self._size is None:
            out = self.shell("wm size")
            m = (re.search(r"Override size: (\d+)x(\d+)", out)
                 or re.search(r"Physical size: (\d+)x(\d+)", out))
            if not m:
                raise DeviceError(f"{self.name}: unexpected `wm size` answer {out.strip()!r}")
            self._size = (int(m.group(1)), int(m.group(2)))
        w, h = self._size
        return (h, w) if self._turned else (w, h)

    def _note_turn(self, frame: tuple[int, int] | None = None, xml: str | None = None) -> None:
        """Whether the screen is turned a quarter (landscape on a phone), from a screenshot's
        ``frame`` (its pixels: the upright size swapped) or a UI dump's ``rotation``."""
        if xml is not None:
            m = _ROTATION.search(xml[:400])
            if m:
                self._turned = int(m.group(1)) % 2 == 1
        elif frame is not None and self._size is not None and \
                self._size[0] != self._size[1] and frame in (self._size, self._size[::-1]):
            self._turned = frame != self._size

    def screenshot(self) -> bytes:
        """PNG from ``screencap -p``. An all-black frame (FLAG_SECURE) is returned as is but
        flagged in ``screenshot_black``; the tree is then the only usable view."""
        shown = self._shown_tree            # (a screencap changes nothing on the screen)
        self._shot_at = phone_edges.now()
        out, err, code = self._run("screencap -p", binary=True)
        self._shown_tree = shown
        if code or not out.startswith(b"\x89PNG"):
            raise DeviceError(f"screencap failed on {self.name}: "
                              f"{err.strip() or out[:80]!r}")
        self._note_turn(frame=png_frame(out))
        self.screenshot_black = is_black(out)
        if self.screenshot_black:
            self.last_observation = "black-frame"
        self._shot = None if self.screenshot_black else out
        return out

    def _dump(self) -> str | None:
        out, err, code = self._run(f"rm -f {DUMP_PATH}; uiautomator dump {DUMP_PATH} "
                                   "&& echo success", what="uiautomator dump")
        text = out + err
        # uiautomator says a failure on stderr and exits 0, writing no file ("ERROR: could not
        # get idle state.", "ERROR: null root node returned by UiTestAutomationBridge.")
        if _DUMP_ERROR.search(text) or "success" not in text or code:
            log.info("%s: uiautomator dump failed: %s", self.name, cut(text.strip(), 200))
            said = text.replace("success", "").strip().splitlines()
            self.tree_problem = f"uiautomator dump: {said[0][:120] if said else f'exit {code}'}"
            return None
        with self._errors("read dump"):
            return self._dev.sync.read_bytes(DUMP_PATH).decode("utf-8", "replace")

    def hierarchy(self) -> UITree | None:
        """The uiautomator tree; retried on "could not get idle state" and empty dumps.
        None when it stays unusable (vision must take over). A dump read for a screenshot's
        secrets just now (no command since: `phone_edges.spare`) is taken, not read again."""
        self.size()
        spare = phone_edges.spare(self._shown_tree)
        read = (spare.xml, spare.tree) if spare is not None else self._read_dump()
        if read is None:
            self.last_observation = "empty-tree"
            return None
        xml, tree = read
        self._last_xml, self._last_tree = xml, tree
        self.last_observation = "tree"
        self._check_app_alive(xml)
        self._dump_fresh = True
        at = spare.at if spare is not None else phone_edges.now()
        self._shown_tree = phone_edges.Shown(tree, xml, at)
        return tree

    def _read_dump(self) -> tuple[str, UITree] | None:
        """A dump and its tree with more than the root, retried on "could not get idle
        state", unreadable and empty dumps; None when it stays unusable (``tree_problem``
        says why)."""
        self.tree_problem = "uiautomator dump: no elements but the root"
        for attempt in range(DUMP_TRIES):
            if attempt:
                time.sleep(0.3 * attempt)   # animations settle; idle state comes back
            xml = self._dump()
            if xml is None:
                continue
            self._note_turn(xml=xml)
            try:
                tree = parse_uiautomator(xml, *self.size())
            except ValueError as exc:
                log.info("%s: unreadable dump: %s", self.name, exc)
                self.tree_problem = f"uiautomator dump: {exc}"
                continue
            # a real screen always has more than the root frame
            if sum(1 for n in tree.nodes if n.visible) > 1:
                return xml, tree
        return None

    def without_secrets(self, png: bytes) -> bytes:
        """``png`` (this screen's screenshot, for the report or a model) with each node of
        the UI tree holding a secret blacked out (`phone_edges.without_secrets`)."""
        return phone_edges.without_secrets(self, png, self._tree_now)

    def _tree_now(self) -> UITree:
        """The tree of the screen as the last screencap has it: the one read since the last
        command, within `phone_edges.TREE_KEPT_S` before that screencap began, else a dump
        read now (`_read_dump`: retried as `hierarchy` retries), kept for the step's next
        `hierarchy` while fresh; it changes nothing else: the last tree a step read (what its
        node ids name), the screenshot kept for a scroll's comparison, whether that tree is
        fresh. DeviceError when no dump is readable."""
        if phone_edges.fresh(self._shown_tree, self._shot_at):
            return self._shown_tree.tree
        kept = self._shot, self._dump_fresh, self.tree_problem
        try:
            read = self._read_dump()
            problem = self.tree_problem
        finally:
            self._shot, self._dump_fresh, self.tree_problem = kept
        if read is None:
            raise DeviceError(problem)
        self._shown_tree = phone_edges.Shown(read[1], read[0], spare=True)
        return read[1]

    def _check_app_alive(self, xml: str) -> None:
        """StepFailed when the app the case launched is not what the screen shows and its
        process is gone (``pidof`` finds none): it crashed (or was stopped) during the case, so
        a step looking for its screen fails saying so, where it read as a miss on the launcher
        ("needs a model", skipped). An app sent to the background (Home, a link opened in the
        browser, a system dialog in front) still runs; a phone without ``pidof`` says nothing."""
        app = self._app
        front = _PACKAGE.search(xml)
        if app is None or front is None or front.group(1) == app:
            return
        if self._app_running() is False:
            self._check_same_boot(app)
            raise StepFailed(f"{app} is no longer running on {self.name} (front: "
                             f"{front.group(1)}): it crashed or was stopped during the case; "
                             "adb logcat shows why")

    def await_change(self, timeout_s: float, quiet_s: float | None = None) -> bool:
        """Wait for the screen to change from the last tree read (a locate that missed waits so
        for a target still coming: a list the app fills from the network): its UI dump read
        again until it differs (True), for ``timeout_s``, or ``quiet_s`` when given (False)."""
        return await_tree_change(self._dump, self._last_xml, timeout_s, quiet_s)

    def check_text_focus(self) -> None:
        """After a tap meant for a text field: StepFailed unless an editable element has the
        focus (the dump's ``focused="true"`` on an EditText), as the web's fill refuses a
        button. A tree that cannot be read, or the focus inside a WebView, says nothing."""
        if self.hierarchy() is None:
            return
        problem = focus_problem(self._last_xml)
        if problem:
            raise StepFailed(f"no text field took the text: {problem} (a view that reads keys "
                             "itself takes them with mode: typeOnly)")

    def query_xpath(self, xpath: str) -> list[Rect]:
        tree = self.hierarchy()
        if tree is None:
            return []
        return query_xml(self._last_xml, xpath, tree)

    # -- actions -------------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        self._input(f"tap {int(x)} {int(y)}")

    def double_tap(self, x: int, y: int) -> None:
        """Two taps in one shell command: back to back, where two adb round trips apart
        they may be too far apart for the phone to count one double tap (300 ms)."""
        self._input(f"tap {int(x)} {int(y)}; input tap {int(x)} {int(y)}")

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self._input(f"swipe {int(x)} {int(y)} {int(x)} {int(y)} {int(duration_ms)}")

    def hover(self, x: int, y: int) -> None:
        """Touch screens have no hover: nothing to do."""

    def pinch(self, x: int, y: int, reach: int, spread: bool, duration_ms: int = 500) -> None:
        """Two fingers around (x, y) move ``reach`` px each, apart (``spread``) or together:
        `input` has no multi-touch, so this is yadb's -pinch, as Midscene does it (yadb must
        be pushed to /data/local/tmp/yadb)."""
        near, far = 2 * 40, 2 * (40 + reach)
        start, end = (near, far) if spread else (far, near)
        out, err, code = self.shell_result(
            f"app_process -Djava.class.path={YADB} /data/local/tmp com.ysbing.yadb.Main "
            f"-pinch {int(x)} {int(y)} {start} {end} {int(duration_ms)}")
        if code or "Exception" in out + err:
            raise StepFailed(f"pinch on {self.name} needs yadb (adb push yadb {YADB}): "
                             f"{cut((err or out).strip(), 200) or f'exit {code}'}")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._input(f"swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(duration_ms)}")

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 600) -> None:
        """Drag what is at (x1, y1) to (x2, y2): the finger held down for a long press first,
        as a drag in a list that reorders (ItemTouchHelper) or a launcher starts, then moved
        in ``duration_ms`` and lifted, as UiAutomator's drag does. `input draganddrop` on
        Android 11+; before, the same as `input motionevent` commands in one shell line
        (Android 10); older phones have neither: a slow swipe, which starts no such drag.
        `input swipe` alone (what a drag was) moves the finger at once: a scroll or a fling
        the app never takes for a drag."""
        x1, y1, x2, y2 = (int(v) for v in (x1, y1, x2, y2))
        if self.sdk >= 30 or not self.sdk:      # (one that did not say is asked)
            try:
                self._input(f"draganddrop {x1} {y1} {x2} {y2} {int(duration_ms)}")
                return
            except DeviceError as exc:
                if self.sdk or "Unknown command" not in str(exc):
                    raise
        steps = DRAG_STEPS
        moves = "; ".join(f"input motionevent MOVE {x1 + (x2 - x1) * i // steps} "
                          f"{y1 + (y2 - y1) * i // steps}" for i in range(1, steps + 1))
        try:
            self._input(f"motionevent DOWN {x1} {y1}; sleep {DRAG_HOLD_MS / 1000}; {moves}; "
                        f"input motionevent UP {x2} {y2}")
        except DeviceError as exc:
            if "Unknown command" not in str(exc):
                raise
            log.warning("%s (API %s) has no `input draganddrop` nor `input motionevent`: "
                        "the drag is a slow swipe, which an app that starts drags on a long "
                        "press does not take for one", self.name, self.sdk)
            self.swipe(x1, y1, x2, y2, max(int(duration_ms), 1500))

    def scroll(self, x: int, y: int, dx: int, dy: int) -> bool | None:
        """Scroll content by (dx, dy) pixels: the finger moves the other way, in swipes that
        move that far (`phone_edges.scroll_swipes`: begun near the edge they move away from,
        a long distance split); ``scrolled_px`` says how far they went. Whether anything
        moved, from the screens before and after each swipe (`phone_edges.screen_moved`;
        the last screenshot is the one before when no command came since): the swipes stop
        at the first that moved nothing (the end came); None when a screenshot cannot tell
        (FLAG_SECURE's black frames). A swipe over a blank stretch (a tall spacer: no pixel
        changes as the content moves, `phone_edges.blank_band`) tells nothing either: the
        swipes go on, and, when nothing moved that shows, None (it read "the end came", and
        a scrollToBottom stopped in the blank, passing)."""
        swipes = phone_edges.scroll_swipes(x, y, dx, dy, self.size())
        before = self._shot or self.screenshot()
        blind = self.screenshot_black
        moved, unsure, self.scrolled_px = False, False, 0
        for x1, y1, x2, y2 in swipes:
            self.swipe(x1, y1, x2, y2, 300)
            after = None if blind else self.screenshot()
            blind = blind or self.screenshot_black
            if not blind and not phone_edges.screen_moved(before, after):
                if not phone_edges.blank_band(after, y1, y2):
                    break
                unsure = True       # (blank: it may have moved; nothing shows it)
            else:
                moved = True
            before = after
            self.scrolled_px += max(abs(x2 - x1), abs(y2 - y1))
        return None if blind or (unsure and not moved) else moved

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        """Before a tap at (x, y) on node ``node`` of the last `hierarchy`: a target under the
        soft keyboard (a field of the last dump has the focus) has the keyboard hidden first
        (`phone_edges.clear_of_keyboard`); one that shows only a strip at the screen's edge
        is swiped in (`phone_edges.tap_point`)."""
        if self._last_xml and not focus_problem(self._last_xml):
            x, y, node = phone_edges.clear_of_keyboard(self, self._last_tree, node, x, y)
        return phone_edges.tap_point(self, self._last_tree, node, x, y)

    def keyboard_top(self) -> int | None:
        """Where the soft keyboard's top edge is (px, as the screen is turned) while it shows
        (``mInputShown``), None while it does not: its window's frame in ``dumpsys window
        InputMethod`` (below the inset above its keys); half the screen down where the phone
        does not say."""
        out = self.shell("dumpsys input_method | grep mInputShown; dumpsys window InputMethod"
                         " | grep -E 'mFrame=|Frames:|mGivenContentInsets='")
        if "mInputShown=true" not in out:
            return None
        h = self.size()[1]
        frame, inset = _IME_FRAME.search(out), _IME_INSET.search(out)
        top = (int(frame.group(1)) if frame else 0) + (int(inset.group(1)) if inset else 0)
        return top if 0 < top < h else h // 2

    def scroll_into_view(self, node: UINode) -> bool:
        """One swipe (60% of the screen) toward an off-screen ``node``; False when its bounds
        do not say which edge it is beyond."""
        return swipe_into_view(self, node)

    def swipe_to_find(self, forward: bool) -> bool:
        """One swipe through the largest element of the last tree read that scrolls (its
        ``scrollable="true"``), toward its end (``forward``: down, or right for a horizontal
        one) or back toward its start; False when nothing on screen scrolls (nothing was done).
        A phone's dump lists only what shows (a list's rows below the fold are not in it), so
        the text tier swipes with this to look for a target the dump does not hold, as
        UiScrollable.scrollIntoView does (`farm.agent.locator.TextMatchTier`)."""
        finger = search_swipe(self._last_xml, forward) if self._last_xml else None
        if finger is None:
            return False
        self.swipe(*finger, SEARCH_SWIPE_MS)
        return True

    def type_text(self, text: str) -> None:
        """Type ``text``: through yadb as the case's imeStrategy says (Midscene's
        always-yadb / yadb-for-non-ascii), else ASCII through ``input text`` and anything else
        through the ADBKeyBoard IME (aiInput then hides the keyboard: `hide_keyboard`). A
        field that kept only a start of it is noted (`_note_cut`)."""
        self._type_any(text)
        self._note_cut(text)

    def _note_cut(self, text: str) -> None:
        """A step note (`step_notes`) when the focused field, read again, holds a start of
        ``text`` shorter than it: its maxlength cut the value, which passed unsaid (the web
        says it). A value with line breaks or tabs (keys that may move on) is not looked at;
        a secret's length alone is said."""
        if len(text) < 2 or any(c in text for c in "\t\n\r"):
            return
        given = "the text" if self.hide(text) != text else f'"{text}"'
        try:
            note = cut_note(self._dump(), text, given)
        except DeviceError as exc:      # (a note is a help: no dump, no note)
            log.info("%s: field not read after typing: %s", self.name, exc)
            return
        if note:
            self._step_said.append(note)
            log.info("%s: %s", self.name, note)

    def step_notes(self) -> list[str]:
        """What the step that just ended says though it did what it was asked (the runner
        asks at each step's end): a value a field's maxlength cut (`_note_cut`)."""
        said, self._step_said = self._step_said, []
        return said

    def _type_any(self, text: str) -> None:
        strategy = getattr(self, "_ime_strategy", None)
        if not (strategy == "always-yadb" or (strategy and not text.isascii())):
            self._type_text(text)
            return
        for chunk in text_chunks(text, IME_CHUNK):
            out, err, code = self._run(
                f"app_process -Djava.class.path={YADB} /data/local/tmp "
                f"com.ysbing.yadb.Main -keyboard {_quote(chunk)}")
            if code or "Exception" in out + err:
                raise StepFailed(f"typing with yadb on {self.name} failed (imeStrategy "
                                 f"{strategy}; adb push yadb {YADB}): "
                                 f"{cut((err or out).strip(), 200) or f'exit {code}'}")

    def hide_keyboard(self) -> None:
        """autoDismissKeyboard, as Midscene's: while the soft keyboard shows (``dumpsys
        input_method``: mInputShown), Escape, then Back (keyboardDismissStrategy back-first:
        Back first). A key is never sent with the keyboard down: the app would get it (Escape
        closes a dialog, Back leaves the screen)."""
        keys = ("keyevent 111", "keyevent 4")
        if not self.keyboard_shown():
            return
        for key in keys if getattr(self, "_dismiss_first", "") != "back-first" else keys[::-1]:
            self._input(key)
            if self._keyboard_went():
                return

    def _keyboard_went(self) -> bool:
        """Whether the keyboard says it has gone within KEYBOARD_HIDE_S: it slides away, and a
        second key sent while it still says "shown" would reach the app once it has gone
        (Back would leave the screen)."""
        deadline = time.monotonic() + KEYBOARD_HIDE_S
        while self.keyboard_shown():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
        return True

    def keyboard_shown(self) -> bool:
        """Whether the soft keyboard is up (what appium-adb's isSoftKeyboardPresent reads)."""
        shown = self.shell("dumpsys input_method | grep mInputShown")     # (its output is long)
        return re.search(r"mInputShown=true", shown) is not None

    def _type_text(self, text: str) -> None:
        if text.isascii() and "\t" in text:
            field = focused_field(self._last_xml if self._dump_fresh else self._dump())
            self._type_ascii(text)
            if field is not None:
                self._check_tab_typed(text, *field)
            return
        if text.isascii():
            self._type_ascii(text)
            return
        self._type_ime(text)

    def _check_tab_typed(self, text: str, bounds: str, had: str) -> None:
        """StepFailed when a value's tab moved the focus out of the field it was typed into
        (Android's Tab key goes to the next view): that field holds its part before the tab
        only, and the step passed. The field at ``bounds`` (holding ``had`` before) is read
        again; a dump that cannot be read says nothing."""
        xml = self._dump()
        now = text_at(xml, bounds)
        moved = focused_field(xml)
        kept = moved is not None and moved[0] == bounds      # (the focus stayed there)
        if now is None or (kept and _spaced(now).endswith(_spaced(text))):
            return
        raise StepFailed(f"the value's tab was typed as Android's Tab key, which moved the "
                         f"focus out of the field: the field holds {cut(now, 80)!r} (it held "
                         f"{cut(had, 80)!r}), not the whole value; type each field with an "
                         "aiInput of its own")

    def _type_ascii(self, text: str) -> None:
        # only line breaks (Enter: a CRLF is one) and tabs need key events; the rest goes
        # as `input text` words (split apart: every other part is a break; blanks are text)
        for i, part in enumerate(re.split(r"(\r\n|[\t\n\r\f\v])", text)):
            if i % 2:
                self._input("keyevent 61" if part == "\t" else "keyevent 66", watch=False)
            elif part:
                for word in (w for c in text_chunks(part, TYPE_CHUNK)
                             for w in input_text_words(c)):
                    self._input("text " + _quote(word), watch=False)
        self._check_input_kept_app("text")

    def _type_ime(self, text: str) -> None:
        ime = self.shell("settings get secure default_input_method").strip()
        if "adbkeyboard" not in ime.lower():
            # the phone's set-up, not a broken phone: like an app it does not have, the case
            # fails here (not retried elsewhere, not counted against the phone, whose ASCII
            # cases still run), as a failed yadb does
            raise StepFailed(f"cannot type non-ASCII text on {self.name}: `input text` only "
                             f"takes ASCII; install ADBKeyBoard and make it the input method "
                             f"(adb shell ime set {ADB_IME}), or set android: imeStrategy: "
                             f"yadb-for-non-ascii with yadb pushed to {YADB}; current IME: "
                             f"{ime or 'none'}")
        for chunk in text_chunks(text, IME_CHUNK):
            msg = base64.b64encode(chunk.encode("utf-8")).decode()
            out = self.shell(f"am broadcast -a ADB_INPUT_B64 --es msg {msg}")
            if "result=0" not in out and "completed" not in out:
                raise DeviceError(f"IME broadcast failed on {self.name}: {cut(out.strip(), 200)}")

    def clear_text(self) -> None:
        """Empty the focused field wherever its caret is: a Delete and a Forward-delete for
        each character it holds (its text in a UI dump read after the last input; 40 when the
        dump does not tell), as Appium's clearTextField does. A cursor-to-end and 40 Deletes
        left the start of a longer value, and of a multi-line one every line but the caret's
        (no select-all keycode before Android 12)."""
        if not self._dump_fresh:
            self.hierarchy()
        pairs = focused_text_length(self._last_xml) if self._dump_fresh else None
        left = 40 if pairs is None else pairs + 1
        while left > 0:         # (a long value: in commands a phone takes, as text_chunks)
            self._input("keyevent " + " ".join(["67 112"] * min(left, CLEAR_CHUNK)),
                        watch=False)
            left -= CLEAR_CHUNK
        self._check_input_kept_app("keyevent")

    def press(self, key: str) -> None:
        code = android_keycode(key)       # the table the suite loader checks keys against
        if code is None:
            raise StepFailed(f"unknown key {key!r} on Android")
        self._input(f"keyevent {code}")

    def back(self) -> None:
        """The system Back button."""
        self._input("keyevent 4")

    def home(self) -> None:
        """The system Home button."""
        self._input("keyevent 3")

    def launch(self, app: str) -> None:
        """Start package ``app`` from the launcher and wait until it is in front, or the
        permission dialog it asks with is (left for the case's steps to answer); a URL is
        opened instead (`open_url`), and ``package/activity`` (Midscene's form) starts that
        activity (`_start_activity`). A package the phone does not have is the case's mistake
        (StepFailed), not the device's."""
        if is_url(app):
            self.open_url(app)
            return
        if "/" in app:
            self._start_activity(app)
            app = app_package(app)
        else:
            out = self.shell(f"monkey -p {_quote(app)} -c android.intent.category.LAUNCHER 1")
            if "No activities found" in out:
                self._check_installed(app, "monkey: no activities found")
                raise StepFailed(f"{app} on {self.name} has no launcher activity to start")
            if "monkey aborted" in out.lower():
                raise DeviceError(f"monkey could not start {app} on {self.name}: "
                                  f"{cut(out.strip(), 200)}")
        self._await_front(app)

    def _start_activity(self, component: str) -> None:
        """``am start -W -n package/activity``, as Midscene's launch of that form (appium-adb's
        startApp). An activity the package does not have, or does not let the shell start
        (not exported), is the case's mistake (StepFailed), as a package not installed."""
        out, err, code = self._run(f"am start -W -n {_quote(component)}")
        refused = _AM_REFUSED.search(err) or _AM_REFUSED.search(out)
        if refused is None and not code:
            return
        said = f"am start: {(refused.group(0) if refused else err or out).strip()[:200]}"
        self._check_installed(app_package(component), said)
        raise StepFailed(f"{component} cannot be started on {self.name} ({said}); check the "
                         "case's launch: value (package/activity, as adb shell am start -n "
                         "takes it)")

    def _await_front(self, app: str) -> None:
        """Wait until package ``app`` is in front, or the permission dialog it asks with."""
        deadline = time.monotonic() + 5
        while True:
            current = self.current_app()
            if current == app or current in PERMISSION_FRONTS:
                if current != app:
                    log.info("%s: %s asks for a permission: the dialog is in front of it",
                             self.name, app)
                self._app, self._app_alive = app, True
                self._boot = self._boot_now()
                return
            if time.monotonic() > deadline:
                raise not_in_front(app, self.name, current, _DEVICE_FRONTS,
                                   "adb logcat shows why")
            time.sleep(0.2)

    def open_url(self, url: str) -> None:
        """Open ``url`` in whatever the phone opens it with (the browser for a web page, an app
        for its own scheme): a VIEW intent, as Midscene's launch of a URL sends it. A URL no
        app on the phone opens is the case's mistake (StepFailed)."""
        from farm.config import mask_url, mask_urls_in   # (shown as the web shows a URL:
        out, err, code = self._run(                      # its password and token as ***)
            f"am start -W -a android.intent.action.VIEW -d {_quote(url)}")
        said = mask_urls_in((out + err).strip())
        self._opened = mask_url(url)
        if "unable to resolve Intent" in said:
            raise StepFailed(f"no app on {self.name} opens {mask_url(url)} (am start: unable "
                             "to resolve the VIEW intent)")
        if code or re.search(r"^Error", said, re.M):
            raise DeviceError(f"am start {mask_url(url)} failed on {self.name}: "
                              f"{said[:200] or f'exit {code}'}")

    def _check_installed(self, package: str, said: str, starting: bool = False) -> None:
        """After ``package`` could not be cleared or started: StepFailed naming it and the
        device when the phone has no such package (``pm path`` finds none), so a wrong
        ``launch:`` (the case's, when ``starting``: its data is cleared first; else a launch
        step's) fails its case instead of counting against the device; the nearest installed
        package (``pm list packages``) is said when one is close."""
        out, _err, code = self._run(f"pm path {_quote(package)}")
        if code or "package:" not in out:
            try:
                listed, _err, _code = self._run("pm list packages")
            except (DeviceError, StepFailed):
                listed = ""
            installed = tuple(line.split(":", 1)[1].strip() for line in listed.splitlines()
                              if line.startswith("package:"))
            raise phone_edges.not_installed(
                package, self.name, starting, said, installed,
                " (adb shell pm list packages lists the installed ones)")

    def terminate(self, app: str) -> None:
        app = app_package(app)           # (Midscene's package/activity: its package stops)
        self.shell(f"am force-stop {_quote(app)}")
        if app == self._app:
            self._app = None            # stopped on purpose: no longer the app to watch

    def current_app(self) -> str | None:
        """Package of the focused window (None when unknown): its mCurrentFocus, which Android
        10+ (API 29) prints in `dumpsys window displays` and older ones in `dumpsys window
        windows` (as appium-adb asks); the one that said it is asked first next time."""
        asked = FOCUS_COMMANDS if self._focus_from is None else (self._focus_from,)
        for command in asked:
            m = _FOCUS.search(self.shell(command + " | grep mCurrentFocus"))
            if m:
                self._focus_from = command
                return m.group("pkg")
        return None

    def run_script(self, code: str, timeout_s: float) -> Any:
        raise StepFailed("javascript steps run on the web only; use runAdbShell on Android")

    def error_page(self) -> str | None:
        """What stands where the case's screen should be, asked when a step failed or missed
        a target the zero-token tiers looked for (`farm.runner` then fails it saying this,
        where a miss read as a step for a model, skipped, and the run passed): a system
        dialog in front of the app (a runtime permission asked for, "isn't responding"),
        with its buttons; the browser's error page in place of a page (Chrome's "This site
        can’t be reached", ERR_...), or an HTTP error the page the case opened shows. None
        otherwise, or when the screen cannot be read."""
        if self._killed or self.abandoned or self._dev is None:
            return None
        xml = self._last_xml if self._dump_fresh else self._dump()
        if not xml:
            return None
        dialog = android_dialog(xml, SYSTEM_DIALOG_FRONTS)
        if dialog is not None:
            # (a case's launch failed: no step of its came before)
            return dialog_failure("a system dialog", *dialog, answerable=self._in_case)
        try:
            tree = parse_uiautomator(xml, *self.size())
        except ValueError:
            return None
        return page_failure(shown_texts(tree), self._opened)

    failure_note = error_page       # (a step's failure says the same, e.g. an assertText's)

    # -- health --------------------------------------------------------------------------------
    def healthy(self) -> bool:
        """Answers, screen on (woken if asleep, and its lock screen dismissed: a phone locks
        when its screen goes off, and the next case's app then started behind the lock screen,
        "did not come to the front", the phone's error, case after case until it was
        quarantined). A PIN or pattern lock stays: a person must take it off. Called by the
        thread that owns the device (its DeviceSlot), before every case."""
        if self._killed or self.abandoned or self._dev is None:
            return False
        try:
            if self._dev.get_state() != "device":
                return False
            power = self.shell("dumpsys power")
            if "mWakefulness=Awake" not in power and "state=ON" not in power:
                self._input("keyevent 224")
                self._dismiss_lock_screen()
                power = self.shell("dumpsys power")
            return "mWakefulness=Awake" in power or "state=ON" in power
        except Exception as exc:
            log.info("%s: health check failed: %s", self.name, exc)
            return False

    def screen_went_off(self) -> str | None:
        """Asked only when a step failed on a black screen or a target it did not find: the
        phone's own fault when its screen is off now (someone pressed Power, it slept: a
        phone off shows a black frame and no tree, and the case failed "no element matches"
        and was counted flaky) — the words of the DeviceError that retries the case on
        another phone (the next case's `healthy` wakes this one); None when the screen is on
        or the phone does not say."""
        if self._killed or self.abandoned or self._dev is None:
            return None
        try:
            power = self.shell("dumpsys power")
        except Exception as exc:    # (a phone that stopped answering: the next step says it)
            log.debug("%s: dumpsys power: %s", self.name, exc)
            return None
        if "mWakefulness=" not in power and "state=" not in power:
            return None             # (it says nothing of its screen)
        if "mWakefulness=Awake" in power or "state=ON" in power:
            return None
        return (f"{self.name}'s screen went off during the case (the phone went to sleep or "
                "was locked: its screen showed nothing to the step)")

    def _dismiss_lock_screen(self) -> None:
        """Take a swipe lock screen away: ``wm dismiss-keyguard`` (Android 8+), else Menu (what
        unlocks one on older phones); a secure one shows its PIN pad and stays."""
        out, err, code = self._run("wm dismiss-keyguard")
        if code or "unknown command" in (out + err).lower():
            self._input("keyevent 82")

    def kill(self) -> None:
        """Mark the device dead (any thread): a call blocked on the adb server (a hung
        screencap) ends at once, and every later call raises DeviceLost."""
        self._killed = True
        if self._adb is not None:
            self._adb.interrupt()

    # -- plumbing ------------------------------------------------------------------------------
    def _need(self) -> Any:
        if self._killed:
            raise DeviceLost(f"{self.name} was stopped")
        if self.abandoned:
            raise DeviceLost(self.abandoned)
        if self._dev is None:
            raise DeviceError(f"{self.name} is not open")
        return self._dev

    def _errors(self, what: str, own: bool = True) -> "_AdbErrors":
        return _AdbErrors(self, what, own)


def _silent_for(silence_s: float, setting: str) -> str:
    """Why a runAdbShell command without a timeout was given up: it said nothing for so long."""
    return (f"the shell command gave no output for {silence_s:g}s ({setting}) and was given "
            "up (still running on the phone, or the phone stopped answering); a longer "
            f"silence needs the step's timeout: (ms) or a longer {setting}")


def _last_lines(text: str, limit: int = 300) -> str:
    """The whole lines of ``text``'s last ``limit`` characters ("…" before, where cut), one
    line: what a runAdbShell command stopped at its time-out printed by then."""
    if len(text) > limit:
        tail = text[-limit:]
        text = "\u2026" + (tail.split("\n", 1)[1] if "\n" in tail[:-1] else tail)
    return text.replace("\n", " / ")


def _past_deadline(timeout_s: float, printed: int) -> str:
    """Why a runAdbShell command was stopped at its step's timeout (or the case's end)."""
    if not printed:
        return (f"the shell command gave no output for {timeout_s:g}s and was given up "
                "(still running on the phone, or the phone stopped answering); one that takes "
                "longer needs a longer timeout: (ms) on its step")
    return (f"the shell command was still running after {timeout_s:g}s, having printed "
            f"{printed:,} bytes, and was stopped: one that prints until stopped (logcat "
            "without -d, top without -n) never ends; else give the step a longer timeout: "
            "(ms)")


def adb_failure(exc: BaseException) -> str:
    """What an adbutils or socket failure means, in words a user reads ("the adb server closed
    the connection"), where adbutils says "Unknown data: b''" or "Expected 5 bytes, got 0".
    The adb server's own refusals ("device offline", "device 'x' not found") are kept."""
    from adbutils.errors import AdbConnectionError, AdbTimeout

    if _shell_cut(exc):
        return "the phone's shell stopped answering in the middle of the command"
    msg = clean(str(exc)).strip()
    if isinstance(exc, (AdbTimeout, TimeoutError)):     # socket.timeout is TimeoutError
        return "no answer in time from the adb server, or from the phone through it"
    if isinstance(exc, AdbConnectionError):
        cause = msg.removeprefix("connect to adb server failed: ")
        return f"cannot connect to the adb server ({cause})" if cause else \
            "cannot connect to the adb server"
    if isinstance(exc, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
        return "the connection to the adb server broke"
    if isinstance(exc, EOFError):      # adbutils: "Expected 5 bytes, got 0"
        return "the adb server closed the connection in the middle of an answer"
    if msg in ("Unknown data: b''", "connection closed", "Connection is closed"):
        return "the adb server closed the connection without answering"
    if msg.startswith("Unknown data: "):
        return f"the adb server answered something farm cannot read ({msg[14:][:60]})"
    return msg[:200] or type(exc).__name__


def _shell_cut(exc: BaseException) -> bool:
    """Whether ``exc`` is adbutils' "shell output invalid": an older phone's one-stream shell
    ended before the exit status adbutils appends an echo for (the phone went away mid-command).
    Its arguments hold the command line, whose typed text (a password as `input text` words)
    no message may show."""
    from adbutils.errors import AdbError
    return isinstance(exc, AdbError) and exc.args[:1] == ("shell output invalid",)


class _AdbErrors:
    """Map adbutils/socket failures: connection gone → DeviceLost, refusal → DeviceError,
    each saying what happened in words (`adb_failure`) and what farm was doing. ``own``: one
    of farm's own calls, waiting SHELL_TIMEOUT_S for each answer: one that got none in that
    time gives the phone up (`AndroidDevice.abandoned`); a suite's runAdbShell, under its
    own limits (its step's timeout, the case's time left), gives nothing up."""

    def __init__(self, device: AndroidDevice, what: str, own: bool = True) -> None:
        self.device, self.what, self.own = device, what, own

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or not isinstance(exc, Exception):
            return False
        from adbutils.errors import AdbError

        name = self.device.name
        if isinstance(exc, (DeviceLost, DeviceError, StepFailed)):
            return False
        if self.device._killed:
            raise DeviceLost(f"{name} lost ({self.what}): farm stopped the device") from exc
        if _shell_cut(exc):     # (not chained: its arguments hold the command line)
            raise DeviceLost(f"{name} lost ({self.what}): {adb_failure(exc)}") from None
        msg = clean(str(exc)).strip() or type(exc).__name__
        if _refused(exc):   # the whole adb server went (every phone's errors say it alike)
            dev = self.device
            where = f"{getattr(dev._adb, 'host', dev.host)}:{getattr(dev._adb, 'port', dev.port)}"
            raise DeviceLost(f"{name} lost ({self.what}): the adb server at {where} refuses "
                             "connections: it stopped") from exc
        if self.own and _timed_out(exc):
            self.device.abandoned = why = (
                f"{name} lost ({self.what}): no answer in {SHELL_TIMEOUT_S:g}s from the adb "
                "server, or from the phone through it: farm gave the phone up")
            log.warning("%s: its %s got no answer in %gs: farm gives the phone up (its later "
                        "calls fail at once, not after a wait each)", name, self.what,
                        SHELL_TIMEOUT_S)
            raise DeviceLost(why) from exc
        if isinstance(exc, (OSError, EOFError)) or _LOST.search(msg):
            raise DeviceLost(f"{name} lost ({self.what}): {adb_failure(exc)}") from exc
        if isinstance(exc, AdbError):
            raise DeviceError(f"{self.what} failed on {name}: {adb_failure(exc)}") from exc
        return False


def _timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a call to the adb server that got no answer in time (the phone, or
    the server, hung), not one that broke or was refused."""
    from adbutils.errors import AdbTimeout
    return isinstance(exc, (AdbTimeout, TimeoutError))


def _refused(exc: BaseException) -> bool:
    """Whether ``exc`` is the adb server's port refusing connections (nothing listens: the
    server stopped), as adbutils raises it (an AdbConnectionError from ConnectionRefusedError)."""
    from adbutils.errors import AdbConnectionError
    cause = exc.__cause__ or exc.__context__
    return isinstance(exc, ConnectionRefusedError) or (
        isinstance(exc, AdbConnectionError) and (isinstance(cause, ConnectionRefusedError)
                                                 or "Connection refused" in str(exc)))
