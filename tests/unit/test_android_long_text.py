"""A long aiInput value on Android goes as several shell commands, each one a phone takes: an
adb request's length is 4 hex digits (65535 bytes at most; a longer one reached the server as
garbage, "unknown service: 6shell,v2", an infrastructure error retried on another phone) and an
older phone takes a service of at most 4096 bytes. What the commands type is the value."""

from __future__ import annotations

import base64
import shlex

import pytest

from farm.devices.android import AndroidDevice

LIMIT = 4096 - len("shell,v2:") - 1       # an older phone's service, its NUL included


def phone(monkeypatch: pytest.MonkeyPatch, focused_text: str = "") -> tuple[AndroidDevice,
                                                                             list[str]]:
    sent: list[str] = []
    dev = AndroidDevice("emulator-5554", None, "emulator-5554")

    def run(cmd: str, binary: bool = False, timeout: float = 30.0,
            **kw: object) -> tuple[str, str, int]:    # (what=: the field read back, too)
        sent.append(cmd)
        if cmd.startswith("settings get secure default_input_method"):
            return "com.android.adbkeyboard/.AdbIME\n", "", 0
        return ("Broadcast completed: result=0\n" if cmd.startswith("am broadcast") else ""), \
            "", 0

    monkeypatch.setattr(dev, "_run", run)
    dev._dump_fresh, dev._last_xml = True, (
        "<hierarchy><node class='android.widget.EditText' focused='true' password='false' "
        f"text='{focused_text}' /></hierarchy>")
    return dev, sent


def typed_by_input_text(sent: list[str]) -> str:
    words = [shlex.split(cmd)[2] for cmd in sent if cmd.startswith("input text ")]
    return "".join(w.replace("%s", " ") for w in words)


def test_a_long_ascii_value_is_typed_in_commands_a_phone_takes(monkeypatch):
    value = "a" * 999 + "%s" + "it's 'sure' " * 6000    # (a literal %s across two commands)
    dev, sent = phone(monkeypatch)
    dev.type_text(value)
    assert len(sent) > 1 and max(len(c.encode()) for c in sent) <= LIMIT
    assert typed_by_input_text(sent) == value


def test_a_long_non_ascii_value_goes_to_adbkeyboard_in_pieces(monkeypatch):
    value = "日本語 🎉👩‍👩‍👧 " * 3000
    dev, sent = phone(monkeypatch)
    dev.type_text(value)
    casts = [c for c in sent if c.startswith("am broadcast")]
    assert len(casts) > 1 and max(len(c.encode()) for c in sent) <= LIMIT
    assert "".join(base64.b64decode(c.split()[-1]).decode() for c in casts) == value


def test_a_field_holding_a_long_value_is_emptied_in_commands_a_phone_takes(monkeypatch):
    dev, sent = phone(monkeypatch, focused_text="x" * 12000)
    dev.clear_text()
    assert len(sent) > 1 and max(len(c.encode()) for c in sent) <= LIMIT
    assert sum(c.split().count("67") for c in sent) == 12001
    assert sum(c.split().count("112") for c in sent) == 12001


def test_a_line_break_is_enter_whatever_its_kind_and_a_tab_is_tab(monkeypatch):
    """A value with Windows line breaks ("a\r\nb", a secret read from a file saved on
    Windows) typed Tab for the \r, which moved the focus to the next field, then Enter."""
    dev, sent = phone(monkeypatch)
    dev.type_text("a\r\nb\rc\nd\te")
    assert sent == ["input text 'a'", "input keyevent 66", "input text 'b'",
                    "input keyevent 66", "input text 'c'", "input keyevent 66",
                    "input text 'd'", "input keyevent 61", "input text 'e'"]
