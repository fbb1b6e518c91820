"""`farm config show` says which key a model's calls use when its own key setting is unset: the
provider's own variable (OPENAI_API_KEY for openai/…, as the calls read it) or, for a planning
or assert model, the main model's key. It said "(not set)", and a user whose key was refused
looked for a key farm did not use."""

from __future__ import annotations

import pytest

from farm.config import Settings, in_force


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "FARM_MODEL_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_the_providers_variable_is_named_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    shown = in_force(Settings(model="openai/gpt-4o", assert_model="gemini/flash"))
    assert shown["model_api_key"] == ("(not set: OPENAI_API_KEY, the provider's own variable, "
                                      "is used: ***)")
    assert shown["assert_model_api_key"] == "(not set)"      # GEMINI_API_KEY is not set
    assert "sk-test" not in repr(shown)


def test_a_planning_model_without_its_own_key_uses_the_main_ones():
    shown = in_force(Settings(model="openai/gpt-4o", model_api_key="k-0123456789",
                              planning_model="openai/o3"))
    assert shown["model_api_key"] == "***"
    assert shown["planning_model_api_key"] == "(not set: model_api_key's is used: ***)"


def test_no_model_no_key_said():
    assert in_force(Settings())["model_api_key"] == "(not set)"
