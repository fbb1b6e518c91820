"""A simulated WebDriverAgent: the HTTP endpoints facebook-wda calls, for one device.

Coordinates are points (= the page's CSS pixels); screenshots are pixels at ``scale`` 3.
Answers use WDA's envelope ``{"value": ..., "sessionId": ..., "status": 0}``; an unknown
session gets 404 ``{"error": "invalid session id"}`` as the real agent sends.
A launch argument ``-farm-reset-state`` starts the app with empty data (UI tests' usual
"reset" launch argument). ``POST /session/{id}/url`` opens a web page in Safari (a page whose
site does not answer shows the browser's error page) and refuses other schemes;
``/wda/apps/state`` is 0 (unknown) for an app the device does not have.

Text goes in as WDA takes it: ``GET /element/active`` names the element with the keyboard
focus (``no such element`` when none has it), ``POST /element/{uuid}/value`` types a whole
string into it at the caret in one request (the field takes it as an input method inserts
text: input events, no key events) and ``/clear`` empties it; ``POST /wda/keys`` types into
whatever has the focus, key by key. While a field has the focus (until
``/wda/keyboard/dismiss``) the keyboard covers the screen's lower part (`keyboard`): the source
holds an ``XCUIElementTypeKeyboard``, a touch there hits its keys. ``POST /orientation`` turns
the device (LANDSCAPE / PORTRAIT).

With the ``permission_dialog`` fault an app launched asks for a permission: SpringBoard's alert
is in front of it (`ios_alert`) until ``/alert/accept`` or ``/alert/dismiss`` (``name``: the
button) or a tap on one of its buttons answers it; other touches and keys do nothing.
``/appium/settings`` takes ``respectSystemAlerts`` as Appium's WebDriverAgent does.
A finger held LONG_PRESS_MS or more before it moves (a W3C action's pause after its
pointerDown, ``/wda/dragfromtoforduration``'s ``duration``: XCTest's press before the drag)
is a long press and then a drag, as on an iPhone (the page gets the pointer's down, moves and
up); one that moves at once is a swipe, which scrolls; one from the left edge rightwards goes
back. ``GET /farm/requests`` lists every request served
(``METHOD /path``, oldest first): tests read it to see which path a client took.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from farm.devices.sim import ios_alert, keyboard
from farm.devices.sim.screen import PhoneScreen
from farm.devices.sim.trees import wda_xml

log = logging.getLogger(__name__)

SPRINGBOARD = "com.apple.springboard"
SAFARI = "com.apple.mobilesafari"           # what WDA's POST /url opens a web page in
RESET_ARG = "-farm-reset-state"
_SESSION = re.compile(r"^/session/([^/]+)(/.*)?$")
_ELEMENT = re.compile(r"^/element/(?!active$)([^/]+)(/.*)$")     # /element/{uuid}/...
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"     # W3C's name for an element reference
LOGGED = 5000               # requests kept for GET /farm/requests
LONG_PRESS_MS = 500         # a touch held this long is a long press (UILongPressGesture's)
XCTEST_DRAG_MS = 300        # how long the move of XCTest's press-then-drag takes here
_KEYS = {"\n": "Enter", "\r": "Enter", "\b": "Backspace", "\x7f": "Backspace",
         "\t": "Tab", "\ue003": "Backspace", "\ue007": "Enter"}


class _Invalid(Exception):
    pass


# input the app does not get while a system alert covers it (a tap goes to the alert)
_UNDER_ALERT = frozenset(f"POST {p}" for p in (
    "/wda/doubleTap", "/wda/touchAndHold", "/wda/dragfromtoforduration", "/actions",
    "/wda/keys", "/element/:uuid/value", "/element/:uuid/clear"))
# what brings a dismissed keyboard back (a touch, typing into an element) or starts anew
_KEYBOARD_BACK = re.compile(r"/(wda/tap(/0)?|wda/doubleTap|wda/touchAndHold|value|clear|"
                            r"wda/apps/launch|url|wda/homescreen)$|^/session$")


class _Refused(Exception):
    """A request WDA answers with an error: HTTP ``code``, W3C ``error`` name, message."""

    def __init__(self, code: int, error: str, message: str) -> None:
        super().__init__(message)
        self.code, self.error = code, error


@dataclass
class _Request:
    """One call to an endpoint: its JSON body and the sessions it may answer with."""
    data: dict[str, Any]
    sid: str | None        # the session the path names
    current: str | None    # the session WDA holds
    element: str = ""      # the element a /element/{uuid}/... path names

    def point(self, x: str = "x", y: str = "y") -> tuple[float, float]:
        return float(self.data[x]), float(self.data[y])

    def milliseconds(self, default: float) -> int:
        """The body's ``duration`` (seconds) in milliseconds."""
        return int(float(self.data.get("duration", default)) * 1000)


_Endpoint = Callable[["WdaServer", _Request], tuple[Any, str | None]]
_ROUTES: dict[str, _Endpoint] = {}


def _route(*keys: str) -> Callable[[_Endpoint], _Endpoint]:
    """Make a WdaServer method the endpoint for each ``"METHOD /path"`` in ``keys`` (the path
    after ``/session/{id}``, if any)."""
    def register(endpoint: _Endpoint) -> _Endpoint:
        for key in keys:
            _ROUTES[key] = endpoint
        return endpoint
    return register


class _Handler(BaseHTTPRequestHandler):
    server: "WdaServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _send(self, code: int, value: Any, session: str | None = None) -> None:
        body = json.dumps({"value": value, "sessionId": session,
                           "status": 0 if code == 200 else 6}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_page(self, code: int, reason: str) -> None:
        """An HTML error page, as a proxy in front of WDA answers while WDA is down."""
        body = (f"<html><head><title>{code} {reason}</title></head><body><h1>{code} "
                f"{reason}</h1><p>upstream unavailable</p></body></html>").encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _dispatch(self, method: str) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {}
        path = self.path.split("?")[0].rstrip("/") or "/"
        if path == "/farm/fault" and method == "POST":
            try:
                srv.screen.faults.set(data["name"], data.get("count", 1))
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                return self._send(400, {"error": "invalid argument", "message":
                                        f'{{"name": NAME, "count": COUNT}} expected: {exc}'})
            return self._send(200, srv.screen.faults.active())
        if path == "/farm/requests" and method == "GET":
            return self._send(200, list(srv.requests))
        srv.requests.append(f"{method} {path}")
        if srv.screen.faults.hit("drop"):
            self.close_connection = True
            self.connection.shutdown(2)     # the device vanished mid-request
            return
        if srv.screen.faults.hit("unavailable"):
            return self._send_page(503, "Service Unavailable")
        try:
            with srv.screen.lock:
                value, sid = srv.handle(method, path, data)
        except _Invalid:
            return self._send(404, {"error": "invalid session id",
                                    "message": "Session does not exist"})
        except _Refused as exc:     # an answer WDA gives: its console says a failure in a line
            if exc.code >= 500:     # (a missing element, a bad argument: the client's to say)
                log.warning("wda sim: %s %s: %s", method, path, exc)
            return self._send(exc.code, {"error": exc.error, "message": str(exc)})
        except KeyError as exc:
            return self._send(404, {"error": "unknown command",
                                    "message": f"Unhandled endpoint: {exc.args[0]}"})
        except Exception as exc:   # a bug or Chromium trouble: WDA's own "unknown error"
            log.exception("wda sim: %s %s failed", method, path)
            return self._send(500, {"error": "unknown error", "message": str(exc)})
        self._send(200, value, sid)


class WdaServer(ThreadingHTTPServer):
    """One simulated device's WDA endpoint on 127.0.0.1:``port`` (0: a free port)."""

    daemon_threads = True

    def __init__(self, screen: PhoneScreen, apps: Callable[[], dict[str, str]],
                 port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.screen, self.apps = screen, apps
        self.port = self.server_address[1]
        self.udid = str(uuid.uuid4()).upper()    # (as a simulator's: one of its own per phone)
        self.sessions: set[str] = set()
        self.requests: deque[str] = deque(maxlen=LOGGED)
        # the keyboard was dismissed (`/wda/keyboard/dismiss`) and no touch brought it back:
        # keys have nowhere to go, as on an iPhone
        self.keyboard_down = False
        self.down_before = False
        # the app whose permission alert is up (fault `permission_dialog`), until answered
        self.asking: str | None = None
        self.settings: dict[str, Any] = {"respectSystemAlerts": False}
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="wda-sim",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    # -- endpoints ---------------------------------------------------------------------------
    def handle(self, method: str, path: str, data: dict[str, Any]) -> tuple[Any, str | None]:
        """(value, sessionId) for one request; KeyError for an unknown endpoint."""
        self.down_before = self.keyboard_down     # (a touch on where it was, `_on_keyboard`)
        if method == "POST" and _KEYBOARD_BACK.search(path):
            self.keyboard_down = False    # a touch, a field typed into, an app: it is back
        sid, path = self._session_of(path)
        element = _ELEMENT.match(path) if sid else None
        key = f"{method} /element/:uuid{element.group(2)}" if element else f"{method} {path}"
        if key not in _ROUTES:
            raise KeyError(f"{method} {path}")
        if key in _UNDER_ALERT and self.alert_up():
            return None, sid            # the alert is modal: the app gets no input
        try:
            return _ROUTES[key](self, _Request(data, sid, next(iter(self.sessions), None),
                                               element.group(1) if element else ""))
        except (KeyError, TypeError, ValueError) as exc:
            # a parameter missing or of the wrong kind: WDA's "invalid argument", where it
            # read as "Unhandled endpoint: x" (a missing x) or as WDA's own failure
            raise _Refused(400, "invalid argument",
                           f"{key.split(' ', 1)[1]}: a parameter is missing or not of its "
                           f"kind ({type(exc).__name__}: {exc})") from None

    def _session_of(self, path: str) -> tuple[str | None, str]:
        """The live session a ``/session/{id}/…`` path names, and the path after it."""
        m = _SESSION.match(path)
        if not m:
            return None, path
        sid = m.group(1)
        if sid not in self.sessions or self.screen.faults.hit("invalid_session"):
            self.sessions.discard(sid)
            raise _Invalid()
        return sid, m.group(2) or "/"

    @_route("GET /status")
    def _status(self, req: _Request) -> tuple[Any, str | None]:
        return {"ready": True, "state": "success", "message": "WebDriverAgent is ready",
                "os": {"name": "iOS", "version": "17.0"},
                "build": {"productBundleIdentifier": "com.facebook.WebDriverAgentRunner"}
                }, req.current

    @_route("POST /session")
    def _new_session(self, req: _Request) -> tuple[Any, str | None]:
        caps = req.data.get("capabilities", {}).get("alwaysMatch") or \
            req.data.get("desiredCapabilities") or {}
        new = str(uuid.uuid4()).upper()
        self.sessions = {new}            # WDA keeps one session at a time
        bundle = caps.get("bundleId")
        if bundle:
            self._launch(bundle, caps.get("arguments") or [])
        return {"sessionId": new, "capabilities": {"device": "iphone",
                                                    "CFBundleIdentifier": bundle}}, new

    @_route("DELETE /")
    def _end_session(self, req: _Request) -> tuple[Any, str | None]:
        self.sessions.discard(req.sid or "")
        return None, None

    @_route("GET /")
    def _session_info(self, req: _Request) -> tuple[Any, str | None]:
        return {"sessionId": req.sid,
                "capabilities": {"CFBundleIdentifier": self.screen.app}}, req.sid

    def locked(self) -> bool:
        """Whether the lock screen shows (fault ``locked``: until unlocked)."""
        return self.screen.faults.locked != 0

    @_route("GET /wda/locked")
    def _locked(self, req: _Request) -> tuple[Any, str | None]:
        return self.locked(), req.current

    @_route("POST /wda/lock")
    def _lock(self, req: _Request) -> tuple[Any, str | None]:
        self.screen.faults.set("locked", -1)
        return None, req.current

    @_route("POST /wda/unlock")
    def _unlock(self, req: _Request) -> tuple[Any, str | None]:
        """Wake the screen and swipe the lock screen away, as WDA does; with a passcode
        (fault ``passcode``) its pad shows and the screen stays locked: WDA's error."""
        if self.locked() and self.screen.faults.passcode:
            raise _Refused(500, "unknown error", "Timed out while waiting until the screen "
                           "gets unlocked")
        self.screen.faults.set("locked", 0)
        return None, req.current

    @_route("GET /screenshot")
    def _screenshot(self, req: _Request) -> tuple[Any, str | None]:
        s = self.screen
        if s.faults.hit("slow"):
            time.sleep(s.faults.slow_seconds)
        black = s.faults.hit("black") or self.locked()     # (its screen off)
        png = _black(s) if black else s.screenshot()
        if not black and self.keyboard_shows():
            png = keyboard.draw(png, s.dpr)
        alert = self.shown_alert()
        if alert is not None and not black:
            png = ios_alert.draw(png, alert, s.dpr)
        return base64.b64encode(png).decode(), req.sid or req.current

    @_route("GET /source")
    def _source(self, req: _Request) -> tuple[Any, str | None]:
        s = self.screen
        if self.permission_up() and self.settings.get("respectSystemAlerts"):
            return (ios_alert.source(ios_alert.permission(self.asking or ""), SPRINGBOARD,
                                     s.width, s.height), req.sid or req.current)
        if self.locked():           # SpringBoard's lock screen, nothing of the app
            return wda_xml(None, SPRINGBOARD, s.width, s.height), req.sid or req.current
        dom = None if s.faults.hit("empty_tree") or s.app is None or s.dialog() else s.dom()
        if s.app is not None and s.dialog() is not None:     # (its page is blocked by it)
            alert = self.shown_alert()
            if alert is not None:
                return ios_alert.source(alert, s.app, s.width, s.height), req.sid or req.current
        xml = wda_xml(dom, s.app or SPRINGBOARD, s.width, s.height)
        if dom is not None and self.keyboard_shows():     # (the app's views under it stay)
            end = "</XCUIElementTypeApplication>"
            xml = xml.replace(end, keyboard.wda_element(s.width, s.height, 1) + "\n" + end)
        return xml, req.sid or req.current

    def keyboard_shows(self, before: bool = False) -> bool:
        """Whether the keyboard is up: a text field of the app in front has the focus and it
        was not dismissed (``before``: as it was before this request's touch)."""
        return not (self.down_before if before else self.keyboard_down) and \
            not self.alert_up() and self.screen.app is not None and self.screen.editing()

    def _on_keyboard(self, x: float, y: float, tap: bool) -> bool:
        """Whether a touch at (x, y) lands on the keyboard: it takes it, not the app under
        it; a tap on a letter types it."""
        s = self.screen
        if not keyboard.covers(x, y, s.width, s.height) or not self.keyboard_shows(True):
            return False
        label = keyboard.key_at(x, y, s.width, s.height) if tap else None
        if label == keyboard.RETURN:
            s.key("Enter")
        elif label:
            s.type(" " if label == keyboard.SPACE else label)
        return True

    @_route("GET /window/size")
    def _window_size(self, req: _Request) -> tuple[Any, str | None]:
        return {"width": self.screen.width, "height": self.screen.height}, req.sid

    @_route("GET /orientation")
    def _orientation(self, req: _Request) -> tuple[Any, str | None]:
        landscape = self.screen.width > self.screen.height
        return ("LANDSCAPE" if landscape else "PORTRAIT"), req.sid

    @_route("POST /orientation")
    def _turn(self, req: _Request) -> tuple[Any, str | None]:
        """Turn the device (WDA's orientation: PORTRAIT, LANDSCAPE, UIA_DEVICE_ORIENTATION_*):
        the window's size, the source, screenshots and touches follow, in points."""
        said = str(req.data.get("orientation", "")).upper()
        if "PORTRAIT" not in said and "LANDSCAPE" not in said:
            raise _Refused(400, "invalid argument", f"Unable To Rotate Device: {said!r}")
        self.screen.turn("LANDSCAPE" in said)
        return None, req.sid

    @_route("GET /wda/screen")
    def _screen_info(self, req: _Request) -> tuple[Any, str | None]:
        return {"statusBarSize": {"width": self.screen.width, "height": 47},
                "scale": self.screen.dpr}, req.sid

    @_route("GET /wda/activeAppInfo")
    def _active_app(self, req: _Request) -> tuple[Any, str | None]:
        """The app in front; SpringBoard while its alert covers the app only with
        respectSystemAlerts on (off, WDA names the app under the alert)."""
        app = self.screen.app or SPRINGBOARD
        if self.locked() or self.permission_up() and self.settings.get("respectSystemAlerts"):
            app = SPRINGBOARD
        return {"bundleId": app, "name": "", "pid": 1000, "processArguments": {}}, req.current

    def alert_up(self) -> bool:
        """Whether an alert is in front of the app: a permission it asked for, or its page's
        JavaScript dialog."""
        return self.shown_alert() is not None

    def permission_up(self) -> bool:
        """Whether the permission alert an app asked for is in front of it now."""
        return self.asking is not None and self.asking == self.screen.app

    def shown_alert(self) -> ios_alert.Alert | None:
        """The alert in front: SpringBoard's permission alert over the app, else the app's
        page's alert(), confirm() or prompt()."""
        if self.permission_up():
            return ios_alert.permission(self.asking or "")
        dialog = self.screen.dialog() if self.screen.app is not None else None
        return ios_alert.page_dialog(dialog.type, dialog.message) if dialog else None

    def _alert(self) -> ios_alert.Alert:
        alert = self.shown_alert()
        if alert is None:
            raise _Refused(404, "no such alert", "An attempt was made to operate on a modal "
                           "dialog when one was not open")
        return alert

    def _answer(self, alert: ios_alert.Alert, label: str) -> None:
        """Close ``alert`` with its button ``label`` (the last accepts)."""
        if self.permission_up():
            self.asking = None
        else:
            self.screen.answer_dialog(accept=label == alert.buttons[-1])

    @_route("GET /alert/text")
    def _alert_text(self, req: _Request) -> tuple[Any, str | None]:
        return ios_alert.text(self._alert()), req.sid or req.current

    @_route("GET /wda/alert/buttons")
    def _alert_buttons(self, req: _Request) -> tuple[Any, str | None]:
        return list(self._alert().buttons), req.sid or req.current

    @_route("POST /alert/accept")
    def _alert_accept(self, req: _Request) -> tuple[Any, str | None]:
        """Close the alert with its button ``name``, else the accepting one (the last)."""
        return self._alert_answer(req, accept=True)

    @_route("POST /alert/dismiss")
    def _alert_dismiss(self, req: _Request) -> tuple[Any, str | None]:
        """Close the alert with its button ``name``, else the other one (the first)."""
        return self._alert_answer(req, accept=False)

    def _alert_answer(self, req: _Request, accept: bool) -> tuple[Any, str | None]:
        alert = self._alert()
        name = req.data.get("name")
        if name is not None and name not in alert.buttons:
            raise _Refused(400, "invalid element state",
                           f"Failed to find button with label '{name}' for alert")
        self._answer(alert, name or alert.buttons[-1 if accept else 0])
        return None, req.sid or req.current

    @_route("GET /appium/settings")
    def _get_settings(self, req: _Request) -> tuple[Any, str | None]:
        return dict(self.settings), req.sid

    @_route("POST /appium/settings")
    def _set_settings(self, req: _Request) -> tuple[Any, str | None]:
        self.settings.update(dict(req.data["settings"]))
        return dict(self.settings), req.sid

    @_route("GET /wda/device/info")
    def _device_info(self, req: _Request) -> tuple[Any, str | None]:
        return {"name": self.screen.name, "model": "iPhone", "userInterfaceIdiom": 0,
                "isSimulator": True, "udid": self.udid}, req.sid or req.current

    @_route("POST /wda/homescreen")
    def _home_screen(self, req: _Request) -> tuple[Any, str | None]:
        self.screen.home()
        return None, req.sid or req.current

    @_route("POST /wda/pressButton")
    def _press_button(self, req: _Request) -> tuple[Any, str | None]:
        name = req.data.get("name")
        if name == "home":
            return self._home_screen(req)
        if name not in ("volumeUp", "volumeDown"):      # an iPhone's other buttons
            raise _Refused(400, "invalid argument",
                           f"The button '{name}' is unknown to this device")
        return None, req.sid

    @_route("POST /wda/tap", "POST /wda/tap/0")
    def _tap(self, req: _Request) -> tuple[Any, str | None]:
        if self.locked():           # the lock screen takes it
            pass
        elif (alert := self.shown_alert()) is not None:     # one of its buttons answers it
            label = ios_alert.button_at(*req.point(), self.screen.width, self.screen.height,
                                        alert.buttons)
            if label is not None:
                self._answer(alert, label)
        elif not self._on_keyboard(*req.point(), tap=True) and not self._crashed():
            self.screen.tap(*req.point())
        return None, req.sid

    def _crashed(self) -> bool:
        """The ``crash`` fault: the app in front dies of this touch (the home screen shows;
        its state is 1, not running)."""
        app = self.screen.app
        if app is None or app == SAFARI or not self.screen.faults.hit("crash"):
            return False
        self.screen.stop(app)
        return True

    @_route("POST /wda/doubleTap")
    def _double_tap(self, req: _Request) -> tuple[Any, str | None]:
        if self._on_keyboard(*req.point(), tap=False):
            return None, req.sid
        self.screen.tap(*req.point())
        self.screen.tap(*req.point(), count=2)       # a double tap: the page's dblclick
        return None, req.sid

    @_route("POST /wda/touchAndHold")
    def _touch_and_hold(self, req: _Request) -> tuple[Any, str | None]:
        if self._on_keyboard(*req.point(), tap=False):
            return None, req.sid
        self.screen.tap(*req.point(), hold_ms=req.milliseconds(default=1))
        return None, req.sid

    @_route("POST /wda/dragfromtoforduration")
    def _drag(self, req: _Request) -> tuple[Any, str | None]:
        """XCTest's pressForDuration:thenDragToCoordinate: the finger is held ``duration``
        seconds, then moved (at XCTest's own pace): held LONG_PRESS_MS or more, a long press
        and a drag, as on an iPhone."""
        self._finger(req.point("fromX", "fromY"), req.point("toX", "toY"),
                     req.milliseconds(default=0), XCTEST_DRAG_MS)
        return None, req.sid

    def _finger(self, start: tuple[float, float], end: tuple[float, float], held_ms: int,
                move_ms: int) -> None:
        """One finger put down at ``start``, held ``held_ms``, moved to ``end`` in ``move_ms``
        and lifted, as iOS takes it: the keyboard's where it lands on the keyboard; from the
        left edge rightwards, the system's back swipe (none at the first page); held
        LONG_PRESS_MS or more before it moves, a long press then a drag (the page gets the
        pointer's down, moves and up: a row picked up, a menu opened); else a tap where it
        did not move, or a swipe, which scrolls."""
        (x1, y1), (x2, y2) = start, end
        if self._on_keyboard(x1, y1, tap=False):
            return
        if x1 < 12 and x2 - x1 > 80:
            self.screen.back(leave_at_first=False)
        elif held_ms >= LONG_PRESS_MS:
            self.screen.drag(start, end, held_ms, move_ms)
        elif start == end:
            self.screen.tap(x1, y1, hold_ms=max(held_ms, 1))
        else:
            if self.keyboard_shows():
                _, top, _, bottom = keyboard.box(self.screen.width, self.screen.height)
                self.screen.make_room(bottom - top)
            self.screen.swipe(x1, y1, x2, y2, move_ms)

    @_route("POST /wda/keyboard/dismiss")
    def _dismiss_keyboard(self, req: _Request) -> tuple[Any, str | None]:
        if self.screen.faults.hit("keyboard_stuck"):    # what WDA says on an iPhone
            raise _Refused(500, "unknown error", "Did not know how to dismiss the keyboard. "
                           "Try to dismiss it in the way supported by your application under "
                           "test.")
        self.keyboard_down = True
        return None, req.sid

    @_route("POST /actions")
    def _actions(self, req: _Request) -> tuple[Any, str | None]:
        """W3C actions: two touch pointers moving apart or together are a pinch; one finger
        is played as `_finger` takes it (held LONG_PRESS_MS before it moves: a drag)."""
        fingers = [a for a in req.data.get("actions", []) if a.get("type") == "pointer"]
        if len(fingers) == 1:
            self._one_finger(fingers[0].get("actions", []))
            return None, req.sid
        if len(fingers) != 2:
            raise ValueError("the simulator plays one finger or a two-finger pinch")
        paths = []
        for f in fingers:
            moves = [s for s in f.get("actions", []) if s.get("type") == "pointerMove"]
            paths.append(((float(moves[0]["x"]), float(moves[0]["y"])),
                          (float(moves[-1]["x"]), float(moves[-1]["y"]))))
        ms = max(int(s.get("duration", 0)) for s in fingers[0]["actions"])
        self.screen.pinch(paths, ms)
        return None, req.sid

    def _one_finger(self, steps: list[dict[str, Any]]) -> None:
        moves = [s for s in steps if s.get("type") == "pointerMove"]
        down = next((i for i, s in enumerate(steps) if s.get("type") == "pointerDown"), None)
        if not moves or down is None:
            raise ValueError("a finger's actions need a pointerMove and a pointerDown")
        start = (float(moves[0]["x"]), float(moves[0]["y"]))
        end = (float(moves[-1]["x"]), float(moves[-1]["y"]))
        held = 0            # the pauses between the finger's down and its first move
        for step in steps[down + 1:]:
            if step.get("type") == "pointerMove":
                break
            held += int(step.get("duration", 0)) if step.get("type") == "pause" else 0
        self._finger(start, end, held, sum(int(s.get("duration", 0)) for s in moves[1:]))

    @_route("POST /wda/keys")
    def _keys(self, req: _Request) -> tuple[Any, str | None]:
        """Type into the field with the keyboard focus: refused, as WDA refuses it, when no
        keyboard shows (no text field has the focus, or the keyboard was dismissed)."""
        if self.keyboard_down or not self.screen.editing():
            said = "The on-screen keyboard must be present to send keys"
            raise _Refused(400, "invalid element state", "Error Domain=com.facebook."
                           f"WebDriverAgent Code=1 \"{said}\" UserInfo="
                           f"{{NSLocalizedDescription={said}}}")
        value = req.data.get("value", "")
        self._type("".join(value) if isinstance(value, list) else str(value))
        return None, req.sid

    @_route("GET /element/active")
    def _active_element(self, req: _Request) -> tuple[Any, str | None]:
        """The element with the keyboard focus, by the id WDA's element cache gives it."""
        found = self.screen.focused_field(str(uuid.uuid4()).upper())
        if found is None:
            raise _Refused(404, "no such element", "unable to find an element")
        return {"ELEMENT": found, ELEMENT_KEY: found}, req.sid

    @_route("POST /element/:uuid/value")
    def _element_value(self, req: _Request) -> tuple[Any, str | None]:
        """Type ``value`` (a string or a list of strings, joined; ``text`` as well) into the
        element at its caret, as WDA's typeText does: the field gets the keyboard focus
        first; a newline is Return and a backspace deletes."""
        value = req.data.get("value", req.data.get("text"))
        if value is None:
            raise _Refused(400, "invalid argument",
                           "Neither 'value' nor 'text' parameter is provided")
        text = "".join(value) if isinstance(value, list) else str(value)
        self._field(req.element, "")             # focus it (and check it is still there)
        for part, key in _segments(text):
            if key:
                self.screen.key(key)
            else:
                self._field(req.element, part)
        return None, req.sid

    @_route("GET /element/:uuid/attribute/value", "GET /element/:uuid/text")
    def _element_text(self, req: _Request) -> tuple[Any, str | None]:
        """What a text field holds (XCUIElement's value), as the app kept it."""
        value = self.screen.field_value(req.element)
        if value is None:
            raise _Refused(404, "stale element reference", f"The element '{req.element}' is "
                           "not linked to the same object in the DOM anymore")
        return value, req.sid

    @_route("POST /element/:uuid/clear")
    def _element_clear(self, req: _Request) -> tuple[Any, str | None]:
        self._field(req.element, None)
        return None, req.sid

    def _field(self, element: str, text: str | None) -> None:
        if not self.screen.field_input(element, text, self.screen.faults.hit("redraw")):
            raise _Refused(404, "stale element reference", f"The element '{element}' is not "
                           "linked to the same object in the DOM anymore")

    @_route("POST /wda/apps/launch")
    def _launch_app(self, req: _Request) -> tuple[Any, str | None]:
        self._launch(req.data["bundleId"], req.data.get("arguments") or [])
        return None, req.sid

    @_route("POST /wda/apps/terminate")
    def _terminate_app(self, req: _Request) -> tuple[Any, str | None]:
        running = self.screen.app == req.data["bundleId"]
        self.asking = None if self.asking == req.data["bundleId"] else self.asking
        self.screen.stop(req.data["bundleId"])
        return running, req.sid

    @_route("POST /wda/apps/state")
    def _app_state(self, req: _Request) -> tuple[Any, str | None]:
        """4 in front, 3 running in the background, 1 not running, 0 unknown (an app the
        device does not have)."""
        bundle = req.data["bundleId"]
        if self.screen.app == bundle:
            return 4, req.sid
        if self.screen.running(bundle):
            return 3, req.sid
        return (1 if bundle in self.apps() or bundle in (SPRINGBOARD, SAFARI) else 0), req.sid

    @_route("POST /url")
    def _open_url(self, req: _Request) -> tuple[Any, str | None]:
        """Open a URL as iOS does: a web page in Safari (its error page when the site does not
        answer); a URL of any other scheme has no app here to open it."""
        url = req.data.get("url")
        if not url:
            raise _Refused(400, "invalid argument", "URL is required")
        if str(url).split("://")[0].lower() not in ("http", "https"):
            raise _Refused(500, "unknown error", f"The URL {url} cannot be opened: no "
                           "installed app handles its scheme")
        self.screen.browse(SAFARI, str(url))
        return None, req.sid

    def _launch(self, bundle: str, arguments: list[str]) -> None:
        url = self.apps().get(bundle)
        if url is None:
            raise _Refused(500, "unknown error", f"The application under test with bundle id "
                           f"'{bundle}' is not installed on the device")
        if self.locked():         # what XCTest's launch says on a locked iPhone
            raise _Refused(500, "unknown error", f"The request to open \"{bundle}\" failed. "
                           f"Unable to launch {bundle} because the device was not, or could "
                           "not be, unlocked.")
        if RESET_ARG in arguments:
            self.screen.clear_data()
        if self.screen.faults.hit("launch_fail"):
            self.screen.stop(bundle)       # it started and crashed at once
            self.screen.home()
            return
        self.screen.launch(bundle, url)
        if self.screen.faults.hit("permission_dialog"):
            self.asking = bundle

    def _type(self, text: str) -> None:
        for part, key in _segments(text):
            if key:
                self.screen.key(key)
            else:
                self.screen.type(part)


def _segments(text: str) -> list[tuple[str, str]]:
    """``text`` as (plain text, "") and ("", key name) pieces: what a keyboard types and the
    keys (Return, Delete, Tab) it presses."""
    out: list[tuple[str, str]] = []
    for ch in text:
        if ch in _KEYS:
            out.append(("", _KEYS[ch]))
        elif out and not out[-1][1]:
            out[-1] = (out[-1][0] + ch, "")
        else:
            out.append((ch, ""))
    return out


def _black(screen: PhoneScreen) -> bytes:
    import io

    from PIL import Image
    buf = io.BytesIO()
    size = (round(screen.width * screen.dpr), round(screen.height * screen.dpr))
    Image.new("RGB", size, (0, 0, 0)).save(buf, "PNG")
    return buf.getvalue()
