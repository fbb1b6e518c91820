"""A model error names the API key variable the user actually set: with Midscene's variables
(in the environment or in .env) a refused or missing key said ``FARM_MODEL_API_KEY``, a
variable the user never wrote."""
from __future__ import annotations

import json

import pytest

from farm import config
from farm.config import Settings
from farm.errors import ConfigError, ModelRefused
from farm.llm.models import build_models, check_models
from farm.midscene_env import NAMES
from tests.support.model_server import Reply, serve

KEY = "sk-refused-secret-5555"
MSGS = [{"role": "user", "content": "hi"}]


@pytest.fixture
def cwd(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)                  # no farm.toml of the checkout
    monkeypatch.setattr(config, "_TOLD", set())
    for name in (*NAMES, "FARM_MODEL", "FARM_MODEL_BASE_URL", "FARM_MODEL_API_KEY",
                 "FARM_MODEL_FAMILY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _refused(server) -> str:
    srv = serve(server, [Reply(status=401, raw=json.dumps(
        {"error": {"message": "Incorrect API key provided"}}).encode())])
    return srv.base_url


@pytest.mark.parametrize("in_dotenv", [True, False], ids=[".env", "environment"])
def test_a_refused_midscene_key_names_midscene_variable(cwd, server, monkeypatch, in_dotenv):
    values = {"MIDSCENE_MODEL_NAME": "scripted", "MIDSCENE_MODEL_BASE_URL": _refused(server),
              "MIDSCENE_MODEL_API_KEY": KEY}
    if in_dotenv:
        (cwd / ".env").write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    else:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
    with pytest.raises(ModelRefused) as raised:
        build_models(Settings()).locate.complete(MSGS)
    said = str(raised.value)
    assert said.endswith("check MIDSCENE_MODEL_API_KEY" + (" in .env" if in_dotenv else ""))
    assert "FARM_MODEL_API_KEY" not in said and KEY not in said


def test_a_missing_key_for_a_midscene_model_names_midscene_variable(cwd, monkeypatch):
    monkeypatch.setenv("MIDSCENE_MODEL_NAME", "gpt-4o")
    with pytest.raises(ConfigError) as raised:
        check_models(Settings())
    assert "set MIDSCENE_MODEL_API_KEY (or OPENAI_API_KEY)" in str(raised.value)


def test_farm_own_key_is_still_named_by_farm_variable(cwd, server, monkeypatch):
    monkeypatch.setenv("FARM_MODEL", "openai/scripted")
    monkeypatch.setenv("FARM_MODEL_BASE_URL", _refused(server))
    monkeypatch.setenv("FARM_MODEL_API_KEY", KEY)
    with pytest.raises(ModelRefused) as raised:
        build_models(Settings()).locate.complete(MSGS)
    assert str(raised.value).endswith("check FARM_MODEL_API_KEY")
