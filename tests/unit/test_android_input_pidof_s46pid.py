"""A watched input asks `pidof` in its own shell call (`input ...; echo <status>$?; pidof APP`)
and reads both answers out of one output: input's refusals and unknown keys are said as when
it ran alone, on a shell_v2 phone and an Android 6 one (one stream, stderr in it), and a
phone without pidof (before Android 7: exit 127) says nothing of the app."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from farm.devices.android import AndroidDevice
from farm.errors import DeviceError, StepFailed

APP = "com.example.notes"


class _Phone:
    """Answers a watched input's line as a phone does: input's output and status, then
    pidof's (``pidof``: its stdout and exit code; 127: the phone has none)."""

    def __init__(self, v2: bool, said: tuple[str, str, int], pidof: tuple[str, int]) -> None:
        self.v2, self.said, self.pidof, self.asked = v2, said, pidof, []

    def get_features(self) -> str:
        return "shell_v2,cmd" if self.v2 else "cmd"

    def shell2(self, cmd: str, timeout=None, encoding=None, v2=True):
        self.asked.append(cmd)
        if not cmd.startswith("input "):        # logcat, dumpsys: nothing to say
            return SimpleNamespace(stdout=b"", stderr=b"", output=b"", returncode=0)
        out, err, code = self.said
        pids, pidof_code = self.pidof
        if "pidof" not in cmd:
            pids, pidof_code = "", code
        elif not self.v2 and pidof_code == 127 and "2>/dev/null" not in cmd:
            pids = "/system/bin/sh: pidof: not found\n"
        shown = f"{out}farm-input-exit:{code}\n{pids}" if "pidof" in cmd else out
        if self.v2:
            return SimpleNamespace(stdout=shown.encode(), stderr=err.encode(), output=b"",
                                   returncode=pidof_code)
        both = (err + shown).replace("\n", "\r\n").encode()   # (through a terminal)
        return SimpleNamespace(stdout=b"", stderr=b"", output=both, returncode=pidof_code)


def _phone(v2: bool, said=("", "", 0), pidof=("4242\n", 0), app=APP) -> tuple[AndroidDevice,
                                                                               _Phone]:
    dev = AndroidDevice("R58M1", None, "R58M1")
    dev._dev = _Phone(v2, said, pidof)
    dev._app, dev._app_alive = app, app is not None
    return dev, dev._dev


@pytest.mark.parametrize("v2", [True, False])
def test_a_tap_on_a_running_app_is_one_call(v2):
    dev, phone = _phone(v2)
    dev.tap(10, 20)
    assert len(phone.asked) == 1 and f"pidof '{APP}'" in phone.asked[0], phone.asked


@pytest.mark.parametrize("v2", [True, False])
def test_an_app_gone_after_the_tap_fails_the_step(v2):
    dev, _phone_ = _phone(v2, pidof=("", 1))
    with pytest.raises(StepFailed, match=r"com.example.notes is no longer running on R58M1 "
                                         r"\(front: unknown\): it crashed at this step's "
                                         r"input \(tap\)"):
        dev.tap(10, 20)
    assert dev._app_alive is False


@pytest.mark.parametrize("v2", [True, False])
def test_a_phone_without_pidof_says_nothing(v2):
    dev, phone = _phone(v2, pidof=("", 127))
    dev.tap(10, 20)
    dev.press("Enter")
    assert len(phone.asked) == 2 and dev._app_alive


@pytest.mark.parametrize("v2", [True, False])
def test_an_unknown_key_is_the_suite_s_mistake(v2):
    said = ("", "Error: Unknown keycode: KEYCODE_NOPE\n", 1) if v2 else \
        ("Error: Unknown keycode: KEYCODE_NOPE\n", "", 1)
    dev, _ = _phone(v2, said=said)
    with pytest.raises(StepFailed, match="R58M1 knows no key KEYCODE_NOPE"):
        dev._input("keyevent KEYCODE_NOPE")


@pytest.mark.parametrize("v2", [True, False])
def test_a_refused_input_names_its_first_line_not_pidof_s(v2):
    words = ("java.lang.SecurityException: Injecting input events requires INJECT_EVENTS\n"
             "\tat android.os.Parcel.createException\n")
    dev, _ = _phone(v2, said=("", words, 0) if v2 else (words, "", 0))
    with pytest.raises(DeviceError) as refused:
        dev.tap(10, 20)
    assert str(refused.value) == ("input tap refused on R58M1: java.lang.SecurityException: "
                                  "Injecting input events requires INJECT_EVENTS")


@pytest.mark.parametrize("v2", [True, False])
def test_an_input_failing_silently_says_its_exit(v2):
    dev, _ = _phone(v2, said=("", "", 3))
    with pytest.raises(DeviceError, match="input swipe refused on R58M1: exit 3"):
        dev.swipe(1, 2, 3, 4, 100)


@pytest.mark.parametrize("app, alive", [(None, False), (APP, False)])
def test_an_app_not_watched_gets_a_plain_input(app, alive):
    dev, phone = _phone(True, app=app)
    dev._app_alive = alive
    dev.tap(10, 20)
    assert phone.asked == ["input tap 10 20"]
