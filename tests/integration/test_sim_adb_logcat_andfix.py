"""`adb logcat -d` (the adb client's own logcat command, which farm's crash messages point to)
works against `farm sim android`: the client sends `export ANDROID_LOG_TAGS=...; exec logcat
-d`, which the simulated shell refused ("/system/bin/sh: export: inaccessible or not found")."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.integration


@pytest.mark.skipif(shutil.which("adb") is None, reason="no adb client installed")
def test_adb_logcat_reads_the_simulated_phone_s_log():
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(sim.port)}

        def adb(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(["adb", "-s", sim.serials[0], *args], env=env,
                                  capture_output=True, text=True, timeout=60)

        assert adb("shell", "am force-stop com.qa.lab").returncode == 0
        done = adb("logcat", "-d")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Force stopping com.qa.lab" in done.stdout, done.stdout + done.stderr
        assert "not found" not in done.stdout + done.stderr
        crash = adb("logcat", "-b", "crash", "-d")
        assert crash.returncode == 0 and "Force stopping" not in crash.stdout, crash
        # the shell ends with exec's command: what follows it does not run
        said = adb("shell", "export A=1; exec echo in; echo after")
        assert said.stdout == "in\n", said
