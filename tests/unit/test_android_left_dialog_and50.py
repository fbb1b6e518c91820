"""A system dialog a case before left in front of an Android phone (a permission another case's
app asked for, "… isn't responding"): a case opening a URL closes it first and starts clean, as
on iOS; a case's launch that failed under one names it without advising a step to answer it (no
step of the case can come before its launch) (`farm.devices.android`)."""

from __future__ import annotations

import pytest

from farm.devices.android import AndroidDevice
from farm.errors import DeviceError
from farm.suite.model import AndroidTarget

URL = "https://shop.example/product/blue-mug"
ASKS = "Allow Maps to access this device’s location?"
_IDS = "com.android.permissioncontroller:id/"


def _dialog_dump() -> str:
    pkg = 'package="com.google.android.permissioncontroller" bounds="[80,900][1000,1000]"'
    return ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" text="" '
            f'{pkg}><node class="android.widget.TextView" text="{ASKS}" '
            f'resource-id="{_IDS}permission_message" {pkg} /><node '
            f'class="android.widget.Button" text="While using the app" {pkg} /><node '
            f'class="android.widget.Button" text="Don’t allow" {pkg} /></node></hierarchy>')


class _Phone:
    """A phone whose permission dialog is up (or not), what farm sent it, in order."""

    def __init__(self, up: bool, closes: bool = True, opens: bool = True) -> None:
        self.up, self.closes, self.opens, self.sent = up, closes, opens, []

    def run(self, cmd: str, binary: bool = False, timeout: float = 30.0,
            what: str = "") -> tuple[str, str, int]:
        if "mCurrentFocus" in cmd:
            focus = ("com.google.android.permissioncontroller/.GrantPermissionsActivity"
                     if self.up else "com.android.chrome/.Main")
            return f"  mCurrentFocus=Window{{5f2a u0 {focus}}}\n", "", 0
        if cmd == "input keyevent 4":
            self.sent.append("back")
            self.up = self.up and not self.closes
            return "", "", 0
        if "android.intent.action.VIEW" in cmd:
            self.sent.append("open" + (" under the dialog" if self.up else ""))
            return ("Status: ok\n", "", 0) if self.opens else ("", "Error: timed out", 1)
        self.sent.append(cmd)
        return "", "", 0

    def dump(self) -> str:
        self.sent.append("dump")
        return _dialog_dump() if self.up else (
            '<hierarchy rotation="0"><node class="android.widget.TextView" text="Blue mug" '
            'package="com.android.chrome" bounds="[0,0][1080,200]" /></hierarchy>')


def _android(monkeypatch: pytest.MonkeyPatch, phone: _Phone) -> AndroidDevice:
    dev = AndroidDevice("emulator-5554", None, "emulator-5554")
    dev._dev, dev._size = object(), (1080, 2400)
    monkeypatch.setattr(dev, "_run", phone.run)
    monkeypatch.setattr(dev, "_dump", phone.dump)
    return dev


def test_a_case_opening_a_url_starts_without_the_dialog_a_case_before_left_and50(
        monkeypatch):
    phone = _Phone(up=True)
    dev = _android(monkeypatch, phone)
    dev.start_session(AndroidTarget(launch=URL))
    assert phone.sent == ["dump", "back", "open"]       # closed, then the page opened
    assert "in front of the app" not in (dev.error_page() or "")


def test_a_case_opening_a_url_with_nothing_left_presses_no_back_and50(monkeypatch):
    phone = _Phone(up=False)
    dev = _android(monkeypatch, phone)
    dev.start_session(AndroidTarget(launch=URL))
    assert phone.sent == ["open"]       # (its browser in front: no dump read, no Back)


def test_a_launch_that_failed_under_a_dialog_gives_no_advice_of_a_step_first_and50(
        monkeypatch):
    phone = _Phone(up=True, closes=False, opens=False)
    dev = _android(monkeypatch, phone)
    with pytest.raises(DeviceError):
        dev.start_session(AndroidTarget(launch=URL))
    assert phone.sent == ["dump", "back", "open under the dialog"]
    assert dev.error_page() == (
        f'a system dialog is in front of the app: "{ASKS}" (buttons: While using the app, '
        "Don’t allow)")


def test_a_steps_failure_under_the_dialog_still_advises_answering_it_and50(monkeypatch):
    phone = _Phone(up=True, closes=False)
    dev = _android(monkeypatch, phone)
    dev.start_session(AndroidTarget(launch=URL))
    assert dev.error_page().endswith(
        "answer it with a step first (aiTap: While using the app)")
    dev.end_session()           # (the case over: what a next case's launch fails on)
    assert not dev.error_page().endswith("(aiTap: While using the app)")
