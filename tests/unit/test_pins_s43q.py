"""A case pinned with Midscene's `android: {deviceId: s4ey59ytbitot4yp}` to a serial the adb
server does not have was told "which this run did not take: its android devices are
emulator-5554, emulator-5556; give --devices android:N to take more" — both phones were taken,
and no --devices finds a phone that is not there — with no line of the case file. A pin to a
phone that is not there is "no such device", the adb server's phones listed; one to a phone
the run left out says how to take it; both name the pin's file:line."""

from __future__ import annotations

import pytest

import farm.devices.android as android
import farm.devices.specs as specs
from farm.devices.android import AndroidDevice
from farm.errors import ConfigError

PINNED = "android: {deviceId: s4ey59ytbitot4yp}\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


@pytest.fixture
def adb_server(monkeypatch):
    """The adb server lists emulator-5554, emulator-5556 and emulator-5558 (offline)."""
    monkeypatch.delenv("ANDROID_ADB_SERVER_HOST", raising=False)
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT", raising=False)
    monkeypatch.setattr(android, "adb_server_problem", lambda client: None)
    monkeypatch.setattr(specs, "adb_phones", lambda: [
        ("emulator-5554", "device"), ("emulator-5556", "device"), ("emulator-5558", "offline")])
    monkeypatch.setattr(specs, "_driven_elsewhere", lambda platform, pin: "")


@pytest.fixture
def case_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()

    def write(text: str) -> str:
        (tmp_path / "cases" / "pinned.yaml").write_text(text)
        return "cases/pinned.yaml"
    return write


TAKEN = [AndroidDevice("emulator-5554", None, "emulator-5554"),
         AndroidDevice("emulator-5556", None, "emulator-5556")]


def test_a_serial_the_adb_server_does_not_have_is_no_such_device(adb_server, case_file):
    where = case_file("# a Midscene example\n" + PINNED)
    with pytest.raises(ConfigError) as refused:
        specs.check_pins({where: ("android", "s4ey59ytbitot4yp")}, TAKEN)
    assert str(refused.value) == (
        "cases/pinned.yaml:2: deviceId s4ey59ytbitot4yp: no such device: the adb server at "
        "127.0.0.1:5037 lists emulator-5554, emulator-5556, emulator-5558 (correct the "
        "deviceId, or connect that phone)")
    assert "--devices" not in str(refused.value)


def test_a_phone_the_adb_server_has_but_the_run_left_out_says_how_to_take_it(adb_server,
                                                                             case_file):
    where = case_file("android:\n  launch: com.qa.lab\n  deviceId: emulator-5558\ntasks: []\n")
    with pytest.raises(ConfigError) as refused:
        specs.check_pins({where: ("android", "emulator-5558")}, TAKEN)
    assert str(refused.value) == (
        "cases/pinned.yaml:3: pinned to emulator-5558 (Midscene deviceId / wdaHost:wdaPort), "
        "which this run did not take: its android devices are emulator-5554, emulator-5556; "
        "give --devices android:N to take more, or choose them with ANDROID_SERIAL")


def test_no_such_device_can_be_left_to_its_case_alone(adb_server, case_file):
    """What a caller ends as that case's own error while the other cases run."""
    where = case_file(PINNED)
    missing = specs.check_pins({where: ("android", "s4ey59ytbitot4yp")}, TAKEN,
                               missing_ok=True)
    assert list(missing) == [where]
    assert str(missing[where]).startswith(
        "cases/pinned.yaml:1: deviceId s4ey59ytbitot4yp: no such device: ")
    with pytest.raises(ConfigError, match="did not take"):        # a run-level mistake still
        specs.check_pins({where: ("android", "emulator-5558")}, TAKEN, missing_ok=True)


def test_a_simulated_phone_run_lists_its_phones_when_no_adb_server_answers(monkeypatch):
    monkeypatch.setattr(android, "adb_server_problem",
                        lambda client: "no adb server on 127.0.0.1:5037")
    sims = [AndroidDevice("android-sim-1", None, "emulator-5554")]
    with pytest.raises(ConfigError) as refused:
        specs.check_pins({"c.yaml": ("android", "emulator-5558")}, sims)
    assert str(refused.value) == (
        "c.yaml: deviceId emulator-5558: no such device: no adb server on 127.0.0.1:5037; "
        "this run's android devices are android-sim-1 (emulator-5554) (correct the deviceId, "
        "or connect that phone)")
