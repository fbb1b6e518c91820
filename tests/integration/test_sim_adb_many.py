"""The Android simulator serving two phones answers a command with no serial as adb's own
server does ("more than one device/emulator"), not as if it served none: a user trying
`adb shell` beside `farm sim` was told no phone was there."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from farm.devices.sim import AndroidSimulator

pytestmark = pytest.mark.integration


@pytest.mark.skipif(shutil.which("adb") is None, reason="no adb client (apt-get install adb)")
def test_adb_without_a_serial_beside_two_phones_says_there_are_several():
    with AndroidSimulator(2, {}) as sim:
        def adb(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(["adb", "-P", str(sim.port), *args], capture_output=True,
                                  text=True, timeout=60)
        several = adb("shell", "echo", "hi")
        assert several.returncode != 0
        assert "more than one device/emulator" in several.stderr, several.stderr
        one = adb("-s", sim.serials[1], "shell", "echo", "hi")
        assert (one.returncode, one.stdout.strip()) == (0, "hi"), one.stderr
