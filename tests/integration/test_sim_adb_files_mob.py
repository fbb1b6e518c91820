"""`adb pull` from `farm sim android`, with Debian's adb client as a user types it: the
simulator answered its stat (STA2) with a mode of 0, and adb skipped every file as a "special
file" (exit 0, nothing written), so `adb shell uiautomator dump` then `adb pull
/sdcard/window_dump.xml` (how one looks at what farm reads) got nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from farm.devices.sim import AndroidSimulator

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def android():
    with AndroidSimulator(1) as sim:
        yield sim


def adb(sim: AndroidSimulator, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(sim.port)}
    return subprocess.run(["adb", "-s", sim.serials[0], *args], capture_output=True,
                          text=True, env=env, timeout=60)


def test_a_dump_is_pulled(android, tmp_path: Path):
    assert adb(android, "shell", "uiautomator", "dump").returncode == 0
    pulled = adb(android, "pull", "/sdcard/window_dump.xml", str(tmp_path / "dump.xml"))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "dump.xml").read_text().startswith("<?xml"), pulled.stderr


def test_a_pushed_file_comes_back_and_a_missing_one_is_said(android, tmp_path: Path):
    (tmp_path / "sent.txt").write_bytes(b"hello\n" * 1000)
    assert adb(android, "push", str(tmp_path / "sent.txt"), "/data/local/tmp/f.txt"
               ).returncode == 0
    pulled = adb(android, "pull", "/data/local/tmp/f.txt", str(tmp_path / "back.txt"))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "back.txt").read_bytes() == b"hello\n" * 1000
    missing = adb(android, "pull", "/data/local/tmp/nothing.txt", str(tmp_path / "x"))
    assert missing.returncode == 1
    assert "No such file or directory" in missing.stdout + missing.stderr
    assert not (tmp_path / "x").exists()


def test_a_screencap_to_a_file_is_saved_there_and_says_nothing(android, tmp_path: Path):
    """`screencap -p /sdcard/shot.png` (a suite's runAdbShell keeping a screenshot on the
    phone) printed the PNG's bytes, the step's output, and saved nothing."""
    said = adb(android, "shell", "screencap", "-p", "/sdcard/shot.png")
    assert (said.returncode, said.stdout, said.stderr) == (0, "", "")
    pulled = adb(android, "pull", "/sdcard/shot.png", str(tmp_path / "shot.png"))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "shot.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
