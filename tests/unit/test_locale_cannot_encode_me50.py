"""A process whose locale cannot encode a Chinese file name (LC_ALL=C with Python's UTF-8 mode
and locale coercion switched off: ASCII names) is told which setting to change, exit 4, not
"farm: internal error: UnicodeEncodeError"."""

from __future__ import annotations

import sys

import pytest

from farm import cli


def test_a_name_the_locale_cannot_encode_is_a_setting_to_change_me50(monkeypatch, capsys):
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "ascii")

    def fails() -> None:
        "应用".encode("ascii")

    monkeypatch.setattr(cli.cli, "main", lambda **_: fails())
    with pytest.raises(SystemExit) as done:
        cli._main()
    err = capsys.readouterr().err
    assert done.value.code == 4 and "internal error" not in err
    assert err.startswith("farm: error: this process's locale encodes text as ascii, which "
                          "cannot hold '应用'") and "LANG=C.UTF-8" in err


def test_on_a_utf8_system_it_is_farms_own_error_me50(monkeypatch):
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "utf-8")
    try:
        "x\udc80".encode("utf-8")
    except UnicodeEncodeError as exc:
        assert cli._locale_cannot(exc) is False
