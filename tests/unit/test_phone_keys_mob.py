"""Single letter and digit keys on Android: Midscene's Android keyboardPress presses a letter
as its key (KEYCODE_A..Z), so such a script loads and presses it; the simulated phone types
what a phone's letter and digit keys type."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.devices.keys import android_keycode, unknown_key
from farm.devices.sim.androidshell import AndroidShell
from farm.devices.sim.screen import Faults
from farm.errors import UserError
from farm.suite.loader import load_suites


def test_a_letter_or_digit_is_its_android_key():
    assert [android_keycode(k) for k in ("a", "A", "z", "0", "9", " q ")] == \
        [29, 29, 54, 7, 16, 45]
    assert unknown_key("y", "android") is None
    assert android_keycode("é") is None and android_keycode("%") is None


def test_a_midscene_script_pressing_a_letter_on_android_loads(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("android:\n  launch: a.b\ntasks:\n  - name: t\n    flow:\n"
                    "      - aiKeyboardPress: y\n      - aiKeyboardPress: '7'\n")
    [case] = [c for s in load_suites([path], env={}) for c in s.cases]
    assert [s.value for s in case.steps] == ["y", "7"]


class _Screen:
    dpr = 2.5
    app = None

    def __init__(self) -> None:
        import threading
        self.faults = Faults()
        self.lock = threading.Lock()
        self.keys: list[str] = []

    def key(self, name: str) -> None:
        self.keys.append(name)

    def editing(self) -> bool:
        return True


def test_the_simulated_phone_types_letter_and_digit_keys():
    screen = _Screen()
    sh = AndroidShell("emulator-5554", screen, dict, 1080, 2400)  # type: ignore[arg-type]
    for key in ("29", "KEYCODE_B", "KEYCODE_1", "8", "16"):
        assert sh.run(f"input keyevent {key}")[2] == 0, key
    assert screen.keys == ["a", "b", "1", "1", "9"]
    assert sh.run("input keyevent 1")[2] == 0 and screen.keys[-1] == "9"   # SOFT_LEFT: no key


def test_a_keycode_name_is_a_name_not_a_shell_line(tmp_path: Path):
    """A KEYCODE_ name went into `input keyevent …` as written: "KEYCODE_HOME; reboot" (a
    suite's, or a model's plan) ran on in the phone's shell, and a stray "&" or blank was the
    phone's error, blamed on the device. Only KeyEvent's spelling is a key; the rest is
    refused at load, at its line."""
    assert android_keycode("keycode_volume_up ") == "KEYCODE_VOLUME_UP"
    for bad in ("KEYCODE_HOME; reboot", "KEYCODE_A&B", "KEYCODE_VOLUME UP", "KEYCODE_$(x)"):
        assert android_keycode(bad) is None and unknown_key(bad, "android") == bad
    path = tmp_path / "c.yaml"
    path.write_text("android:\n  launch: a.b\ntasks:\n  - name: t\n    flow:\n"
                    "      - aiKeyboardPress: 'KEYCODE_HOME; reboot'\n")
    with pytest.raises(UserError) as refused:
        load_suites([path], env={})
    assert f"{path}:6:" in str(refused.value) and "unknown key" in str(refused.value)
