"""The simulated phone's ``rm`` fails on a file that is not there, as a phone's (toybox) does,
unless ``-f``: it passed, so a suite's ``runAdbShell: rm /sdcard/x && …`` went on on the
simulator where a phone stops, and a step checking it passed only there."""

from __future__ import annotations

import threading

from farm.devices.sim.androidshell import AndroidShell
from farm.devices.sim.screen import Faults


class _Screen:
    dpr, app = 1.0, None

    def __init__(self) -> None:
        self.faults, self.lock = Faults(), threading.Lock()


def shell() -> AndroidShell:
    return AndroidShell("emulator-5554", _Screen(), dict, 1080, 2400)  # type: ignore[arg-type]


def test_rm_of_a_file_that_is_not_there_fails_unless_forced():
    sh = shell()
    sh.run("touch /data/local/tmp/a")
    assert sh.run("rm /data/local/tmp/a") == (b"", b"", 0)
    out, err, code = sh.run("rm /data/local/tmp/a")
    assert (err, code) == (b"rm: /data/local/tmp/a: No such file or directory\n", 1)
    assert sh.run("rm /data/local/tmp/a && echo went-on")[0] == b""
    assert sh.run("rm -f /data/local/tmp/a") == (b"", b"", 0)
    assert sh.run("rm -rf /data/local/tmp/a && echo went-on")[0] == b"went-on\n"
