"""A simulated WebDriverAgent: the HTTP endpoints facebook-wda calls, for one device.

Coordinates are points (= the page's CSS pixels); screenshots are pixels at ``scale`` 3.
Answers use WDA's envelope ``{"value": ..., "sessionId": ..., "status": 0}``; an unknown
session gets 404 ``{"error": "invalid session id"}`` as the real agent sends.
A launch argument ``-farm-reset-state`` starts the app with empty data (UI tests' usual
"reset" launch argument).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from farm.devices.sim.screen import PhoneScreen
from farm.devices.sim.trees import wda_xml

log = logging.getLogger(__name__)

SPRINGBOARD = "com.apple.springboard"
RESET_ARG = "-farm-reset-state"
_SESSION = re.compile(r"^/session/([^/]+)(/.*)?$")
_KEYS = {"\n": "Enter", "\r": "Enter", "\b": "Backspace", "\x7f": "Backspace",
         "\t": "Tab", "\ue003": "Backspace", "\ue007": "Enter"}


class _Invalid(Exception):
    pass


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
            except KeyError as exc:
                return self._send(400, {"error": "invalid argument", "message": str(exc)})
            return self._send(200, srv.screen.faults.active())
        if srv.screen.faults.hit("drop"):
            self.close_connection = True
            self.connection.shutdown(2)     # the device vanished mid-request
            return
        try:
            with srv.screen.lock:
                value, sid = srv.handle(method, path, data)
        except _Invalid:
            return self._send(404, {"error": "invalid session id",
                                    "message": "Session does not exist"})
        except KeyError as exc:
            return self._send(404, {"error": "unknown command",
                                    "message": f"Unhandled endpoint: {method} {exc.args[0]}"})
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
        self.sessions: set[str] = set()
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
        m = _SESSION.match(path)
        sid = None
        if m and not (path == "/session" and method == "POST"):
            sid, path = m.group(1), m.group(2) or "/"
            if sid not in self.sessions or self.screen.faults.hit("invalid_session"):
                self.sessions.discard(sid)
                raise _Invalid()
        current = next(iter(self.sessions), None)
        key = f"{method} {path}"
        s = self.screen
        if key == "GET /status":
            return {"ready": True, "state": "success", "message": "WebDriverAgent is ready",
                    "os": {"name": "iOS", "version": "17.0"},
                    "build": {"productBundleIdentifier": "com.facebook.WebDriverAgentRunner"}
                    }, current
        if key == "POST /session":
            caps = data.get("capabilities", {}).get("alwaysMatch") or \
                data.get("desiredCapabilities") or {}
            new = str(uuid.uuid4()).upper()
            self.sessions = {new}            # WDA keeps one session at a time
            bundle = caps.get("bundleId")
            if bundle:
                self._launch(bundle, caps.get("arguments") or [])
            return {"sessionId": new, "capabilities": {"device": "iphone",
                                                        "CFBundleIdentifier": bundle}}, new
        if key == "DELETE /":
            self.sessions.discard(sid or "")
            return None, None
        if key == "GET /":
            return {"sessionId": sid, "capabilities": {"CFBundleIdentifier": s.app}}, sid
        if key in ("GET /wda/locked",):
            return False, current
        if key in ("POST /wda/unlock", "POST /wda/lock"):
            return None, current
        if key == "GET /screenshot":
            if self.screen.faults.hit("slow"):
                import time
                time.sleep(self.screen.faults.slow_seconds)
            png = _black(s) if s.faults.hit("black") else s.screenshot()
            return base64.b64encode(png).decode(), sid or current
        if key == "GET /source":
            dom = None if s.faults.hit("empty_tree") or s.app is None else s.dom()
            return wda_xml(dom, s.app or SPRINGBOARD, s.width, s.height), sid or current
        if key == "GET /window/size":
            return {"width": s.width, "height": s.height}, sid
        if key == "GET /wda/screen":
            return {"statusBarSize": {"width": s.width, "height": 47}, "scale": s.dpr}, sid
        if key == "GET /wda/activeAppInfo":
            return {"bundleId": s.app or SPRINGBOARD, "name": "", "pid": 1000,
                    "processArguments": {}}, current
        if key == "GET /wda/device/info":
            return {"name": s.name, "model": "iPhone", "userInterfaceIdiom": 0,
                    "isSimulator": True}, sid or current
        if key == "POST /wda/homescreen" or (key == "POST /wda/pressButton"
                                             and data.get("name") == "home"):
            s.home()
            return None, sid or current
        if key == "POST /wda/pressButton":
            return None, sid
        if key in ("POST /wda/tap", "POST /wda/tap/0"):
            s.tap(float(data["x"]), float(data["y"]))
            return None, sid
        if key == "POST /wda/doubleTap":
            s.tap(float(data["x"]), float(data["y"]))
            s.tap(float(data["x"]), float(data["y"]))
            return None, sid
        if key == "POST /wda/touchAndHold":
            s.tap(float(data["x"]), float(data["y"]), hold_ms=int(float(data.get(
                "duration", 1)) * 1000))
            return None, sid
        if key == "POST /wda/dragfromtoforduration":
            x1, y1 = float(data["fromX"]), float(data["fromY"])
            x2, y2 = float(data["toX"]), float(data["toY"])
            if x1 < 12 and x2 - x1 > 80:    # iOS's edge swipe: back
                s.back()
            else:
                s.swipe(x1, y1, x2, y2, int(float(data.get("duration", 0)) * 1000))
            return None, sid
        if key == "POST /wda/keys":
            value = data.get("value", "")
            self._type("".join(value) if isinstance(value, list) else str(value))
            return None, sid
        if key == "POST /wda/apps/launch":
            self._launch(data["bundleId"], data.get("arguments") or [])
            return None, sid
        if key == "POST /wda/apps/terminate":
            running = s.app == data["bundleId"]
            if running:
                s.home()
            return running, sid
        if key == "POST /wda/apps/state":
            return (4 if s.app == data["bundleId"] else 1), sid
        raise KeyError(key)

    def _launch(self, bundle: str, arguments: list[str]) -> None:
        url = self.apps().get(bundle)
        if url is None:
            raise RuntimeError(f"The application under test with bundle id '{bundle}' "
                               "is not installed on the device")
        if RESET_ARG in arguments:
            self.screen.clear_data()
        if self.screen.faults.hit("launch_fail"):
            self.screen.home()
            return
        self.screen.launch(bundle, url)

    def _type(self, text: str) -> None:
        buf = ""
        for ch in text:
            if ch in _KEYS:
                if buf:
                    self.screen.type(buf)
                    buf = ""
                self.screen.key(_KEYS[ch])
            else:
                buf += ch
        if buf:
            self.screen.type(buf)


def _black(screen: PhoneScreen) -> bytes:
    import io

    from PIL import Image
    buf = io.BytesIO()
    size = (round(screen.width * screen.dpr), round(screen.height * screen.dpr))
    Image.new("RGB", size, (0, 0, 0)).save(buf, "PNG")
    return buf.getvalue()
