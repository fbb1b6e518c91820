"""Why a phone was lost, in words: adbutils' own texts ("Unknown data: b''", "Expected 5 bytes,
got 0") never reach a report; the operation farm was doing stays named."""

from __future__ import annotations

import pytest
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from farm.devices.android import AndroidDevice, _AdbErrors, adb_failure, adb_state_words
from farm.errors import DeviceError, DeviceLost
# (a read that timed out: the server may have answered, and the phone behind it not)
NO_ANSWER = "no answer in time from the adb server, or from the phone through it"



@pytest.mark.parametrize("exc, words", [
    (AdbError("Unknown data: b''"), "the adb server closed the connection without answering"),
    (EOFError("Expected 5 bytes, got 0"),
     "the adb server closed the connection in the middle of an answer"),
    (AdbTimeout("adb read timeout"), NO_ANSWER),
    (TimeoutError("timed out"), NO_ANSWER),
    (AdbConnectionError("connect to adb server failed: [Errno 111] Connection refused"),
     "cannot connect to the adb server ([Errno 111] Connection refused)"),
    (ConnectionResetError(104, "Connection reset by peer"),
     "the connection to the adb server broke"),
    (AdbError("Unknown data: b'WHAT'"),
     "the adb server answered something farm cannot read (b'WHAT')"),
    (AdbError("device offline"), "device offline"),        # the server's own words stay
])
def test_adb_failures_in_words(exc, words):
    assert adb_failure(exc) == words


def lost_reason(exc: Exception, what: str = "connect") -> str:
    phone = AndroidDevice("emulator-5556", None, "emulator-5556")
    with pytest.raises((DeviceLost, DeviceError)) as raised:
        with _AdbErrors(phone, what):
            raise exc
    return str(raised.value)


def test_lost_reasons_keep_the_operation_and_drop_adbutils_texts():
    assert lost_reason(AdbError("Unknown data: b''")) == \
        "emulator-5556 lost (connect): the adb server closed the connection without answering"
    said = lost_reason(EOFError("Expected 5 bytes, got 0"), "am")
    assert said == ("emulator-5556 lost (am): the adb server closed the connection in the "
                    "middle of an answer")
    assert "Expected 5 bytes" not in said


def test_a_phone_that_is_not_ready_says_what_to_do():
    assert adb_state_words("unauthorized") == \
        "unauthorized: accept the USB debugging prompt on the phone"
    assert adb_state_words("offline").startswith("offline: replug its cable")
    assert "adb reconnect" in adb_state_words("offline")
    assert adb_state_words("no").startswith("no permissions: ")


def test_an_older_phones_shell_cut_mid_command_does_not_show_the_typed_text():
    """adbutils raises "shell output invalid" with the command line when an Android 6 phone's
    one-stream shell ends before the exit status it echoes: the message showed `input text`'s
    words, a secret typed there in the %s form no mask finds ('Zq9%ssec' of 'Zq9 sec')."""
    cut = AdbError("shell output invalid", "sh -c 'input text '\\''Zq9%ssec'\\'''; "
                   "echo X4EXIT:$?", b"")
    phone = AndroidDevice("emulator-5556", None, "emulator-5556")
    with pytest.raises(DeviceLost) as raised:
        with _AdbErrors(phone, "input"):
            raise cut
    assert str(raised.value) == ("emulator-5556 lost (input): the phone's shell stopped "
                                 "answering in the middle of the command")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
