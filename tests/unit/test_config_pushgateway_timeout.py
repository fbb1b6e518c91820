"""FARM_PUSHGATEWAY_TIMEOUT is a setting like every other: `farm config show` lists it and
says where it was set, farm.toml may set it, and a value no request can use (`abc`, 0, -1)
stops farm with exit 4 naming it, before anything runs (it was read from the environment
by the push alone, a bad value noticed only at the end of a run)."""

from __future__ import annotations

import os

import pytest

from farm.config import Settings
from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_the_variable_is_a_setting_shown_with_where_it_was_set(monkeypatch, capsys):
    assert Settings().pushgateway_timeout == 10.0
    monkeypatch.setenv("FARM_PUSHGATEWAY_TIMEOUT", "2.5")
    assert Settings().pushgateway_timeout == 2.5
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert "pushgateway_timeout      2.5" in out
    assert "pushgateway_timeout FARM_PUSHGATEWAY_TIMEOUT" in out


def test_farm_toml_sets_it(tmp_path):
    (tmp_path / "farm.toml").write_text("pushgateway_timeout = 30\n")
    assert Settings().pushgateway_timeout == 30.0


@pytest.mark.parametrize("raw", ["abc", "0", "-1", "inf"])
def test_a_value_no_request_can_use_stops_farm_naming_it(tmp_path, monkeypatch, capsys, raw):
    (tmp_path / "suites").mkdir()
    monkeypatch.setenv("FARM_PUSHGATEWAY_TIMEOUT", raw)
    code, _, err = run_main(monkeypatch, capsys, "run", "suites", "--collect-only")
    assert code == 4
    assert "setting 'pushgateway_timeout' (env FARM_PUSHGATEWAY_TIMEOUT)" in err
