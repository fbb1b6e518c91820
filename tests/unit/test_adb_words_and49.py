"""What farm says of an adb server it cannot use and of phones it cannot use:
ANDROID_ADB_SERVER_HOST naming a host that does not resolve says so (not "no adb server …
start one with `adb start-server`", which a remote host's server is not helped by); a run
asking for more phones than are ready, when phones are listed, suggests the count that would
run rather than simulated phones; `farm devices` leaves a listed phone whose shell is dead
out of its count and says it does not answer in farm's words (not adbutils' "Unknown data")."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from adbutils.errors import AdbConnectionError, AdbError

import farm.devices.android as android
import farm.devices.procs as procs
import farm.devices.specs as specs
from farm.config import load_settings
from farm.devices.android import adb_server_problem
from farm.errors import ConfigError
from tests.support.farm_cli import run_main as farm


class _Client:
    def __init__(self, host: str, port: int, cause: BaseException) -> None:
        self.host, self.port, self.cause = host, port, cause

    def ask_version(self) -> int:
        try:
            raise self.cause
        except BaseException as exc:
            raise AdbConnectionError(f"connect to adb server failed: {exc}") from exc


def test_a_host_that_does_not_resolve_is_said_so_and49():
    said = adb_server_problem(_Client("adb.invalid", 57083,
                                      socket.gaierror(-2, "Name or service not known")))
    assert "'adb.invalid' does not resolve" in said and "ANDROID_ADB_SERVER_HOST" in said
    assert not said.startswith("no adb server")     # (callers add "adb start-server" to that)


def test_a_remote_host_refusing_is_not_told_to_start_a_local_server_and49(monkeypatch):
    client = _Client("10.0.0.5", 5037, ConnectionRefusedError(111, "Connection refused"))
    said = adb_server_problem(client)
    assert said.startswith("nothing answers on 10.0.0.5:5037 (connection refused)"), said
    monkeypatch.setattr(android, "adb_client", lambda **_: client)
    with pytest.raises(ConfigError) as err:
        specs.attach_targets("android", 2, load_settings())
    assert "start one with" not in str(err.value) and "10.0.0.5:5037" in str(err.value)


def test_a_local_server_missing_still_says_how_to_start_one_and49():
    said = adb_server_problem(_Client("127.0.0.1", 5037,
                                      ConnectionRefusedError(111, "Connection refused")))
    assert said == "no adb server on 127.0.0.1:5037"


def test_too_few_ready_phones_suggest_the_ready_count_not_sims_and49(monkeypatch):
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("FARM_ANDROID_SERIAL", raising=False)
    monkeypatch.setattr(specs, "adb_phones", lambda: [("emulator-5554", "device"),
                                                      ("emulator-5556", "offline")])
    said = specs._too_few_android(2, load_settings(), "127.0.0.1:5037")
    assert "emulator-5556 (offline" in said
    assert "android-sim" not in said and "--devices android:1" in said
    monkeypatch.setattr(specs, "adb_phones", lambda: [])
    assert "android-sim" in specs._too_few_android(2, load_settings(), "127.0.0.1:5037")


class _Adb:
    host, port = "127.0.0.1", 5037

    def device(self, serial: str):
        return _Phone(serial)


class _Phone:
    def __init__(self, serial: str) -> None:
        self.serial = serial

    def shell(self, cmd: str, timeout: float = 0) -> str:
        if self.serial == "emulator-5556":
            raise AdbError("Unknown data: b''")
        return "Pixel\n14\n\n34\n"


def test_farm_devices_leaves_a_dead_listed_phone_out_of_its_count_and49(
        tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(procs, "claims_dir", lambda: tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_IOS_WDA_URLS", "ANDROID_SERIAL", "FARM_ANDROID_SERIAL",
                 "ANDROID_ADB_SERVER_HOST", "ANDROID_ADB_SERVER_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(android, "adb_client", lambda **_: _Adb())
    monkeypatch.setattr(android, "adb_server_problem", lambda adb: None)
    monkeypatch.setattr(specs, "adb_phones", lambda: [(s, "device") for s in
                                                      ("emulator-5554", "emulator-5556")])
    _, out, _ = farm(monkeypatch, capsys, "devices")
    assert "android   1 device(s) on adb server 127.0.0.1:5037:" in out, out
    assert ("emulator-5556 (listed, but does not answer: the adb server closed the connection "
            "without answering; a run passes it over)") in out
    assert "Unknown data" not in out and "getprop" not in out
