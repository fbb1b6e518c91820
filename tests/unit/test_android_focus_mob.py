"""Which app is in front on an Android 10+ phone: its mCurrentFocus is in `dumpsys window
displays` there (API 29+), no longer in `dumpsys window windows`, which farm read alone; so
on a real phone current_app() was None, every launch waited 5 s and failed 'did not come to
the front (front: nothing known); is the phone locked or stuck?' (a device error: retried and
quarantined). The simulator prints it for both, so no run on it showed this."""

from __future__ import annotations

from types import SimpleNamespace

from farm.devices.android import AndroidDevice

FOCUS = b"  mCurrentFocus=Window{5f2a1c u0 com.example.notes/com.example.notes.Main}\n"


class _Phone:
    """Answers as a phone of ``api`` does: the focus in `displays` from API 29 on, else in
    `windows`; records what it was asked."""

    def __init__(self, api: int) -> None:
        self.api, self.asked = api, []

    def get_features(self) -> str:
        return "shell_v2,cmd"

    def shell2(self, cmd: str, timeout=None, encoding=None, v2=True):
        self.asked.append(cmd)
        where = "displays" if self.api >= 29 else "windows"
        out = FOCUS if cmd.startswith(f"dumpsys window {where}") else b""
        return SimpleNamespace(stdout=out, stderr=b"", output=out,
                               returncode=0 if out else 1)


def _phone(api: int) -> tuple[AndroidDevice, _Phone]:
    dev = AndroidDevice("R58M1", None, "R58M1")
    dev._dev = _Phone(api)
    return dev, dev._dev


def test_an_android_10_or_later_phone_says_what_is_in_front():
    dev, phone = _phone(34)
    assert dev.current_app() == "com.example.notes"
    assert dev.current_app() == "com.example.notes"
    assert all("displays" in cmd for cmd in phone.asked), phone.asked


def test_an_older_phone_is_asked_its_own_way_once_it_said_so():
    dev, phone = _phone(28)
    assert dev.current_app() == "com.example.notes"
    phone.asked.clear()
    assert dev.current_app() == "com.example.notes"
    assert len(phone.asked) == 1 and "windows" in phone.asked[0]
