"""The simulated device shell answers what adbutils parses (no Chromium needed)."""

from __future__ import annotations

from farm.devices.sim.androidshell import AndroidShell
from farm.devices.sim.screen import Faults


class FakeScreen:
    dpr = 2.5
    app = None

    def __init__(self) -> None:
        import threading
        self.faults = Faults()
        self.lock = threading.Lock()
        self.taps: list[tuple[float, float]] = []
        self.launched: list[str] = []
        self.typed: list[str] = []

    def tap(self, x: float, y: float, hold_ms: int = 0) -> None:
        self.taps.append((x, y))

    def browse(self, browser: str, url: str) -> None:
        self.app = browser
        self.launched.append(url)

    def type(self, text: str) -> None:
        self.typed.append(text)

    def launch(self, app: str, url: str, resume: bool = False) -> None:
        self.app = app
        self.launched.append(url)

    def home(self) -> None:
        self.app = None

    def stop(self, app: str) -> None:
        if self.app == app:
            self.app = None


def make() -> tuple[AndroidShell, FakeScreen]:
    screen = FakeScreen()
    return AndroidShell("emulator-5554", screen, lambda: {"com.x": "http://a/"}, 1080,
                        2400), screen  # type: ignore[arg-type]


def test_chains_and_exit_codes():
    sh, _ = make()
    out, err, code = sh.run("wm size; nosuch && echo no; echo X4EXIT:$?")
    assert out == b"Physical size: 1080x2400\nX4EXIT:127\n" and b"not found" in err


def test_tap_is_scaled_to_css_pixels_and_blocked_input_reports_on_stderr():
    sh, screen = make()
    assert sh.run("input tap 250 500")[2] == 0
    assert screen.taps == [(100.0, 200.0)]
    screen.faults.set("input_blocked", 1)
    out, err, code = sh.run("input tap 1 1")
    assert code == 0 and b"SecurityException" in err and len(screen.taps) == 1


def test_monkey_launches_mapped_package_and_dumpsys_shows_focus():
    sh, screen = make()
    assert b"Events injected" in sh.run("monkey -p com.x -c android.intent.category.LAUNCHER 1")[0]
    assert screen.launched == ["http://a/"]
    assert b"mCurrentFocus=Window{5f2a1c u0 com.x/" in sh.run("dumpsys window windows")[0]
    assert sh.run("monkey -p com.missing 1")[2] == 252


def test_fault_control_command():
    sh, screen = make()
    assert sh.run("farm-sim fault idle 2")[2] == 0
    assert screen.faults.idle == 2
    assert sh.run("farm-sim fault bogus 1")[2] == 1


def test_exit_ends_the_line_with_its_status_as_a_phones_shell_does():
    sh, _ = make()
    assert sh.run("exit 3") == (b"", b"", 3)
    assert sh.run("echo a; exit 0; echo b") == (b"a\n", b"", 0)
    assert sh.run("false; exit")[2] == 1
    assert sh.run("pm path com.nope || exit 5")[2] == 5
    assert sh.run("pm path com.x || exit 5")[2] == 0
    out, err, code = sh.run("exit x; echo no")
    assert (out, code) == (b"", 2) and b"exit: x: bad number" in err
    # a shell of its own: its exit ends that one (how farm runs a line on an Android 6 phone)
    assert sh.run("sh -c 'echo in; exit 4'; echo X4EXIT:$?") == (b"in\nX4EXIT:4\n", b"", 0)


def test_a_status_in_single_quotes_is_text():
    """`$?` is the last status where the shell expands it, not in single quotes: a password
    holding "$?" typed through `input text 'pa$?ss'` arrived as "pa0ss" on the simulator."""
    sh, screen = make()
    assert sh.run("input text 'pa$?ss'")[2] == 0 and screen.typed == ["pa$?ss"]
    assert sh.run("false; echo $? \"$?\" '$?' \\$?")[0] == b"1 1 $? $?\n"


def test_an_intent_shows_its_data_as_android_prints_it():
    """`am start -d URL` says the intent's data as Uri.toSafeString does: a suite's
    runAdbShell output showed the URL's user:password@ and token in clear."""
    sh, screen = make()
    out, err, code = sh.run("am start -W -a android.intent.action.VIEW -d "
                            "'http://admin:hunter2@127.0.0.1:8000/in?token=abc123'")
    assert code == 0 and b"dat=http://127.0.0.1:8000/... " in out, out
    assert screen.launched == ["http://admin:hunter2@127.0.0.1:8000/in?token=abc123"]
    out, err, code = sh.run("am start -a android.intent.action.VIEW -d myapp://in?token=abc123")
    assert code == 1 and b"unable to resolve Intent" in err and b"abc123" not in err, err


def test_output_goes_where_a_redirection_sends_it():
    """`runAdbShell: echo 1 > /sdcard/flag` printed "1 > /sdcard/flag" and wrote nothing, and
    `pm clear … > /dev/null 2>&1` gave its output all the same: a ">" was a word."""
    sh, screen = make()
    assert sh.run("echo 1 > /sdcard/flag; echo 2 >>/sdcard/flag") == (b"", b"", 0)
    assert sh.run("cat /sdcard/flag") == (b"1\n2\n", b"", 0)
    assert sh.run("pm path com.x > /dev/null 2>&1") == (b"", b"", 0)
    assert sh.run("nosuch 2>/dev/null")[:2] == (b"", b"")
    assert sh.run("nosuch 2>&1 | grep -c found")[0] == b"1\n"
    assert sh.run("nosuch 2>&1 >/dev/null")[0].endswith(b"inaccessible or not found\n")
    assert sh.run("input text 'a>b'; echo \"q>r\"")[0] == b"q>r\n" and screen.typed == ["a>b"]
