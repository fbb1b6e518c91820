"""What a suite's runAdbShell asks a phone and the simulated one answered with an empty
success (``dumpsys battery | head -3``: '' exit 0, Midscene's own example; any dumpsys
service) or not at all (``ls``, ``date``, ``id``, ``ps``, ``svc``, ``cmd``: "inaccessible or
not found"), and ``pm list packages | grep chrome`` found nothing though a URL opens in
com.android.chrome. Each is answered as an Android 14 phone answers it."""

from __future__ import annotations

import re

import pytest

from farm.devices.sim.androidshell import AndroidShell
from tests.unit.test_android_shell import FakeScreen

APP = "com.qa.lab"


class Screen(FakeScreen):
    def running(self, app: str) -> bool:
        return self.app == app


@pytest.fixture
def sh():
    return AndroidShell("emulator-5554", Screen(), lambda: {APP: "http://127.0.0.1:9/"},
                        1080, 2400)


def text(result) -> tuple[str, str, int]:
    out, err, code = result
    return out.decode(), err.decode(), code


def test_dumpsys_battery_reads_as_a_phone_s(sh):
    assert text(sh.run("dumpsys battery | head -3")) == (
        "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n", "", 0)
    assert text(sh.run("dumpsys battery | grep level")) == ("  level: 100\n", "", 0)


def test_a_service_the_phone_does_not_have_is_said_on_stderr_as_dumpsys_says_it(sh):
    """dumpsys's own status for it is 0 (it says so on stderr); `cmd`'s is 20."""
    assert text(sh.run("dumpsys batery")) == ("", "Can't find service: batery\n", 0)
    assert text(sh.run("cmd batery")) == ("", "cmd: Can't find service: batery\n", 20)
    assert "  battery\n" in text(sh.run("dumpsys -l"))[0]


def test_the_browser_a_url_opens_in_is_an_installed_package(sh):
    assert text(sh.run("pm list packages | grep chrome")) == (
        "package:com.android.chrome\n", "", 0)
    assert text(sh.run("pm list packages -3")) == (f"package:{APP}\n", "", 0)
    assert text(sh.run("cmd package list packages lab")) == (f"package:{APP}\n", "", 0)
    sh.run("am start -a android.intent.action.VIEW -d https://example.com/")
    assert sh.screen.app == "com.android.chrome"


def test_everyday_tools_answer(sh):
    assert "sdcard\n" in text(sh.run("ls"))[0]
    assert text(sh.run("ls /nowhere")) == ("", "ls: /nowhere: No such file or directory\n", 1)
    sh.run("touch /sdcard/window_dump.xml")
    assert "window_dump.xml\n" in text(sh.run("ls /sdcard"))[0]
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}\n",
                        text(sh.run("date"))[0])
    assert text(sh.run("date +%s"))[0].strip().isdigit()
    assert text(sh.run("id"))[0].startswith("uid=2000(shell) gid=2000(shell) ")
    assert text(sh.run("id -u")) == ("2000\n", "", 0)
    out, _, code = text(sh.run("ps -A | grep system_server"))
    assert code == 0 and out.split()[-1] == "system_server"
    sh.run(f"monkey -p {APP} -c android.intent.category.LAUNCHER 1")
    assert text(sh.run(f"ps -A | grep -c {APP}"))[0] == "1\n"
    assert text(sh.run(f"pidof {APP}"))[0].strip() == text(sh.run(f"ps {APP}"))[0].split()[-8]
    assert text(sh.run("svc wifi disable")) == ("", "", 0)
    assert text(sh.run("nosuchtool"))[2] == 127         # what a phone has not: as before
