"""When the whole adb server stops mid-run, every phone's error says so alike ("the adb server
at HOST:PORT refuses connections: it stopped", not adbutils' "[Errno 111] Connection
refused"), and each case left unrun says that cause once, without every phone's name (it was
~450 characters a case, each phone's "could not restart: … ([Errno 111] Connection
refused)" joined, cut mid-way)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from adbutils.errors import AdbConnectionError

from farm.devices.android import AndroidDevice, _AdbErrors
from farm.errors import DeviceLost
from farm.executors.local import _one_cause


def _refused() -> AdbConnectionError:
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except ConnectionRefusedError as exc:
            raise AdbConnectionError(f"connect to adb server failed: {exc}") from exc
    except AdbConnectionError as exc:
        return exc


def test_a_refusing_adb_server_is_said_as_such_and49():
    device = AndroidDevice("emulator-5554", None, "emulator-5554", host="127.0.0.1", port=41234)
    with pytest.raises(DeviceLost) as err:
        with _AdbErrors(device, "connect"):
            raise _refused()
    assert str(err.value) == ("emulator-5554 lost (connect): the adb server at "
                              "127.0.0.1:41234 refuses connections: it stopped")


def _slot(name: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, state="dead", detail=(
        f"could not restart: {name} lost (connect): the adb server at 127.0.0.1:41234 "
        "refuses connections: it stopped"))


def test_phones_dead_of_one_cause_say_it_once_and49():
    why = _one_cause([_slot(f"emulator-{5554 + 2 * i}") for i in range(5)])
    assert why == "the adb server at 127.0.0.1:41234 refuses connections: it stopped"


def test_phones_dead_of_their_own_causes_are_each_said_and49():
    other = SimpleNamespace(name="emulator-5556", state="dead",
                            detail="could not start: emulator-5556 is offline")
    why = _one_cause([_slot("emulator-5554"), other])
    assert "emulator-5554 lost" in why and "emulator-5556 is offline" in why
