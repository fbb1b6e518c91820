"""A runAdbShell step without a `timeout:` fails once its command says nothing for
FARM_ADB_SILENCE_SECONDS (was a constant of 30 s: a build step that is quiet for a
minute needed a timeout on every such line). The setting is bounded (more than 0, at most a
day) and a bad value stops farm before any device, naming it; the failure names it too."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

from farm.config import Settings
from farm.devices.android import AndroidDevice
from farm.errors import StepFailed
from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("value", ["0", "-5", "100000", "soon"])
def test_a_silence_no_command_can_have_is_refused_naming_the_setting(monkeypatch, capsys,
                                                                      value):
    monkeypatch.setenv("FARM_ADB_SILENCE_SECONDS", value)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, out) == (4, "")
    lines = err.splitlines()
    assert lines[0] == "farm: error: invalid configuration:", err
    assert lines[1].startswith("  setting 'adb_silence_seconds' (env "
                               "FARM_ADB_SILENCE_SECONDS): "), err
    assert len(lines) == 2 and "Traceback" not in err


def test_the_setting_is_shown_with_its_default_and_taken_from_farm_toml(
        tmp_path, monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0 and "adb_silence_seconds" in out and "30.0" in out
    (tmp_path / "farm.toml").write_text("adb_silence_seconds = 120\n")
    assert Settings().adb_silence_seconds == 120


class SilentPhone:
    """An adbutils device whose shell_v2 command never prints (a socket nobody writes)."""

    def __init__(self) -> None:
        self.ours, self.phone = socket.socketpair()

    def open_transport(self, timeout: float | None = None) -> Any:
        phone = self

        class Transport:
            conn = phone.ours

            def send_command(self, cmd: str) -> None:
                pass

            def check_okay(self) -> None:
                pass

            def close(self) -> None:
                pass
        return Transport()


def test_a_silent_command_fails_after_the_silence_set_naming_the_setting(tmp_path):
    (tmp_path / "farm.toml").write_text("adb_silence_seconds = 0.2\n")
    phone = AndroidDevice("a1", Settings(), "emulator-5554")
    phone._dev, phone._shell_v2 = SilentPhone(), True
    with pytest.raises(StepFailed) as failed:
        phone.shell_result("sleep 3600")
    said = str(failed.value)
    assert said.startswith("the shell command gave no output for 0.2s (farm.toml:1 "
                           "adb_silence_seconds) and was given up"), said
    assert said.endswith("a longer silence needs the step's timeout: (ms) or a longer "
                         "farm.toml:1 adb_silence_seconds"), said
