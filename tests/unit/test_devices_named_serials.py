"""An Android tester with three phones on one adb server (emulator-5554, -5556, -5558):

- could not pick two particular phones for a run: `--devices android:emulator-5556` was
  refused pointing at ANDROID_SERIAL, which took one phone only. `--devices
  android:SERIAL,android:SERIAL` now takes exactly those phones (a serial the adb server does
  not list is named with the ones it does), and ANDROID_SERIAL takes a comma list;
- asked for android:3 while another run held the phone a case is pinned to, and was told "…or
  ask for 2", which cannot help a pinned case: the advice now says so.

Another process's hold is played by a descriptor of the phone's lock file this test flocks."""

from __future__ import annotations

import fcntl
import os
from typing import Callable, Iterator

import pytest

import farm.devices.android as android
import farm.devices.procs as procs
import farm.devices.specs as specs
from farm.config import Settings
from farm.devices.android import adb_phone_key
from farm.devices.procs import claim_path
from farm.devices.specs import DeviceSpec, make_devices, parse_device_specs
from farm.errors import ConfigError

PHONES = [("emulator-5554", "device"), ("emulator-5556", "device"),
          ("emulator-5558", "device"), ("R58M1", "unauthorized")]


@pytest.fixture(autouse=True)
def adb_server(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(procs, "claims_dir", lambda: tmp_path)
    monkeypatch.delenv("ANDROID_ADB_SERVER_HOST", raising=False)
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT", raising=False)
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("FARM_ANDROID_SERIAL", raising=False)
    monkeypatch.setattr(android, "adb_server_problem", lambda client: None)
    monkeypatch.setattr(specs, "adb_phones", lambda: PHONES)


@pytest.fixture
def other_run() -> Iterator[Callable[[str], None]]:
    """``hold(serial)``: another farm process (this test's pid) drives that phone."""
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


def test_devices_names_phones_by_serial():
    assert parse_device_specs("browser:1,android:emulator-5556,android:192.168.1.5:5555") == [
        DeviceSpec("browser", 1, "web"),
        DeviceSpec("android", 2, "android", ("emulator-5556", "192.168.1.5:5555"))]
    assert parse_device_specs("android:emulator-5556,android:emulator-5558")[0].written() == \
        "android:emulator-5556,android:emulator-5558"


@pytest.mark.parametrize("text, said", [
    ("android:2,android:emulator-5554", "give either how many phones (android:N) or which "
                                        "ones, each by its serial"),
    ("android:emulator-5554,android:2", "android:SERIAL,android:SERIAL (`farm devices` lists"),
    ("android:emulator-5554,android:emulator-5554", "phone emulator-5554 is named twice"),
])
def test_a_count_and_serials_together_or_a_serial_twice_is_refused(text, said):
    with pytest.raises(ConfigError) as refused:
        parse_device_specs(text)
    assert said in str(refused.value)


def test_a_run_takes_exactly_the_phones_it_names():
    spec = parse_device_specs("android:emulator-5556,android:emulator-5558")[0]
    devices = make_devices([spec], Settings())
    assert [d.name for d in devices] == ["emulator-5556", "emulator-5558"]
    for device in devices:
        device.close()


def test_a_serial_the_adb_server_does_not_list_names_the_ones_it_does():
    spec = parse_device_specs("android:emulator-5554,android:emulator-5560")[0]
    with pytest.raises(ConfigError) as refused:
        make_devices([spec], Settings())
    assert str(refused.value) == (
        "--devices android:emulator-5554,android:emulator-5560: emulator-5560: no such phone "
        "on the adb server at 127.0.0.1:5037, which lists emulator-5554, emulator-5556, "
        "emulator-5558, R58M1 (unauthorized) (`adb devices`)")


def test_a_named_phone_another_run_drives_says_whose_and_lets_go_of_the_others(other_run):
    other_run("emulator-5558")
    spec = parse_device_specs("android:emulator-5556,android:emulator-5558")[0]
    with pytest.raises(ConfigError) as refused:
        make_devices([spec], Settings())
    assert str(refused.value) == (
        "--devices android:emulator-5556,android:emulator-5558: emulator-5558 is driven by "
        f"another farm process on this machine (pid {os.getpid()}) (a phone runs one farm "
        "run's cases at a time: wait for that run to end, or name another phone: `farm "
        "devices` shows which are free)")
    other_run("emulator-5556")      # emulator-5556, claimed first, was let go


def test_a_pinned_phone_another_run_drives_is_not_answered_with_ask_for_fewer(monkeypatch,
                                                                             other_run):
    monkeypatch.setattr(specs, "attach_targets", lambda kind, count, settings, every=False:
                        ["emulator-5554", "emulator-5556", "emulator-5558"])
    other_run("emulator-5558")
    with pytest.raises(ConfigError) as refused:
        make_devices([DeviceSpec("android", 3, "android")], Settings(),
                     pins=frozenset({("android", "emulator-5558")}))
    assert str(refused.value) == (
        "--devices android:3: 2 of 3 android phone(s) free: emulator-5558 is driven by another "
        f"farm process on this machine (pid {os.getpid()}) (a phone runs one farm run's cases "
        "at a time: wait for that run to end; a case pinned to it (Midscene deviceId / "
        "wdaHost:wdaPort) runs on that phone only, so asking for fewer phones does not help "
        "it)")
    assert "ask for 2" not in str(refused.value)


def test_android_serial_takes_a_comma_list(monkeypatch):
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-5554, emulator-5558")
    assert specs.android_serials(Settings()) == ["emulator-5554", "emulator-5558"]
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-5554,emulator-5560")
    assert specs.android_serials(Settings()) == ["emulator-5554"]
    why = specs._too_few_android(2, Settings(), "127.0.0.1:5037")
    assert why.startswith("--devices android:2: ANDROID_SERIAL=emulator-5554,emulator-5560 "
                          "names emulator-5560, not on the adb server 127.0.0.1:5037 (it lists "
                          "emulator-5554, emulator-5556, emulator-5558, R58M1)")


def test_a_worker_refuses_named_phones_it_would_not_honour(monkeypatch, capsys):
    """`farm worker --devices android:SERIAL` would have driven any free phone."""
    from tests.support.farm_cli import run_main
    code, _, err = run_main(monkeypatch, capsys, "worker", "--broker", "redis://127.0.0.1:1/0",
                            "--devices", "android:emulator-5554,android:emulator-5556")
    assert code == 4
    assert ("farm worker --devices android:emulator-5554,android:emulator-5556: phones are "
            "named by serial for a local `farm run` only; give a count (android:2) and choose "
            "a `farm worker`'s phones with ANDROID_SERIAL=emulator-5554,emulator-5556") in err
