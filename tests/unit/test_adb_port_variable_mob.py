"""ANDROID_ADB_SERVER_PORT that is no port number is a configuration error naming it: adbutils
reads it with int() as it is imported, and `farm devices` / `farm run --devices android:1`
ended with `internal error: ValueError: invalid literal for int()` (exit 3)."""

from __future__ import annotations

import pytest

from farm.devices.android import adb_client
from farm.errors import ConfigError


@pytest.mark.parametrize("raw", ["abc", "", "0", "70000", "5037x"])
def test_a_port_variable_that_is_no_port_is_refused_naming_it(monkeypatch, raw):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", raw)
    with pytest.raises(ConfigError) as refused:
        adb_client(socket_timeout=1)
    assert str(refused.value).startswith(f"ANDROID_ADB_SERVER_PORT={raw!r}: not a port number")


def test_a_port_number_is_taken(monkeypatch):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "5137")
    assert adb_client(socket_timeout=1).port == 5137
