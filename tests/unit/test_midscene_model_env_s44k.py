"""A user coming from Midscene keeps its model variables (MIDSCENE_MODEL_*, or the older
OPENAI_BASE_URL / OPENAI_API_KEY form): farm takes them when its own model settings are not
given, says so once on stderr (never the key), and `farm config show` says where each came
from. They were ignored without a word: "needs a model (set FARM_MODEL)"."""
from __future__ import annotations

import pytest

from farm import config
from farm.config import Settings, in_force, places
from farm.midscene_env import midscene_model

KEY = "sk-midscene-secret-4242"
MIDSCENE = {"MIDSCENE_MODEL_BASE_URL": "https://dashscope.example/compatible-mode/v1",
            "MIDSCENE_MODEL_API_KEY": KEY, "MIDSCENE_MODEL_NAME": "qwen3-vl-plus",
            "MIDSCENE_MODEL_FAMILY": "qwen3-vl"}
ALL = [*MIDSCENE, "OPENAI_BASE_URL", "OPENAI_API_KEY", "MIDSCENE_USE_QWEN_VL",
       "MIDSCENE_USE_VLM_UI_TARS", "FARM_MODEL", "FARM_MODEL_BASE_URL", "FARM_MODEL_FAMILY"]


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)                  # no farm.toml of the checkout
    monkeypatch.setattr(config, "_TOLD", set())  # said once per process: once per test here
    for name in ALL:
        monkeypatch.delenv(name, raising=False)

    def setenv(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
    return setenv


def test_midscene_variables_give_the_model_as_an_openai_compatible_endpoint(env, capsys):
    env(**MIDSCENE)
    s = Settings()
    assert s.model == "openai/qwen3-vl-plus"
    assert s.model_base_url == MIDSCENE["MIDSCENE_MODEL_BASE_URL"]
    assert s.model_api_key.get_secret_value() == KEY
    assert s.model_family == "qwen3-vl"
    assert s.source("model") == "MIDSCENE_MODEL_NAME"
    err = capsys.readouterr().err
    assert err.startswith("farm: model from MIDSCENE_MODEL_NAME=qwen3-vl-plus "
                          "(MIDSCENE_MODEL_BASE_URL https://dashscope.example/compatible-mode/v1"
                          ", MIDSCENE_MODEL_API_KEY, MIDSCENE_MODEL_FAMILY=qwen3-vl): "
                          "openai/qwen3-vl-plus")
    assert KEY not in err and err.count("\n") == 1
    Settings()
    assert capsys.readouterr().err == ""           # once


def test_config_show_says_where_each_value_came_from_and_hides_the_key(env):
    env(**MIDSCENE)
    shown = in_force(Settings())
    assert shown["model"] == "openai/qwen3-vl-plus" and shown["model_api_key"] == "***"
    assert KEY not in str(shown)
    assert places()["model"] == ["MIDSCENE_MODEL_NAME (Midscene's variable)"]
    assert places()["model_api_key"] == ["MIDSCENE_MODEL_API_KEY (Midscene's variable)"]


def test_farm_settings_win_over_midscene_ones(env, capsys):
    env(**MIDSCENE, FARM_MODEL="openai/gpt-4o")
    s = Settings()
    assert s.model == "openai/gpt-4o" and s.model_base_url is None and s.model_family is None
    assert capsys.readouterr().err == ""
    assert "MIDSCENE_MODEL_NAME (Midscene's variable)" not in str(places())
    # one farm setting beside them: that one wins, the rest still come from Midscene's
    env(FARM_MODEL="", FARM_MODEL_BASE_URL="http://127.0.0.1:8000/v1")
    s = Settings()
    assert (s.model, s.model_base_url) == ("openai/qwen3-vl-plus", "http://127.0.0.1:8000/v1")
    assert "MIDSCENE_MODEL_BASE_URL" not in capsys.readouterr().err
    assert Settings(model="openai/x").model_base_url == "http://127.0.0.1:8000/v1"


def test_a_model_flag_reads_none_of_midscenes_variables(env):
    env(**MIDSCENE)
    s = Settings(model="openai/gpt-4o")
    assert s.model_base_url is None and s.model_api_key is None and s.model_family is None


def test_the_older_form_openai_variables_and_a_use_switch(env, capsys):
    env(MIDSCENE_MODEL_NAME="qwen-vl-max-latest", OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        OPENAI_API_KEY=KEY, MIDSCENE_USE_QWEN_VL="1")
    s = Settings()
    assert (s.model, s.model_base_url, s.model_family) == (
        "openai/qwen-vl-max-latest", "http://127.0.0.1:9/v1", "qwen2.5-vl")
    assert s.model_api_key.get_secret_value() == KEY and s.source("model_api_key") == \
        "OPENAI_API_KEY"
    err = capsys.readouterr().err
    assert "OPENAI_BASE_URL http://127.0.0.1:9/v1" in err
    assert "MIDSCENE_USE_QWEN_VL=1 (farm's qwen2.5-vl)" in err and KEY not in err


@pytest.mark.parametrize("midscene, farm", [
    ("doubao-vision", "doubao"), ("doubao-seed", "doubao"), ("vlm-ui-tars", "ui-tars"),
    ("vlm-ui-tars-doubao-1.5", "ui-tars"), ("gemini", "gemini"), ("glm-v", "glm-v"),
    ("auto-glm", "auto-glm"), ("qwen2.5-vl", "qwen2.5-vl"), ("QWEN3-VL", "qwen3-vl")])
def test_midscene_family_names_map_onto_farms(midscene, farm):
    got = midscene_model({"MIDSCENE_MODEL_NAME": "m", "MIDSCENE_MODEL_FAMILY": midscene})
    assert got.values["model_family"] == (farm, "MIDSCENE_MODEL_FAMILY") and not got.warnings


def test_an_unknown_family_is_said_not_ignored(env, capsys):
    env(MIDSCENE_MODEL_NAME="qwen3-vl-plus", MIDSCENE_MODEL_FAMILY="martian-vl")
    s = Settings()
    assert s.model == "openai/qwen3-vl-plus" and s.model_family is None   # guessed at use
    err = capsys.readouterr().err
    assert "farm: warning: MIDSCENE_MODEL_FAMILY=martian-vl is no model family farm knows" in err
    assert "set FARM_MODEL_FAMILY" in err


def test_midscene_variables_without_a_model_name_are_said_not_ignored(env, capsys):
    env(MIDSCENE_MODEL_BASE_URL="http://127.0.0.1:9/v1", MIDSCENE_MODEL_API_KEY=KEY)
    assert Settings().model is None
    err = capsys.readouterr().err
    assert ("MIDSCENE_MODEL_BASE_URL, MIDSCENE_MODEL_API_KEY set but not MIDSCENE_MODEL_NAME"
            in err) and KEY not in err


def test_a_model_name_already_with_the_prefix_is_not_prefixed_twice():
    got = midscene_model({"MIDSCENE_MODEL_NAME": "openai/gpt-4o", "OPENAI_API_KEY": "sk-1"})
    assert got.values["model"] == ("openai/gpt-4o", "MIDSCENE_MODEL_NAME")


def test_midscenes_dotenv_file_gives_them_too_and_the_environment_wins(env, tmp_path, capsys):
    """Midscene's CLI reads .env in the working directory; so does farm for these."""
    (tmp_path / ".env").write_text(
        'export MIDSCENE_MODEL_BASE_URL="http://127.0.0.1:9/v1"\n'
        f"MIDSCENE_MODEL_API_KEY={KEY}  # the key\nMIDSCENE_MODEL_NAME='in-file-vl'\n"
        "MIDSCENE_MODEL_FAMILY=doubao-vision\n", encoding="utf-8")
    s = Settings()
    assert (s.model, s.model_base_url, s.model_family) == (
        "openai/in-file-vl", "http://127.0.0.1:9/v1", "doubao")
    assert s.model_api_key.get_secret_value() == KEY
    err = capsys.readouterr().err
    assert err.startswith("farm: model from MIDSCENE_MODEL_NAME=in-file-vl in .env "
                          "(MIDSCENE_MODEL_BASE_URL http://127.0.0.1:9/v1 in .env, "
                          "MIDSCENE_MODEL_API_KEY in .env, MIDSCENE_MODEL_FAMILY=doubao-vision "
                          "(farm's doubao) in .env)") and KEY not in err
    assert places()["model"] == [".env MIDSCENE_MODEL_NAME (Midscene's variable)"]
    env(MIDSCENE_MODEL_NAME="from-env-vl")
    assert Settings().model == "openai/from-env-vl"
    assert places()["model"] == ["MIDSCENE_MODEL_NAME (Midscene's variable)"]


def test_a_bad_midscene_base_url_is_blamed_on_its_variable(env):
    env(MIDSCENE_MODEL_NAME="x", MIDSCENE_MODEL_BASE_URL="localhost:8000/v1")
    with pytest.raises(config.ConfigError, match=r"\(env MIDSCENE_MODEL_BASE_URL\): has no "):
        config.load_settings()
