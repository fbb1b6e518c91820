import pytest

from farm.config import load_settings
from farm.errors import ConfigError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key == "CELERY_BROKER_URL":
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_precedence_flag_env_farm_toml_pyproject_default(tmp_path, monkeypatch):
    assert load_settings().infra_retries == 1
    (tmp_path / "pyproject.toml").write_text("[tool.farm]\ninfra_retries = 2\nretries = 7\n")
    assert load_settings().infra_retries == 2
    (tmp_path / "farm.toml").write_text("infra_retries = 3\n")
    assert load_settings().infra_retries == 3
    assert load_settings().retries == 7
    monkeypatch.setenv("FARM_INFRA_RETRIES", "4")
    assert load_settings().infra_retries == 4
    assert load_settings(infra_retries=5).infra_retries == 5


def test_secrets_are_masked_in_show(monkeypatch):
    monkeypatch.setenv("FARM_MODEL_API_KEY", "sk-123")
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://:pw@localhost:6379/0")
    shown = load_settings().masked()
    assert shown["model_api_key"] == "***"
    assert shown["broker_url"] == "redis://:***@localhost:6379/0"
    assert "sk-123" not in repr(shown)


def test_bad_value_is_a_config_error_naming_the_setting(monkeypatch):
    monkeypatch.setenv("FARM_INFRA_RETRIES", "many")
    with pytest.raises(ConfigError, match="infra_retries"):
        load_settings()


def test_broken_farm_toml_is_a_config_error(tmp_path):
    (tmp_path / "farm.toml").write_text("infra_retries = = 3\n")
    with pytest.raises(ConfigError, match="farm.toml|configuration"):
        load_settings()
