"""Protocol-level phone simulators: an adb server and WebDriverAgent endpoints whose screens
are headless Chromium pages showing a web app.

    sim = AndroidSimulator(count=2, apps={"com.farm.demo.shop": "http://127.0.0.1:8000/"})
    sim.start()            # adbutils / `adb devices` on sim.port see emulator-5554, -5556
    sim.fault(0, "black", 1)
    sim.stop()

Fault switches (per device, at runtime): ``drop`` (connection closed unanswered), ``black``
(all-black frame), ``idle`` ("could not get idle state"), ``null_root`` (uiautomator's "null
root node", no file written), ``empty_tree``, ``slow``
(screencap/screenshot +``slow_seconds``), ``invalid_session`` (WDA), ``input_blocked``
(SecurityException on stderr), ``launch_fail`` (app crashes on launch), ``crash`` (the app in
front dies at the next touch; Android logs it: ``adb logcat``), ``offline`` (adb lists the
phone offline and refuses it, as after a replugged cable), ``keyboard_stuck`` (WDA cannot
dismiss the keyboard), ``redraw`` (WDA: the app draws the field an element request names
anew first, so its id is stale), ``permission_dialog`` (an app launched asks for a
permission: Android's dialog, or the iPhone's SpringBoard alert, in front of it until answered),
``locked`` (WDA: the iPhone's lock screen shows until ``/wda/unlock``; no app launches behind
it), ``passcode`` (WDA: ``/wda/unlock`` fails, the lock stays), ``unavailable`` (WDA: a 503
HTML page, as a proxy in front of a restarting WebDriverAgent answers).
Tests set them through
`fault`, over adb (``adb shell farm-sim fault black 1``) or over WDA (``POST /farm/fault``
``{"name": "black", "count": 1}``); no fault applies to the switches themselves, so ``drop``
can be switched off either way.

Beyond faults, a phone's soft keyboard covers the lower part of its screen while a text field
has the focus (`keyboard`: screenshots show it, touches there hit its keys, the app's tree
keeps the views under it); the Android phone locks when its screen goes off (power key): ``dumpsys
window`` shows the lock screen until ``wm dismiss-keyguard`` (Menu on an Android 6 one); and
``yes [WORD]`` prints until the client hangs up, as any command that never ends (a busy
phone's plain ``logcat``).
"""

from __future__ import annotations

import errno
import threading
from typing import Any

from farm.devices.sim.page_dialogs import PageDialogs
from farm.devices.sim.screen import PhoneScreen, ScreenHost

YADB = "/data/local/tmp/yadb"        # where yadb's jar is pushed (farm.devices.android)
ANDROID_SCREEN = (1080, 2400, 2.5)      # physical pixels, density: 432x960 CSS px
IOS_SCREEN = (390, 844, 3)              # points and scale (iPhone 14: 1170x2532 pixels)
ANDROID_UA = ("Mozilla/5.0 (Linux; Android 14; farm_sim) AppleWebKit/537.36 (KHTML, like "
              "Gecko) Chrome/120.0 Mobile Safari/537.36")
IOS_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Mobile/15E148")


class PortUnavailable(OSError):
    """A simulator cannot listen where it was asked to: ``str()`` says which port and why
    ("port 5137 is already in use")."""

    def __str__(self) -> str:
        return str(self.strerror)


def _why(exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return "already in use"
    if exc.errno == errno.EACCES:
        return "not allowed for this user"
    return (exc.strerror or str(exc)).lower()


class _Simulator:
    def __init__(self, count: int, apps: dict[str, str] | None = None,
                 chromium_path: str | None = None) -> None:
        self.count = count
        self.apps: dict[str, str] = dict(apps or {})     # package / bundle id → URL
        self.host = ScreenHost(chromium_path)
        self.screens: list[PhoneScreen] = []
        self._lock = threading.Lock()

    def app_urls(self) -> dict[str, str]:
        with self._lock:
            return dict(self.apps)

    def fault(self, index: int, name: str, count: int | float = 1) -> None:
        """Switch fault ``name`` on device ``index`` for ``count`` requests (-1 forever)."""
        self.screens[index].faults.set(name, count)

    def __enter__(self) -> Any:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def stop(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class AndroidSimulator(_Simulator):
    """N Android devices behind one adb server on 127.0.0.1:``port`` (0: any free port)."""

    def __init__(self, count: int, apps: dict[str, str] | None = None, port: int = 0,
                 chromium_path: str | None = None, yadb: bool = True) -> None:
        super().__init__(count, apps, chromium_path)
        self.port = port
        # yadb pushed to each phone (a run's android-sim); False: until `adb push yadb
        # /data/local/tmp/yadb`, its commands fail as on a phone as it comes (`farm sim`)
        self.yadb = yadb
        self.server: Any = None
        self._shells: list[Any] = []

    @property
    def serials(self) -> list[str]:
        return [f"emulator-{5554 + 2 * i}" for i in range(self.count)]

    def start(self) -> None:
        """Take the adb port, launch the shared Chromium and start answering (a port that
        cannot be had is a PortUnavailable, before Chromium starts)."""
        from farm.devices.sim.adb import AdbServer
        from farm.devices.sim.androidshell import AndroidShell

        w, h, dpr = ANDROID_SCREEN
        self.screens = [PhoneScreen(self.host, serial, round(w / dpr), round(h / dpr), dpr,
                                    ANDROID_UA) for serial in self.serials]
        shells = [AndroidShell(serial, screen, self.app_urls, w, h)
                  for serial, screen in zip(self.serials, self.screens)]
        self._shells = shells
        for shell in shells if self.yadb else ():
            shell.files[YADB] = b"yadb (simulated)"
        try:
            server = AdbServer(shells, self.port)
        except OSError as exc:
            raise PortUnavailable(exc.errno, f"port {self.port} is {_why(exc)}") from exc
        try:
            self.host.start()
        except BaseException:
            server.server_close()
            self.host.stop()
            raise
        self.server, self.port = server, server.port
        server.start()

    def kill_server(self) -> None:
        """The adb server dies (`adb kill-server`, or another adb of another version killing
        it): its connections close and nothing answers on its port. The phones stay as
        they are (their apps, files and fault switches)."""
        if self.server is not None:
            self.server.stop()
            self.server = None

    def start_server(self) -> None:
        """An adb server answers on the same port again (`adb start-server`) for the same
        phones, after `kill_server`."""
        from farm.devices.sim.adb import AdbServer
        if self.server is None:
            self.server = AdbServer(self._shells, self.port)
            self.server.start()

    def stop(self) -> None:
        """Stop serving and close Chromium; safe twice."""
        self.kill_server()
        self.host.stop()


class IosSimulator(_Simulator):
    """N iOS devices, each a WebDriverAgent HTTP endpoint on its own port from ``port`` on
    (0: free ports)."""

    def __init__(self, count: int, apps: dict[str, str] | None = None, port: int = 0,
                 chromium_path: str | None = None) -> None:
        super().__init__(count, apps, chromium_path)
        self.port = port
        self.servers: list[Any] = []

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{s.port}" for s in self.servers]

    def start(self) -> None:
        """Take one port per device (from ``port`` on), launch the shared Chromium and start
        every WDA endpoint (a port that cannot be had is a PortUnavailable, before Chromium
        starts)."""
        w, h, scale = IOS_SCREEN
        self.screens = [PhoneScreen(self.host, f"iPhone-sim-{i + 1}", w, h, scale, IOS_UA)
                        for i in range(self.count)]
        for screen in self.screens:      # a page's alert() stays until WDA answers it
            screen.dialogs = PageDialogs()
        self.servers = self._listen()
        try:
            self.host.start()
        except BaseException:
            for server in self.servers:
                server.server_close()
            self.servers = []
            self.host.stop()
            raise
        for server in self.servers:
            server.start()

    def _listen(self) -> list[Any]:
        """A bound (not yet serving) WdaServer per screen."""
        from farm.devices.sim.wda import WdaServer

        needed = (f"ports {self.port}..{self.port + self.count - 1} are needed (one "
                  "WebDriverAgent endpoint per device) and " if self.port and self.count > 1
                  else "")
        if self.port and self.port + self.count - 1 > 65535:
            raise PortUnavailable(errno.EINVAL, f"{needed}port 65535 is the last one")
        servers: list[Any] = []
        for i, screen in enumerate(self.screens):
            port = self.port + i if self.port else 0
            try:
                servers.append(WdaServer(screen, self.app_urls, port))
            except OSError as exc:
                for server in servers:
                    server.server_close()
                raise PortUnavailable(exc.errno, f"{needed}port {port} is {_why(exc)}") \
                    from exc
        return servers

    def stop(self) -> None:
        """Stop every endpoint and close Chromium; safe twice."""
        for server in self.servers:
            server.stop()
        self.servers = []
        self.host.stop()
