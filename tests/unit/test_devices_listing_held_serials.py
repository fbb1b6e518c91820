"""`farm devices` listed all three phones of the adb server while another farm run held two of
them, so the user asked for android:3 and got exit 4. The listing now marks each phone another
run holds, with that run's pid, and says how many are free.

Another run's hold is played by a descriptor of the phone's lock file this test flocks."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

import farm.devices.android as android
import farm.devices.procs as procs
import farm.devices.specs as specs
from farm.devices.android import adb_phone_key
from farm.devices.procs import claim_path
from tests.support.farm_cli import run_main as farm

SERIALS = ["emulator-5554", "emulator-5556", "emulator-5558"]


class _Phone:
    def shell(self, command: str, timeout: float = 0) -> str:
        return "Google\nPixel 7\n14\n34\n"          # (ABOUT_COMMAND's four getprops)


class _Adb:
    host, port = "127.0.0.1", 5037

    def device(self, serial: str):
        return _Phone()


@pytest.fixture
def three_phones(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(procs, "claims_dir", lambda: tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_IOS_WDA_URLS", "ANDROID_SERIAL", "FARM_ANDROID_SERIAL",
                 "ANDROID_ADB_SERVER_HOST", "ANDROID_ADB_SERVER_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(android, "adb_client", lambda **_: _Adb())
    monkeypatch.setattr(android, "adb_server_problem", lambda adb: None)
    monkeypatch.setattr(specs, "adb_phones", lambda: [(s, "device") for s in SERIALS])


@pytest.fixture
def other_run():
    fds: list[int] = []

    def hold(serial: str) -> None:
        fd = os.open(claim_path(adb_phone_key("127.0.0.1", 5037, serial)),
                     os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        fds.append(fd)
    yield hold
    for fd in fds:
        os.close(fd)


def _android_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("android"))
    end = next(i for i, line in enumerate(lines) if line.startswith("ios"))
    return lines[start:end]


def test_phones_another_run_holds_are_marked_with_its_pid(three_phones, other_run, monkeypatch,
                                                          capsys):
    other_run("emulator-5554")
    other_run("emulator-5558")
    _, out, _ = farm(monkeypatch, capsys, "devices")
    head, *rows = _android_lines(out)
    assert head == "android   3 device(s) on adb server 127.0.0.1:5037, 1 free:"
    held = f"  [held by another farm run (pid {os.getpid()})]"
    assert [row.strip() for row in rows] == [
        "emulator-5554  Google Pixel 7, Android 14 (API 34)" + held,
        "emulator-5556  Google Pixel 7, Android 14 (API 34)",
        "emulator-5558  Google Pixel 7, Android 14 (API 34)" + held]


def test_free_phones_are_listed_as_before(three_phones, monkeypatch, capsys):
    _, out, _ = farm(monkeypatch, capsys, "devices")
    head, *rows = _android_lines(out)
    assert head == "android   3 device(s) on adb server 127.0.0.1:5037:"
    assert not any("held" in row for row in rows)
    assert not list(Path(procs.claims_dir()).glob("farm-phone-*.lock"))   # none taken
