"""`farm devices` with ANDROID_SERIAL naming no phone on the adb server (a serial left set in a
shell or CI variables from another phone, or mistyped): it said "0 device(s) on adb server
... (android-sim:N starts simulated ones)" while `adb devices` listed a phone, and left the
user to guess. It now says the serial names no phone and which ones the server has, as
`farm run --devices android:1` does."""

from __future__ import annotations

from pathlib import Path

import pytest

import farm.devices.android as android
import farm.devices.specs as specs
from tests.support.farm_cli import run_main as farm


class _Adb:
    host, port = "127.0.0.1", 5037

    def device(self, serial: str):
        raise ConnectionError("no getprop here")


@pytest.fixture
def one_phone(tmp_path: Path, monkeypatch):
    """An adb server (faked) that lists emulator-5554, ready."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_IOS_WDA_URLS", raising=False)
    monkeypatch.setattr(android, "adb_client", lambda **_: _Adb())
    monkeypatch.setattr(android, "adb_server_problem", lambda adb: None)
    monkeypatch.setattr(specs, "adb_phones", lambda: [("emulator-5554", "device")])


def _android_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("android"))
    end = next(i for i, line in enumerate(lines) if line.startswith("ios"))
    return lines[start:end]


def test_a_serial_naming_no_phone_says_which_phones_there_are(one_phone, monkeypatch, capsys):
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-9999")
    code, out, _ = farm(monkeypatch, capsys, "devices")
    assert code == 0
    head, *rest = _android_lines(out)
    assert head.startswith("android   0 device(s) on adb server 127.0.0.1:5037 "
                           "(ANDROID_SERIAL=emulator-9999)")
    assert "android-sim:N" not in head
    assert [line.strip() for line in rest] == [
        "ANDROID_SERIAL=emulator-9999 names no phone on this adb server (it lists "
        "emulator-5554): unset it, or set it to one of those"]


def test_a_serial_naming_the_phone_lists_it_alone(one_phone, monkeypatch, capsys):
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-5554")
    code, out, _ = farm(monkeypatch, capsys, "devices")
    head, *rest = _android_lines(out)
    assert code == 0 and head.endswith("(ANDROID_SERIAL=emulator-5554):")
    assert [line.split()[0] for line in rest] == ["emulator-5554"]
