"""A model that cannot work is named as the user set it: `farm run --model openai/gpt-4o`
without a key said "FARM_MODEL=openai/gpt-4o needs an API key", sending the user to look for
an environment variable nobody had set."""

from __future__ import annotations

import pytest

from farm.config import load_settings
from farm.errors import ConfigError
from farm.llm.models import check_models


@pytest.mark.parametrize("flags, env, said", [
    ({"model": "openai/gpt-4o"}, {}, "--model=openai/gpt-4o needs an API key"),
    ({}, {"FARM_MODEL": "openai/gpt-4o"}, "FARM_MODEL=openai/gpt-4o needs an API key"),
    ({"model": "ollama/llava", "planning_model": "anthropic/claude-3-5-sonnet"}, {},
     "--planning-model=anthropic/claude-3-5-sonnet needs an API key"),
], ids=["flag", "variable", "planner flag"])
def test_a_model_without_a_key_is_named_where_it_was_set(monkeypatch, tmp_path, flags, env,
                                                          said):
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_MODEL", "FARM_MODEL_API_KEY", "FARM_PLANNING_MODEL", "OPENAI_API_KEY",
                 "ANTHROPIC_API_KEY", "FARM_MODEL_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        check_models(load_settings(**flags))
    assert str(raised.value).startswith(said), raised.value
