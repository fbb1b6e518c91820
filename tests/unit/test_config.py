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


@pytest.mark.parametrize("env, value", [
    ("FARM_DEFAULT_TIMEOUT", "-5"), ("FARM_DEFAULT_TIMEOUT", "0"), ("FARM_INFRA_RETRIES", "-1"),
    ("FARM_RETRIES", "1000000000"), ("FARM_CLUSTER_INFRA_RETRIES", "-2"),
])
def test_impossible_numbers_are_config_errors(monkeypatch, env, value):
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError, match=env.removeprefix("FARM_").lower()):
        load_settings()


def test_every_farm_variable_is_a_setting(monkeypatch):
    """Settings own the cluster and device variables, so `farm config show` shows them."""
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://celery:6379/0")
    monkeypatch.setenv("FARM_IOS_WDA_URLS", "http://a:8100, http://b:8100")
    monkeypatch.setenv("FARM_CLUSTER_PREFIX", "nightly")
    monkeypatch.setenv("FARM_CLUSTER_MAX_CASE_SECONDS", "7200")
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "my.devices,other.devices")
    s = load_settings()
    assert s.broker_url.get_secret_value() == "redis://celery:6379/0"
    assert s.ios_wda_urls == ["http://a:8100", "http://b:8100"]
    assert (s.cluster_prefix, s.cluster_max_case_seconds) == ("nightly", 7200)
    assert s.device_plugins == ["my.devices", "other.devices"]
    monkeypatch.setenv("FARM_BROKER_URL", "redis://farm:6379/0")     # FARM_ wins
    assert load_settings().broker_url.get_secret_value() == "redis://farm:6379/0"
    assert load_settings(broker_url="redis://flag:1/0").broker_url.get_secret_value() == \
        "redis://flag:1/0"
    shown = load_settings().masked()
    assert shown["cluster_prefix"] == "nightly" and shown["ios_wda_urls"]
