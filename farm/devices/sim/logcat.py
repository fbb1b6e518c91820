"""A simulated phone's log (``adb logcat``): what the system says when an app starts, is
stopped, or crashes on launch (the ``launch_fail`` fault), in logcat's threadtime format, so
"adb logcat shows why" (farm's message for an app that did not come to the front) is true on
the simulator too, and a suite's ``runAdbShell: logcat -d | grep "FATAL EXCEPTION"`` finds it.

    logcat -d             the buffer, then exit (a phone's plain ``logcat`` follows the log
                          for ever: here it prints the buffer and exits as with -d)
    logcat -c             clear it
    logcat -b crash -d    the crash buffer alone (AndroidRuntime's fatal exceptions)
    logcat -s TAG ... -d  the lines of those tags; -t N the last N lines
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass

Result = tuple[bytes, bytes, int]
MAX_LINES = 5000          # a phone's ring buffer keeps its newest lines


@dataclass(frozen=True)
class Entry:
    when: float
    pid: int
    level: str            # V D I W E F
    tag: str
    text: str
    buffer: str = "main"  # main, system, crash

    def line(self) -> str:
        stamp = time.strftime("%m-%d %H:%M:%S", time.localtime(self.when))
        ms = int(self.when * 1000) % 1000
        return f"{stamp}.{ms:03d} {self.pid:5d} {self.pid:5d} {self.level} {self.tag}: {self.text}"


class DeviceLog:
    """One device's log buffers; any thread may write or read."""

    SYSTEM_PID = 1402      # system_server

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._lock = threading.Lock()
        self._pids = itertools.count(4310, 17)
        self._running: dict[str, int] = {}      # package → the pid its last start got

    def write(self, level: str, tag: str, text: str, pid: int | None = None,
              buffer: str = "main") -> None:
        when = time.time()
        with self._lock:
            for part in text.splitlines() or [""]:
                self._entries.append(Entry(when, pid or self.SYSTEM_PID, level, tag, part,
                                           buffer))
            del self._entries[:-MAX_LINES]

    def started(self, package: str) -> int:
        """An app's process started for its launcher activity; its pid."""
        pid = self._running[package] = next(self._pids)
        self.write("I", "ActivityTaskManager", "START u0 {act=android.intent.action.MAIN "
                   f"cat=[android.intent.category.LAUNCHER] flg=0x10000000 cmp={package}/"
                   f".MainActivity}} from uid 2000", buffer="system")
        self.write("I", "ActivityManager", f"Start proc {pid}:{package}/u0a123 for "
                   f"next-top-activity {{{package}/{package}.MainActivity}}", buffer="system")
        return pid

    def pid_of(self, package: str) -> int:
        """The pid ``package``'s process got when it last started."""
        if package not in self._running:
            self._running[package] = next(self._pids)
        return self._running[package]

    def crashed(self, package: str, launch: bool = True) -> None:
        """An app that died in its launch (or, ``launch`` False, at an input while in front),
        as Android logs it."""
        pid = self.started(package) if launch else self.pid_of(package)
        cause = (f"java.lang.RuntimeException: Unable to start activity ComponentInfo"
                 f"{{{package}/{package}.MainActivity}}: java.lang.IllegalStateException: "
                 "crashed on launch (farm-sim fault launch_fail)\n"
                 "\tat android.app.ActivityThread.performLaunchActivity"
                 "(ActivityThread.java:3782)" if launch else
                 "java.lang.IllegalStateException: crashed at an input (farm-sim fault crash)\n"
                 "\tat android.view.View.performClick(View.java:7659)")
        self.write("E", "AndroidRuntime", f"FATAL EXCEPTION: main\nProcess: {package}, PID: "
                   f"{pid}\n{cause}", pid=pid, buffer="crash")
        self._running.pop(package, None)
        self.write("I", "ActivityManager", f"Process {package} (pid {pid}) has died: fg  TOP",
                   buffer="system")

    def force_stopped(self, package: str) -> None:
        self.write("I", "ActivityManager", f"Force stopping {package} appid=10123 user=0: "
                   "from pid 28311", buffer="system")
        self._running.pop(package, None)

    def command(self, args: list[str]) -> Result:
        """``logcat`` with ``args`` (see the module docstring)."""
        if "-c" in args:
            with self._lock:
                self._entries.clear()
            return b"", b"", 0
        buffers = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "-b"} or \
            {"main", "system", "crash"}
        tags = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "-s"}
        tags |= {a.split(":")[0] for a in args if ":" in a and not a.startswith("*")}
        last = next((int(args[i + 1]) for i, a in enumerate(args[:-1]) if a == "-t"), None)
        with self._lock:
            lines = [e.line() for e in self._entries
                     if ("all" in buffers or e.buffer in buffers) and (not tags or e.tag in tags)]
        if last is not None:
            lines = lines[-last:] if last else []
        return "".join(line + "\n" for line in lines).encode(), b"", 0
