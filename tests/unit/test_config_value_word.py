"""FARM_CACHE_MODE=off (for FARM_CACHE) was ignored without a word, and the run read and
wrote the cache it was told to leave alone: a setting's name with a word that adds nothing
(_MODE, _NAME, _ID, ...) now gets the misspelt-setting warning, and in farm.toml the
"did you mean" names that setting (``model_name`` said 'model_family')."""

from __future__ import annotations

import pytest

from farm.config import misspelt_variables
from tests.support.farm_cli import run_main


def test_a_setting_with_a_value_word_is_named():
    said = misspelt_variables(environ={"FARM_CACHE_MODE": "off", "FARM_MODEL_NAME": "x",
                                       "FARM_RETRIES_COUNT": "2"})
    assert said == [
        "FARM_CACHE_MODE is not a farm setting and is ignored (did you mean FARM_CACHE?)",
        "FARM_MODEL_NAME is not a farm setting and is ignored (did you mean FARM_MODEL?)",
        "FARM_RETRIES_COUNT is not a farm setting and is ignored (did you mean "
        "FARM_RETRIES?)"]


def test_other_words_after_a_setting_are_a_suites_own():
    assert misspelt_variables(environ={"FARM_SCREENSHOTS_DIR": "x", "FARM_MODEL_URLS": "y",
                                       "FARM_DEMO_MODE": "z"}) == []


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_in_farm_toml_the_setting_is_named(clean_env, tmp_path, monkeypatch, capsys):
    (tmp_path / "farm.toml").write_text("cache_mode = 'off'\nmodel_name = 'openai/x'\n")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (4, "farm: error: cannot read configuration: farm.toml:1: unknown "
                              "setting 'cache_mode' (did you mean 'cache'?); farm.toml:2: "
                              "unknown setting 'model_name' (did you mean 'model'?)\n")
