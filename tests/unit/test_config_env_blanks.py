"""A FARM_* value with a blank or newline around it, as a docker --env-file line
(``FARM_STATE_DIR=/data ``) or a secret mounted from a file keeps it: taken as written, the
state went into a directory named "/data " and the model "gpt-4o\\n" was asked for by that
name; a choice (``off ``) was refused though it was right. The value is what is between."""

from __future__ import annotations

import os

import pytest

from farm.config import load_settings
from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_values_are_taken_without_the_blanks_around_them(tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_STATE_DIR", f"{tmp_path}/state \n")
    monkeypatch.setenv("FARM_MODEL", "gpt-4o\n")
    monkeypatch.setenv("FARM_SCREENSHOTS", "off ")
    monkeypatch.setenv("FARM_BROKER_URL", " redis://127.0.0.1:6379/0\n")
    settings = load_settings()
    assert settings.state_dir == tmp_path / "state"
    assert settings.model == "gpt-4o"
    assert settings.screenshots == "off"
    assert settings.broker_url.get_secret_value() == "redis://127.0.0.1:6379/0"
    assert settings.source("state_dir") == "FARM_STATE_DIR"


def test_config_show_prints_the_stripped_value(monkeypatch, capsys):
    monkeypatch.setenv("FARM_CACHE", "read-only\r\n")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert "\ncache                    read-only\n" in out


def test_config_show_does_not_name_a_blank_variable_as_where_a_value_was_set(
        tmp_path, monkeypatch, capsys):
    """compose's ``${FARM_RETRIES:-}`` leaves the variable blank: not set. "where set" said
    ``retries FARM_RETRIES (overrides farm.toml:1)`` over farm.toml's value in force."""
    (tmp_path / "farm.toml").write_text("retries = 2\n")
    monkeypatch.setenv("FARM_RETRIES", " ")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert "\nretries                  2\n" in out
    assert "\n  retries farm.toml:1\n" in out
