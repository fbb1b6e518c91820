"""The shell of one simulated Android device: the commands farm's driver, adbutils and a
person with ``adb shell`` send, answered from a `PhoneScreen`.

Test-only control command (documented in README): ``farm-sim fault NAME COUNT`` switches a
fault for the next COUNT requests (-1 until switched off, 0 off); ``farm-sim faults`` lists them.
No fault applies to ``farm-sim`` itself (`AndroidShell.is_control`).
"""

from __future__ import annotations

import base64
import re
import shlex
import time
import uuid
from typing import Callable
from urllib.parse import urlsplit

from farm.devices.sim import expansion, keyboard, permission, pipes, toybox
from farm.devices.sim.logcat import DeviceLog
from farm.devices.sim.screen import Faults, PhoneScreen
from farm.devices.sim.trees import EMPTY_UIAUTOMATOR, uiautomator_xml

LAUNCHER = "com.android.launcher3"
BROWSER = "com.android.chrome"              # what a VIEW intent of a web page opens
IME = "com.android.adbkeyboard/.AdbIME"     # ADBKeyBoard: how non-ASCII text gets typed
GBOARD = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
KEYBOARDS = (IME, GBOARD)                   # installed; ADBKeyBoard is the one selected
BOOT_ID = "/proc/sys/kernel/random/boot_id"    # new at each start of the simulator
UPTIME = "/proc/uptime"                       # seconds since that start
LONG_PRESS_MS = 500     # ViewConfiguration's long-press timeout: `input draganddrop` holds it

# Android keycodes → Playwright keys (None: handled by the system, not the app).
KEYCODES: dict[int, str | None] = {
    3: None, 4: None, 26: None, 82: None, 224: None, 223: None,
    19: "ArrowUp", 20: "ArrowDown", 21: "ArrowLeft", 22: "ArrowRight", 61: "Tab",
    62: "Space", 66: "Enter", 67: "Backspace", 111: "Escape", 112: "Delete", 122: "Home",
    123: "End", 92: "PageUp", 93: "PageDown",
}
KEYNAMES = {"HOME": 3, "BACK": 4, "POWER": 26, "MENU": 82, "WAKEUP": 224, "SLEEP": 223,
            "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "TAB": 61,
            "SPACE": 62, "ENTER": 66, "DEL": 67, "ESCAPE": 111, "FORWARD_DEL": 112,
            "MOVE_HOME": 122, "MOVE_END": 123, "PAGE_UP": 92, "PAGE_DOWN": 93,
            # keys the simulated system takes and ignores, so a suite may press them
            "CALL": 5, "ENDCALL": 6, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "CAMERA": 27,
            "NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "MUTE": 91,
            "VOLUME_MUTE": 164, "APP_SWITCH": 187, "BRIGHTNESS_DOWN": 220,
            "BRIGHTNESS_UP": 221}
# the letter and digit keys (KEYCODE_A..Z: 29-54, KEYCODE_0..9: 7-16) type their character
KEYCODES.update({29 + i: chr(ord("a") + i) for i in range(26)})
KEYCODES.update({7 + i: str(i) for i in range(10)})
KEYNAMES.update({chr(ord("A") + i): 29 + i for i in range(26)})
KEYNAMES.update({str(i): 7 + i for i in range(10)})

Result = tuple[bytes, bytes, int]
Emit = Callable[[bytes, bytes], None]   # a command's (stdout, stderr) as it ends


def input_text(arg: str) -> str:
    """What `input text ARG` types: its one argument (more are ignored), each ``%s`` a space,
    any other ``%`` as it is (Android's InputShellCommand.sendText)."""
    out: list[str] = []
    escaped = False
    for ch in arg:
        if escaped and ch == "s":
            out[-1] = " "       # the % before it goes, the s becomes a space
        else:
            out.append(ch)
        escaped = ch == "%"
    return "".join(out)


def safe_uri(url: str) -> str:
    """``url`` as Android prints an intent's data (Uri.toSafeString): a web URL as its scheme,
    host and port and "/...", another as its scheme and its rest with every character but
    ``- @ .`` an x; never a user:password@, path or query (a token)."""
    scheme, sep, rest = url.partition(":")
    if not sep:
        return "".join(c if c in "-@." else "x" for c in url)
    if scheme.lower() in ("http", "https", "ftp", "rtsp"):
        try:
            parts = urlsplit(url)
            host, port = parts.hostname or "", parts.port
        except ValueError:
            host, port = "", None
        return f"{scheme}://{host}{f':{port}' if port else ''}/..."
    return scheme + ":" + "".join(c if c in "-@." else "x" for c in rest)


class AndroidShell:
    """Answers shell commands for one simulated device."""

    model = "farm_sim_phone"

    def __init__(self, serial: str, screen: PhoneScreen, apps: Callable[[], dict[str, str]],
                 width: int, height: int) -> None:
        self.serial, self.screen = serial, screen
        self.apps = apps                    # package → URL, read at launch time
        self.width, self.height = width, height
        self.files: dict[str, bytes] = {}
        self.mtime = int(time.time())
        # this boot of the phone (a simulator started again is a phone started again)
        self.boot_id, self.booted = str(uuid.uuid4()), time.monotonic()
        self.screen_on = True
        self.keyguard = False               # the lock screen shows (its screen went off)
        self.ime = IME
        self.rotation = 0                   # settings put system user_rotation N
        self.shell_v2 = True                # False: an Android 6 phone's adbd (see sim.adb)
        self.sdk = "34"                     # its API level (draganddrop from 30, motionevent 29)
        self.log = DeviceLog()
        # the soft keyboard is up while a text field has the focus, until Back or Escape
        # dismisses it; the next tap (on a field) brings it back
        self.keyboard_dismissed = False
        # the last tap of the command line being run: a tap at its spot right after it (in the
        # same line, back to back) is the second of a double tap
        self.last_tap: tuple[float, float] | None = None
        # the app whose runtime-permission dialog is up (fault `permission_dialog`): in front
        # of it while it is, until Allow or Don't allow is tapped (Back: Don't allow)
        self.asking: str | None = None

    @property
    def faults(self) -> Faults:
        return self.screen.faults

    @staticmethod
    def is_control(line: str) -> bool:
        """Whether ``line`` is the simulator's own ``farm-sim`` command (the fault switches):
        no fault applies to it, and it does not wait behind a slowed command (`run`)."""
        return line.split(maxsplit=1)[:1] == ["farm-sim"]

    def run(self, line: str) -> Result:
        """Run a command line: ``;``, ``&&`` and ``||`` chains, ``|`` into the filters of
        `pipes`, ``$?`` in echo, ``exit [N]`` (the shell ends there with N, else with the
        last command's status), ``sh -c LINE`` (LINE in a shell of its own: its ``exit``
        ends that one)."""
        return self.run_in_order(line)

    @staticmethod
    def endless(line: str) -> bytes | None:
        """What a line that never ends prints again and again: ``yes [WORD]`` (toybox's, alone
        on the line, in an older phone's ``sh -c`` or before adbutils' exit-status echo too),
        standing for any command that prints until stopped (a busy phone's plain ``logcat``,
        ``top``); None for any other line."""
        line = re.sub(r";\s*echo X4EXIT:\$\?\s*$", "", line)
        try:
            words = shlex.split(line)
            if words[:2] == ["sh", "-c"] and len(words) == 3:
                words = shlex.split(words[2])
        except ValueError:
            return None
        if words[:1] == ["yes"] and len(words) <= 2:
            return ((words[1] if len(words) == 2 else "y") + "\n").encode()
        return None

    def run_in_order(self, line: str, emit: Emit | None = None) -> Result:
        """`run`, each command's (stdout, stderr) going to ``emit`` as it ends, in the order
        the commands wrote them, as a phone's shell streams them (`echo a; sleep 5; echo b`
        shows its "a" at once)."""
        try:        # ($(...) runs now, before the line's commands: not in their order)
            line = expansion.expand(line, lambda body: self.run_in_order(body)[0])
            lexer = shlex.shlex(_mark_status(line), posix=True, punctuation_chars=";&|\n")
            lexer.whitespace_split = True       # words split on blanks and ; & | only
            lexer.whitespace = " \t\r"          # a line's end ends a command, as sh's does
            tokens = [_separator(t) for t in lexer]
        except ValueError as exc:
            said = f"/system/bin/sh: syntax error: {exc}\n".encode()
            if emit is not None:    # (streamed as any command's output: `adb shell` shows it)
                emit(b"", said)
            return b"", said, 2
        out, err, code = b"", b"", 0
        argv: list[str] = []
        op = ";"
        self.last_tap = None        # a tap right after one at the same spot: a double tap
        for tok in tokens + [";"]:
            if tok == "\n":      # as ";", where a command ends it (after && or ||: goes on)
                if not argv:
                    continue
                tok = ";"
            if tok == "&" and not (argv and argv[-1][-1:] in (pipes.REDIRECT, INPUT)):
                tok = ";"       # (in the background on a phone: here it runs, then the rest)
            if tok not in (";", "&&", "||"):
                argv.extend(expansion.glob(tok, list(self.files)))
                continue
            if argv and (op == ";" or (op == "&&") == (code == 0)):
                (o, e, code), ended = self._one(argv, code, emit)
                out, err = out + o, err + e
                if ended:       # `exit`: nothing after it runs
                    break
            argv, op = [], tok
        return out, err, code

    def _one(self, argv: list[str], last: int,
             emit: Emit | None = None) -> tuple[Result, bool]:
        """One command of a line (``last``: the status before it), its output (to ``emit``
        too), and whether it ended the shell (``exit``)."""
        argv = [a.replace(STATUS, str(last)) for a in argv]
        replaced = argv[0] == "exec"      # `exec CMD`: CMD in the shell's place (it ends with it)
        argv = argv[1:] if replaced else argv
        if not argv:
            return (b"", b"", 0), False
        if argv[:2] == ["sh", "-c"] and len(argv) > 2:     # a shell of its own
            return self.run_in_order(argv[2], emit), replaced
        if argv[0] == "exit":
            (o, e, code), ended = _exit(argv[1:], last)[0], True
        elif self.is_control(argv[0]) or argv[0] == "sleep":  # not behind a slowed screencap,
            (o, e, code), ended = self.pipeline(argv), False  # nor holding the screen
        else:
            with self.screen.lock:
                (o, e, code), ended = self.pipeline(argv), False
        if emit is not None and (o or e):
            emit(o, e)
        return (o, e, code), ended or replaced

    def pipeline(self, argv: list[str]) -> Result:
        """A command, its output through what follows each ``|`` (grep, head, tail, wc)."""
        first, *rest = pipes.stages(argv)
        first, missing = _inputs(first, self.files)
        if missing:
            return b"", f"/system/bin/sh: can't open {missing}: No such file or directory\n" \
                .encode(), 1
        first, sent = pipes.redirections(first)     # (its own: before the pipe)
        rest, later = pipes.redirections_of(rest)
        if not first and not sent:
            return b"", b"/system/bin/sh: syntax error: '|' unexpected\n", 2
        o, e, code = self.command(first) if first else (b"", b"", 0)   # `> FILE`: emptied
        o, e = pipes.route(o, e, sent, self.files)
        if rest:
            o, e, code = pipes.pipe_through((o, e, code), rest, self.command)
        return (*pipes.route(o, e, later, self.files), code)

    def command(self, argv: list[str]) -> Result:
        name, args = argv[0], argv[1:]
        handler = getattr(self, "_cmd_" + name.replace("-", "_"), None)
        if handler is None and name in toybox.COMMANDS:     # ls, date, id, ps, svc, cmd
            handler = lambda words: toybox.COMMANDS[name](self, words)   # noqa: E731
        if handler is None:
            return b"", f"/system/bin/sh: {name}: inaccessible or not found\n".encode(), 127
        try:
            return handler(args)
        except (IndexError, ValueError) as exc:
            return b"", f"{name}: bad arguments: {exc}\n".encode(), 1

    # -- plain shell ---------------------------------------------------------------------------
    def _cmd_export(self, args: list[str]) -> Result:
        """``export NAME=VALUE`` (what `adb logcat` sends before ``exec logcat``: its
        ANDROID_LOG_TAGS): taken, and nothing here reads it."""
        bad = next((a for a in args if not re.match(r"[A-Za-z_]\w*(=|$)", a)), None)
        if bad is not None:
            return b"", f"/system/bin/sh: export: {bad}: is not an identifier\n".encode(), 1
        return b"", b"", 0

    def _cmd_app_process(self, args: list[str]) -> Result:
        """yadb's gestures (`app_process -Djava.class.path=... com.ysbing.yadb.Main -pinch cx
        cy startDistance endDistance ms`, `-keyboard TEXT`) once yadb's jar is pushed where
        the class path says (`AndroidSimulator`'s ``yadb``: pushed from the start)."""
        path = next((a.split("=", 1)[1] for a in args if a.startswith("-Djava.class.path=")),
                    None)
        if path is not None and path not in self.files:
            return b"", (b"Error: Could not find or load main class com.ysbing.yadb.Main\n"
                         b"Caused by: java.lang.ClassNotFoundException: "
                         b"com.ysbing.yadb.Main\n"), 1
        if "com.ysbing.yadb.Main" in args and "-keyboard" in args:
            self.screen.type(" ".join(args[args.index("-keyboard") + 1:]))
            return b"", b"", 0
        if "com.ysbing.yadb.Main" not in args or "-pinch" not in args:
            return b"", b"Error: Could not find or load main class\n", 1
        cx, cy, start, end = (float(v) for v in args[args.index("-pinch") + 1:][:4])
        ms = int(args[args.index("-pinch") + 5]) if len(args) > args.index("-pinch") + 5 else 500
        d = self.screen.dpr      # the two fingers above and below (cx, cy), in CSS px
        self.screen.pinch([((cx / d, (cy - sign * start / 2) / d),
                            (cx / d, (cy - sign * end / 2) / d)) for sign in (1, -1)], ms)
        return b"", b"", 0

    def _cmd_echo(self, args: list[str]) -> Result:
        return (" ".join(args) + "\n").encode(), b"", 0

    def _cmd_true(self, args: list[str]) -> Result:
        return b"", b"", 0

    def _cmd_false(self, args: list[str]) -> Result:
        return b"", b"", 1

    def _cmd_sleep(self, args: list[str]) -> Result:
        """``sleep SECONDS`` (a suite's runAdbShell waiting on the phone)."""
        try:
            seconds = float(args[0])
        except (IndexError, ValueError):
            return b"", b"usage: sleep SECONDS\n", 1
        time.sleep(max(seconds, 0.0))
        return b"", b"", 0

    def _cmd_touch(self, args: list[str]) -> Result:
        for a in args:
            if not a.startswith("-"):
                self.files.setdefault(a, b"")
        return b"", b"", 0

    def _cmd_rm(self, args: list[str]) -> Result:
        """``rm [-f] FILE...``: a file that is not there is an error unless ``-f``, as
        toybox's rm says it (it passed, and a step's ``rm x && …`` went on where a phone's
        stops)."""
        force = any(a.startswith("-") and "f" in a for a in args)
        err = b""
        for a in args:
            if not a.startswith("-") and self.files.pop(a, None) is None and not force:
                err += f"rm: {a}: No such file or directory\n".encode()
        return b"", err, 1 if err else 0

    def _cmd_cat(self, args: list[str]) -> Result:
        """Each file in turn, and the kernel's boot id and uptime (`BOOT_ID`, `UPTIME`)."""
        out, err = b"", b""
        for name in [args[0], *args[1:]]:
            data = self._proc_file(name) or self.files.get(name)
            if data is None:
                err += f"cat: {name}: No such file or directory\n".encode()
            out += data or b""
        return out, err, 1 if err else 0

    def _proc_file(self, name: str) -> bytes | None:
        if name == BOOT_ID:
            return f"{self.boot_id}\n".encode()
        if name == UPTIME:
            up = time.monotonic() - self.booted
            return f"{up:.2f} {up * 3:.2f}\n".encode()
        return None

    def _cmd_pidof(self, args: list[str]) -> Result:
        pids = [str(self.log.pid_of(a)) for a in args if self.screen.running(a)]
        return ((" ".join(pids) + "\n").encode(), b"", 0) if pids else (b"", b"", 1)

    def _cmd_logcat(self, args: list[str]) -> Result:
        return self.log.command(args)

    def _cmd_getprop(self, args: list[str]) -> Result:
        props = {"ro.product.model": self.model, "ro.build.version.sdk": self.sdk,
                 "ro.build.version.release": "14", "ro.serialno": self.serial,
                 "ro.product.manufacturer": "farm", "sys.boot_completed": "1"}
        if args:
            return (props.get(args[0], "") + "\n").encode(), b"", 0
        return "".join(f"[{k}]: [{v}]\n" for k, v in props.items()).encode(), b"", 0

    def _cmd_settings(self, args: list[str]) -> Result:
        if args[1:3] == ["system", "user_rotation"]:
            return self._user_rotation(args)
        if args[:3] == ["get", "secure", "default_input_method"]:
            return (self.ime + "\n").encode(), b"", 0
        if args[:3] == ["put", "secure", "default_input_method"] and len(args) == 4:
            self.ime = args[3]
            return b"", b"", 0
        return b"null\n", b"", 0

    def _user_rotation(self, args: list[str]) -> Result:
        """``settings get|put system user_rotation [0-3]``: the screen turns (1 and 3
        landscape), as a phone whose auto-rotate is off does: screencap, the dump (its
        ``rotation``) and input's coordinates follow; ``wm size`` stays the natural size."""
        if args[0] == "get":
            return f"{self.rotation}\n".encode(), b"", 0
        if args[0] != "put" or len(args) != 4 or args[3] not in ("0", "1", "2", "3"):
            return b"", b"usage: settings put system user_rotation 0|1|2|3\n", 255
        self.rotation = int(args[3])
        self.screen.turn(self.rotation % 2 == 1)
        return b"", b"", 0

    def frame(self) -> tuple[int, int]:
        """The screen's physical (width, height) as it is turned now."""
        return (self.height, self.width) if self.rotation % 2 else (self.width, self.height)

    def _cmd_ime(self, args: list[str]) -> Result:
        """`ime set ID` switches the keyboard (a phone without ADBKeyBoard: `ime set
        com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME`); `ime
        list -s` lists the ones installed."""
        if args[:1] == ["set"] and len(args) == 2:
            if args[1] not in KEYBOARDS:
                return (f"Unknown input method {args[1]} cannot be selected for user #0\n"
                        .encode()), b"", 0
            self.ime = args[1]
            return f"Input method {args[1]} selected for user #0\n".encode(), b"", 0
        if args[:1] == ["list"]:
            return "".join(k + "\n" for k in KEYBOARDS).encode(), b"", 0
        return (self.ime + "\n").encode(), b"", 0

    # -- screen --------------------------------------------------------------------------------
    def _cmd_wm(self, args: list[str]) -> Result:
        if args[0] == "dismiss-keyguard" and not self.shell_v2:     # Android 6: not yet
            return b"", b"Error: unknown command 'dismiss-keyguard'\n", 0
        if args[0] == "dismiss-keyguard":       # (a swipe lock: no PIN to ask for)
            self.keyguard = self.keyguard and not self.screen_on
            return b"", b"", 0
        if args[0] == "size":
            return f"Physical size: {self.width}x{self.height}\n".encode(), b"", 0
        if args[0] == "density":
            return f"Physical density: {round(160 * self.screen.dpr)}\n".encode(), b"", 0
        return b"", b"", 0

    def _cmd_screencap(self, args: list[str]) -> Result:
        """``screencap -p``: the screen as PNG on stdout; ``screencap [-p] FILE.png`` saves it
        there and says nothing, as a phone's does (a suite's runAdbShell got the PNG's bytes
        as its output)."""
        path = next((a for i, a in enumerate(args)
                     if not a.startswith("-") and (i == 0 or args[i - 1] != "-d")), None)
        if "-p" not in args and not (path or "").endswith(".png"):
            return b"", b"screencap: only PNG (-p, or a FILE.png) is simulated\n", 1
        if self.faults.hit("slow"):
            time.sleep(self.faults.slow_seconds)
        if self.faults.hit("black") or not self.screen_on:
            png = _black_png(*self.frame())
        elif self.dialog_up():
            png = permission.draw(self.screen.screenshot(), self.screen.app or "")
        else:
            png = self.screen.screenshot()
            if self.keyboard_up():
                png = keyboard.draw(png, 1)
        if path is None:
            return png, b"", 0
        self.files[path] = png
        self.mtime = int(time.time())
        return b"", b"", 0

    def _cmd_uiautomator(self, args: list[str]) -> Result:
        if args[:1] != ["dump"]:
            return b"", b"Usage: uiautomator dump [--compressed] [file]\n", 1
        path = next((a for a in args[1:] if not a.startswith("-")),
                    "/sdcard/window_dump.xml")
        # (uiautomator says what went wrong on stderr and exits 0, as AOSP's DumpCommand
        # does: `uiautomator dump F && echo success` prints "success" after it too)
        if self.faults.hit("idle"):
            return b"", b"ERROR: could not get idle state.\n", 0
        if self.faults.hit("null_root"):        # (a window with no accessibility root yet)
            self.files.pop(path, None)
            return b"", b"ERROR: null root node returned by UiTestAutomationBridge.\n", 0
        if self.faults.hit("empty_tree") or not self.screen_on or self.keyguard:
            xml = EMPTY_UIAUTOMATOR.replace('rotation="0"', f'rotation="{self.rotation}"')
        elif self.dialog_up():
            xml = permission.dump(self.screen.app or "", *self.frame(), self.rotation)
        else:
            package = self.screen.app or LAUNCHER
            xml = uiautomator_xml(self.screen.dom(), package, *self.frame(), self.screen.dpr,
                                  self.rotation)
        self.files[path] = xml.encode("utf-8")
        self.mtime = int(time.time())
        return f"UI hierchary dumped to: {path}\n".encode(), b"", 0

    def _cmd_dumpsys(self, args: list[str]) -> Result:
        what = args[0] if args else ""
        if args[:2] == ["window", "InputMethod"]:
            return keyboard.ime_window(*self.frame(), self.keyboard_up()).encode(), b"", 0
        if what == "window" and self.keyguard:    # the lock screen: systemui's, no activity
            return (b"  mCurrentFocus=Window{3c8e u0 NotificationShade}\n"
                    b"  mShowingLockscreen=true mShowingDream=false\n"), b"", 0
        if what == "window":
            app = self.screen.app
            focus = f"{app}/{app}.MainActivity" if app else f"{LAUNCHER}/.Launcher"
            if self.dialog_up():
                focus = f"{permission.PACKAGE}/{permission.ACTIVITY}"
            return (f"  mCurrentFocus=Window{{5f2a1c u0 {focus}}}\n"
                    f"  mFocusedApp=ActivityRecord{{9b3e u0 {focus} t12}}\n").encode(), b"", 0
        if what == "power":
            on = str(self.screen_on).lower()
            return (f"  mWakefulness={'Awake' if self.screen_on else 'Asleep'}\n"
                    f"  mHoldingDisplaySuspendBlocker={on}\n"
                    f"  Display Power: state={'ON' if self.screen_on else 'OFF'}\n"
                    ).encode(), b"", 0
        if what == "activity" and args[1:2] in ([], ["activities"], ["top"]):
            app = self.screen.app
            top = f"{app}/{app}.MainActivity" if app else f"{LAUNCHER}/.Launcher"
            return (f"    mResumedActivity: ActivityRecord{{7c1d u0 {top} t12}}\n"
                    f"  ResumedActivity: ActivityRecord{{7c1d u0 {top} t12}}\n"
                    ).encode(), b"", 0
        if what == "input_method":
            shown = str(self.keyboard_up()).lower()
            return (f"  mCurMethodId={self.ime}\n  mInputShown={shown}\n"
                    f"  mShowRequested={shown}\n").encode(), b"", 0
        if what == "display":
            w, h = self.frame()     # (as turned: adbutils' rotation() reads it here)
            return (f"  mDefaultViewport=DisplayViewport{{valid=true, orientation="
                    f"{self.rotation}, deviceWidth={w}, deviceHeight={h}}}\n").encode(), b"", 0
        if what == "input":
            return f"    SurfaceOrientation: {self.rotation}\n".encode(), b"", 0
        return toybox.dumpsys(what)

    # -- input ---------------------------------------------------------------------------------
    def _cmd_input(self, args: list[str]) -> Result:
        if args and args[0] in ("touchscreen", "keyboard", "dpad"):
            args = args[1:]
        verb, rest = args[0], args[1:]
        if self.faults.hit("input_blocked"):
            return b"", (b"java.lang.SecurityException: Injecting input events requires the "
                         b"caller (or the source of the instrumentation, if any) to have the "
                         b"INJECT_EVENTS permission.\n"), 0
        if self.dialog_up() and not (verb == "keyevent" and _keycodes(rest) & {3, 26, 223}):
            return self._answer_dialog(verb, rest)      # (Home and Power reach the system)
        app = self.screen.app
        if app is not None and app != BROWSER and self.faults.hit("crash"):
            self.screen.stop(app)         # the input reached the app, which died of it
            self.log.crashed(app, launch=False)
            return b"", b"", 0
        if self._on_keyboard(verb, rest):
            return b"", b"", 0
        d = self.screen.dpr
        if verb == "tap":
            self.keyboard_dismissed = False       # a tap on a field brings the keyboard up
        if verb == "tap":
            point = (float(rest[0]) / d, float(rest[1]) / d)
            again = self.last_tap is not None and abs(point[0] - self.last_tap[0]) < 8 and \
                abs(point[1] - self.last_tap[1]) < 8
            if again:
                self.screen.tap(*point, count=2)
            else:
                self.screen.tap(*point)
            self.last_tap = None if again else point
        elif verb in ("swipe", "draganddrop"):
            return self._gesture(verb, rest)
        elif verb == "motionevent":
            return self._motion_event(rest)
        elif verb == "text":
            text = input_text(rest[0])
            if not text.isascii():   # what real `input text` does with non-ASCII
                return b"", (b"Exception occurred while executing 'text':\n"
                             b"java.lang.NullPointerException: Attempt to get length of null "
                             b"array\n"), 255
            self.screen.type(text)
        elif verb == "keyevent":
            for key in rest:
                if key.startswith("--"):
                    continue
                err = self._key(key)
                if err:
                    return b"", err.encode(), 255
        else:
            return b"", f"Error: Unknown command: {verb}\n".encode(), 1
        return b"", b"", 0

    def _gesture(self, verb: str, rest: list[str]) -> Result:
        """`input swipe` (the finger moves at once: the page scrolls; a swipe that stays is
        a long press) or `input draganddrop` (Android 11+: down, a long press, a move, up)."""
        d = self.screen.dpr
        x1, y1, x2, y2 = (float(v) / d for v in rest[:4])
        ms = int(rest[4]) if len(rest) > 4 else 300
        if verb == "draganddrop":
            if int(self.sdk) < 30:
                return b"", b"Error: Unknown command: draganddrop\n", 1
            self.screen.drag((x1, y1), (x2, y2), LONG_PRESS_MS, ms)
        elif abs(x1 - x2) < 1 and abs(y1 - y2) < 1:
            self.screen.tap(x1, y1, hold_ms=max(ms, 1))   # how adb does a long press
        else:
            if self.keyboard_up():
                _, top, _, bottom = keyboard.box(*self.frame())
                self.screen.make_room((bottom - top) / d)
            self.screen.swipe(x1, y1, x2, y2, ms)
        return b"", b"", 0

    def _motion_event(self, rest: list[str]) -> Result:
        """`input motionevent DOWN|MOVE|UP|CANCEL x y` (Android 10+): one event of a finger
        that stays down between commands; older phones have no such command."""
        if int(self.sdk) < 29:
            return b"", b"Error: Unknown command: motionevent\n", 1
        if len(rest) < 3 or rest[0].upper() not in ("DOWN", "MOVE", "UP", "CANCEL"):
            return b"", b"Error: Invalid arguments for command: motionevent\n", 1
        d = self.screen.dpr
        self.screen.touch(rest[0].lower(), float(rest[1]) / d, float(rest[2]) / d)
        return b"", b"", 0

    def _on_keyboard(self, verb: str, rest: list[str]) -> bool:
        """Whether a touch begins on the soft keyboard while it shows: the keyboard takes it,
        not the app under it (a tap on a letter types it, as a finger would)."""
        if verb not in ("tap", "swipe", "draganddrop") or len(rest) < 2:
            return False
        x, y = float(rest[0]), float(rest[1])
        if not keyboard.covers(x, y, *self.frame()) or not self.keyboard_up():
            return False
        label = keyboard.key_at(x, y, *self.frame()) if verb == "tap" else None
        if label == keyboard.RETURN:
            self.screen.key("Enter")
        elif label:
            self.screen.type(" " if label == keyboard.SPACE else label)
        return True

    def _key(self, key: str) -> str:
        # as KeyEvent.keyCodeFromString: a number is the keycode, KEYCODE_1 the 1 key (8)
        upper = key.upper()
        code = int(upper) if upper.isdigit() else KEYNAMES.get(upper.removeprefix("KEYCODE_"))
        if code is None:     # what Android 11+'s input says (exit 255, see _cmd_input)
            return (f"Exception occurred while executing 'keyevent':\n"
                    f"java.lang.IllegalArgumentException: Unknown keycode: {key}\n")
        if code in (4, 111) and self.keyboard_up():
            self.keyboard_dismissed = True    # the keyboard takes Back (and Escape): it hides
        elif code == 3:
            self.screen.home()
        elif code == 4:
            self.screen.back()
        elif code in (26, 223):
            self.screen_on = code == 26 and not self.screen_on
            self.keyguard = self.keyguard or not self.screen_on    # off: it locks
        elif code == 224:
            self.screen_on = True
        elif code == 82 and self.keyguard and self.screen_on:
            self.keyguard = False             # Menu on a swipe lock screen unlocks it
        elif KEYCODES.get(code):
            self.screen.key(KEYCODES[code])
        return ""

    def dialog_up(self) -> bool:
        """Whether the permission dialog an app asked for is in front of it now."""
        return self.asking is not None and self.asking == self.screen.app and \
            self.screen_on and not self.keyguard

    def _answer_dialog(self, verb: str, rest: list[str]) -> Result:
        """Input while the permission dialog is up reaches it, not the app: a tap on one of
        its buttons (or Back) closes it; anything else does nothing."""
        if verb == "tap" and permission.button_at(float(rest[0]), float(rest[1]),
                                                  *self.frame()):
            self.asking = None
        elif verb == "keyevent" and 4 in _keycodes(rest):
            self.asking = None
        return b"", b"", 0

    def keyboard_up(self) -> bool:
        """Whether the soft keyboard shows: a text field has the focus and it was not
        dismissed since (Back with it up hides it and goes nowhere, as on a phone)."""
        return not self.keyboard_dismissed and self.screen_on and self.screen.editing()

    # -- activities and packages -----------------------------------------------------------------
    def _launch(self, package: str) -> Result:
        url = self.apps().get(package)
        if url is None:
            return (b"** No activities found to run, monkey aborted.\n", b"", 252)
        if self.faults.hit("launch_fail"):
            self.screen.stop(package)     # it started and crashed at once
            self.screen.home()
            self.log.crashed(package)
            return b"Events injected: 1\n", b"", 0
        self.log.started(package)
        self.keyboard_dismissed = False
        self.screen_on = True
        self.screen.launch(package, url, resume=True)    # a task in the background resumes
        if self.faults.hit("permission_dialog"):
            self.asking = package
        return b"Events injected: 1\n", b"", 0

    def _cmd_monkey(self, args: list[str]) -> Result:
        package = args[args.index("-p") + 1]
        return self._launch(package)

    def _cmd_am(self, args: list[str]) -> Result:
        verb = args[0]
        if verb == "start":
            if "-n" in args:
                component = args[args.index("-n") + 1]
                out, err, code = self._launch(component.split("/")[0])
                if code:
                    return b"", (f"Error: Activity class {{{component}}} does not "
                                 "exist.\n").encode(), 1
                return f"Starting: Intent {{ cmp={component} }}\n".encode(), b"", 0
            if "-d" in args:
                return self._view(args[args.index("-d") + 1])
            return b"", b"Error: no intent given\n", 1
        if verb == "force-stop":
            self.asking = None if self.asking == args[1] else self.asking
            self.screen.stop(args[1])
            self.log.force_stopped(args[1])
            return b"", b"", 0
        if verb == "broadcast" and "-a" in args:
            action = args[args.index("-a") + 1]
            msg = args[args.index("--es") + 2] if "--es" in args else ""
            # ADBKeyBoard's receiver lives in its keyboard: selected or nobody gets it
            if action == "ADB_INPUT_B64" and self.ime == IME:
                self.screen.type(base64.b64decode(msg).decode("utf-8"))
            elif action == "ADB_INPUT_TEXT" and self.ime == IME:
                self.screen.type(msg)
            return b"Broadcasting: Intent { act=" + action.encode() + b" }\n" \
                   b"Broadcast completed: result=0\n", b"", 0
        return b"", f"Error: unknown am command {verb}\n".encode(), 1

    def _view(self, url: str) -> Result:
        """``am start -a android.intent.action.VIEW -d URL``: a web page opens in the browser
        (its error page when the site does not answer); a URL of any other scheme has no app
        here to open it."""
        intent = (f"Intent {{ act=android.intent.action.VIEW dat={safe_uri(url)} "
                  "flg=0x10000000 }")
        if url.split("://")[0].lower() not in ("http", "https"):
            return b"", f"Error: Activity not started, unable to resolve {intent}\n".encode(), 1
        self.screen_on = True
        self.screen.browse(BROWSER, url)
        return f"Starting: {intent}\nStatus: ok\nComplete\n".encode(), b"", 0

    def _cmd_pm(self, args: list[str]) -> Result:
        if args[0] == "clear":
            if args[1] not in self.apps():
                return b"Failed\n", b"", 1
            self.screen.clear_data()
            return b"Success\n", b"", 0
        if args[:2] == ["list", "packages"]:
            return toybox.packages(self, args[2:])
        if args[0] in ("grant", "revoke") and len(args) == 3:
            if args[1] not in self.apps():
                return b"", (f"Exception occurred while executing '{args[0]}':\n"
                             f"java.lang.IllegalArgumentException: Unknown package: {args[1]}\n"
                             ).encode(), 255
            return b"", b"", 0
        if args[0] == "path":
            if args[1] not in self.apps():
                return b"", b"", 1
            return f"package:/data/app/{args[1]}/base.apk\n".encode(), b"", 0
        return b"", f"Unknown pm command {args[0]}\n".encode(), 1

    # -- test control ----------------------------------------------------------------------------
    def _cmd_farm_sim(self, args: list[str]) -> Result:
        if args[:1] == ["fault"] and len(args) == 3:
            try:
                self.faults.set(args[1], float(args[2]) if args[1] == "slow_seconds"
                                else int(args[2]))
            except KeyError as exc:
                return b"", (str(exc.args[0]) + "\n").encode(), 1
            return b"ok\n", b"", 0
        if args[:1] == ["faults"]:
            return (repr(self.faults.active()) + "\n").encode(), b"", 0
        return b"", b"usage: farm-sim fault NAME COUNT | farm-sim faults\n", 1


def _keycodes(keys: list[str]) -> set[int]:
    """The keycodes `input keyevent` arguments name (a number or KEYCODE_NAME / NAME)."""
    codes = (int(k) if k.isdigit() else KEYNAMES.get(k.upper().removeprefix("KEYCODE_"))
             for k in keys)
    return {c for c in codes if c is not None}


def _separator(token: str) -> str:
    """A lexed token with the line ends in a run of separators (";\\n", "&&\\n") dropped;
    "\\n" for line ends alone."""
    if "\n" not in token or token.strip(";&|\n"):
        return token
    return token.replace("\n", "") or "\n"


def _inputs(argv: list[str], files: dict[str, bytes]) -> tuple[list[str], str]:
    """A command's words without its ``< FILE`` / ``<&N`` (marked INPUT), and the first file
    it reads that the phone does not have ("": none; else the command does not run)."""
    words: list[str] = []
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if INPUT not in word:
            words.append(word)
            continue
        target = word.split(INPUT, 1)[1] or (rest.pop(0) if rest else "")
        if target == "&":                       # <&-: the lexer split it at "&"
            target += rest.pop(0) if rest else ""
        if not target.startswith("&") and target not in files and target != "/dev/null":
            return [], target
    return words, ""


INPUT = "\x04"      # an unquoted "<" of a line (its input, from a file)
STATUS = "\0"       # where a line's `$?` stood (a line cannot hold a NUL: adb ends it with one)


def _mark_status(line: str) -> str:
    """``line`` with each ``$?`` the shell expands (not in single quotes, not escaped) as
    STATUS, and each ">" it takes for a redirection (not quoted) as `pipes.REDIRECT`, a word
    of its own with the fd before it: `$?` or ">" in a typed text (`input text 'pa$?s>'`) is
    the text as written."""
    out: list[str] = []
    quote, i = "", 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quote != "'":
            out.append(line[i:i + 2])
            i += 2
            continue
        if ch in "'\"" and quote in ("", ch):
            quote = "" if quote else ch
        elif line.startswith("$?", i) and quote != "'":
            out.append(STATUS)
            i += 2
            continue
        elif ch == "<" and not quote:
            fd = out.pop() if out and out[-1].isdigit() and \
                (len(out) < 2 or out[-2] in " \t;&|") else ""
            out.append(" " + fd + INPUT)
            i += 1
            continue
        elif ch == ">" and not quote:
            if out and out[-1].endswith(pipes.REDIRECT):     # ">>"
                out.append(pipes.REDIRECT)
                i += 1
                continue
            fd = out.pop() if out and out[-1].isdigit() and \
                (len(out) < 2 or out[-2] in " \t;&|") else ""
            out.append(" " + fd + pipes.REDIRECT)
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _exit(args: list[str], last: int) -> tuple[Result, bytes]:
    """What ``exit [N]`` says and ends the shell with: N (0-255) or, without one, ``last``,
    the status before it; a word that is no number is refused, as mksh does, with 2."""
    if args and not args[0].isdigit():
        said = f"/system/bin/sh: exit: {args[0]}: bad number\n".encode()
        return (b"", said, 2), said
    return (b"", b"", int(args[0]) & 0xFF if args else last), b""


def _black_png(width: int, height: int) -> bytes:
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (0, 0, 0)).save(buf, "PNG")
    return buf.getvalue()
