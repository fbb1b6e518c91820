"""Which adb calls that get no answer in time give a phone up: only farm's own, after their
whole SHELL_TIMEOUT_S wait (a hung screencap); never a suite's runAdbShell under its own short
limits (its step's timeout, the case's last 0.1 s), whose first answer not coming in time is
that step's failure, as its output not coming is. (A fake adbutils device: no phone needed.)"""

from __future__ import annotations

from typing import Any

import pytest
from adbutils.errors import AdbTimeout

from farm.devices.android import AndroidDevice
from farm.devices.android_shell import PastDeadline, run_bounded
from farm.errors import DeviceLost, StepFailed


class SilentConn:
    """A transport whose server never sends its OKAY (adbutils: AdbTimeout)."""

    def send_command(self, cmd: str) -> None:
        pass

    def check_okay(self) -> None:
        raise AdbTimeout("timed out")

    def close(self) -> None:
        pass


class SilentPhone:
    """An adbutils device none of whose calls is answered; counts farm's own calls."""

    def __init__(self) -> None:
        self.own_calls = 0

    def open_transport(self, timeout: float | None = None) -> SilentConn:
        return SilentConn()

    def shell2(self, *args: Any, **kwargs: Any) -> Any:
        self.own_calls += 1
        raise AdbTimeout("timed out")


def _phone() -> tuple[AndroidDevice, SilentPhone]:
    phone, dev = AndroidDevice("phone-1", None, "emulator-5554"), SilentPhone()
    phone._dev, phone._shell_v2 = dev, True
    return phone, dev


def test_a_first_answer_not_in_time_is_the_commands_deadline() -> None:
    with pytest.raises(PastDeadline):
        run_bounded(SilentPhone(), "am start -W x", 0.1, None, True)


def test_a_suite_command_with_a_short_limit_gives_nothing_up() -> None:
    phone, dev = _phone()
    with pytest.raises(StepFailed, match=r"^the shell command gave no output for 0\.5s"):
        phone.shell_result("am start -W com.example/.Main", timeout_s=0.5)
    assert phone.abandoned is None
    with pytest.raises(DeviceLost):     # farm's own call after it still asks the phone
        phone.shell("echo hi")
    assert dev.own_calls == 1


def test_farms_own_call_unanswered_gives_the_phone_up_and_later_calls_fail_at_once() -> None:
    phone, dev = _phone()
    with pytest.raises(DeviceLost, match=r"^phone-1 lost \(screencap\): no answer in 30s"):
        phone.screenshot()
    assert phone.abandoned and "farm gave the phone up" in phone.abandoned
    for later in (phone.shell, phone.shell_result):
        with pytest.raises(DeviceLost, match=r"^phone-1 lost \(screencap\)"):
            later("echo hi")
    assert dev.own_calls == 1
    assert phone.healthy() is False
