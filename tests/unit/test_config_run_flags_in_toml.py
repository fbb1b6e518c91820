"""`devices = "browser:2"` in farm.toml: --devices is a flag of `farm run`, no setting. The
error suggested 'device_plugins' (the nearest name), which takes Python modules: a user who
followed it got a plugin import error for "browser:2". It now says what the key is."""

from __future__ import annotations

import os

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("line, flag", [('devices = "browser:2"', "--devices"),
                                        ("maxfail = 3", "--maxfail"),
                                        ('shard_timings = "r.json"', "--shard-timings")])
def test_a_run_flag_in_farm_toml_is_named_as_a_flag(tmp_path, monkeypatch, capsys, line,
                                                    flag):
    key = line.split()[0]
    (tmp_path / "farm.toml").write_text(f"retries = 1\n{line}\n")
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert err == (f"farm: error: cannot read configuration: farm.toml:2: unknown setting "
                   f"'{key}' ({flag} is a flag of `farm run`, given on the command line each "
                   "run, not a setting)\n")
    assert "did you mean" not in err


def test_a_run_flag_as_a_farm_variable_is_warned_of():
    """FARM_DEVICES=browser:4 in a CI job was ignored without a word: the run took browser:1."""
    from farm.config import misspelt_variables
    assert misspelt_variables(environ={"FARM_DEVICES": "browser:4", "FARM_DEMO_URL": "x"}) == [
        "FARM_DEVICES is not a farm setting and is ignored (--devices is a flag of `farm run`: "
        "give it on the command line)"]
