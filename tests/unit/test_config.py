import re

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


@pytest.mark.parametrize("url, shown", [
    ("https://user:pa55@models.example.com:8443/v1?key=k-123&model=qwen",
     "https://user:***@models.example.com:8443/v1?key=***&model=qwen"),
    ("https://h/v1?api_key=k-123&apikey=k-123&X-Api-Key=k-123&sig=k-123&Signature=k-123"
     "&access_token=k-123&client_secret=k-123&password=k-123&region=eu",
     "https://h/v1?api_key=***&apikey=***&X-Api-Key=***&sig=***&Signature=***"
     "&access_token=***&client_secret=***&password=***&region=eu"),
    ("http://h/cb#access_token=k-123&state=1", "http://h/cb#access_token=***&state=1"),
    ("redis://:k-123@localhost:6379/0", "redis://:***@localhost:6379/0"),
    # a password with "@", "/", "#" not percent-encoded: urlsplit takes "ss" for the host
    ("redis://:p@ss/w#rd@127.0.0.1:6392/0", "redis://:***@127.0.0.1:6392/0"),
    ("unix:///run/redis.sock?password=k-123&db=1", "unix:///run/redis.sock?password=***&db=1"),
    ("https://models.example.com/v1", "https://models.example.com/v1"),
])
def test_mask_url_hides_passwords_and_credential_query_values(url, shown):
    from farm.config import mask_url
    assert mask_url(url) == shown


@pytest.mark.parametrize("url, said", [
    ("redis://127.0.0.1:99999/0", "port that is not a number"),
    ("redis://127.0.0.1:abc/0", "port that is not a number"),
    ("redis://127.0.0.1:6379/x", "names database 'x'"),        # redis-py: 0; kombu: an error
    ("redis://:p@ss/w#rd@127.0.0.1:6392/0", r"percent-encode them \(@ → %40"),
    ("unix:///run/redis.sock", r"Celery cannot use a Redis unix socket"),   # kombu: KeyError
])
def test_a_broker_url_redis_would_misread_is_a_config_error_that_keeps_the_password(
        monkeypatch, url, said):
    monkeypatch.setenv("FARM_BROKER_URL", url)
    with pytest.raises(ConfigError, match=said) as caught:
        load_settings()
    assert "ss/w" not in str(caught.value)
    monkeypatch.setenv("FARM_BROKER_URL", "redis://:p%40ss%2Fw%23rd@127.0.0.1:6392/0")
    assert load_settings().broker_url is not None        # the encoded form is fine


def test_show_masks_credentials_in_every_url_setting(monkeypatch):
    monkeypatch.setenv("FARM_MODEL_BASE_URL", "https://me:pa55@llm.example.com/v1?key=k-123")
    monkeypatch.setenv("FARM_ASSERT_MODEL_BASE_URL", "https://llm.example.com/v1?token=k-456")
    monkeypatch.setenv("FARM_IOS_WDA_URLS", "http://u:k-789@10.0.0.2:8100")
    shown = load_settings().masked()
    assert shown["model_base_url"] == "https://me:***@llm.example.com/v1?key=***"
    assert shown["assert_model_base_url"] == "https://llm.example.com/v1?token=***"
    assert shown["ios_wda_urls"] == ["http://u:***@10.0.0.2:8100"]
    assert not {"pa55", "k-123", "k-456", "k-789"} & set(
        re.findall(r"[\w-]+", repr(shown)))


def test_a_timeout_past_a_day_is_a_config_error(monkeypatch):
    monkeypatch.setenv("FARM_DEFAULT_TIMEOUT", "10000000000")
    with pytest.raises(ConfigError, match="default_timeout.*86400"):
        load_settings()


# farm reads its sources itself (farm.config.configured), as pydantic-settings read them before.
def test_environment_names_are_case_insensitive_and_aliases_go_in_order(monkeypatch):
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    monkeypatch.setenv("farm_retries", "3")
    assert load_settings().retries == 3
    monkeypatch.setenv("ANDROID_SERIAL", "adb-name")
    assert load_settings().android_serial == "adb-name"
    monkeypatch.setenv("FARM_ANDROID_SERIAL", "farm-name")      # first of the alias choices
    assert load_settings().android_serial == "farm-name"


def test_settings_built_directly_read_the_same_sources(tmp_path, monkeypatch):
    from farm.config import Settings
    (tmp_path / "farm.toml").write_text('model = "from-toml"\nbroker_url = "redis://t:1/0"\n')
    monkeypatch.setenv("FARM_INFRA_RETRIES", "4")
    s = Settings(retries=2)
    assert (s.model, s.infra_retries, s.retries) == ("from-toml", 4, 2)
    assert s.broker_url.get_secret_value() == "redis://t:1/0"      # a field name in farm.toml


def test_list_variables_are_json_or_comma_separated(monkeypatch):
    monkeypatch.setenv("FARM_BROWSER_ARGS", '["--a", "--b=1,2"]')
    monkeypatch.setenv("FARM_LOCATE_OFF", "ocr, ai")
    s = load_settings()
    assert (s.browser_args, s.locate_off) == (["--a", "--b=1,2"], ["ocr", "ai"])
    monkeypatch.setenv("FARM_BROWSER_ARGS", "--a")
    with pytest.raises(ConfigError, match=r"FARM_BROWSER_ARGS.*JSON"):
        load_settings()


def test_errors_name_the_setting_and_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", "http://not-redis")     # the variable that said it
    with pytest.raises(ConfigError, match=r"'broker_url' \(env CELERY_BROKER_URL\): .*Redis URL"):
        load_settings()
    monkeypatch.delenv("CELERY_BROKER_URL")
    (tmp_path / "pyproject.toml").write_text("[tool.farm]\nretries = = 1\n")
    with pytest.raises(ConfigError, match="pyproject.toml"):
        load_settings()


def test_a_misspelt_name_in_farm_toml_or_tool_farm_is_refused_with_the_real_one(tmp_path):
    """`retires = 3` was ignored without a word: the run went on with no retries."""
    (tmp_path / "farm.toml").write_text("retires = 3\nheadless = true\n")
    with pytest.raises(ConfigError) as found:
        load_settings()
    assert str(found.value) == ("cannot read configuration: farm.toml:1: unknown setting "
                                "'retires' (did you mean 'retries'?)")
    (tmp_path / "farm.toml").unlink()
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline = 1\n[tool.farm]\nheadles = 0\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml:4 \[tool.farm\]: unknown setting "
                                          r"'headles' \(did you mean 'headless'\?\)"):
        load_settings()


def test_a_bad_flag_value_is_blamed_on_the_flag_not_on_the_environment():
    with pytest.raises(ConfigError) as found:
        load_settings(retries=50, broker_url="http://u:hunter2@localhost:1234")
    assert str(found.value).splitlines()[1:] == [
        "  --retries 50: must be between 0 and 10",
        "  --broker http://u:***@localhost:1234: the broker is a Redis URL (redis:// or "
        "rediss://), got http"]


@pytest.mark.parametrize("env", ["FARM_MODEL_FAMILY", "FARM_PLANNING_MODEL_FAMILY",
                                 "FARM_ASSERT_MODEL_FAMILY"])
def test_a_misspelt_model_family_is_refused_naming_the_setting_and_the_nearest(
        monkeypatch, env):
    """`qwen3vl` loaded, then raised ValueError in each device thread as it opened (a
    traceback on the console) and the run hung."""
    monkeypatch.setenv(env, "qwen3vl")
    with pytest.raises(ConfigError) as found:
        load_settings()
    name = env.removeprefix("FARM_").lower()
    assert str(found.value) == (
        f"invalid configuration:\n  setting {name!r} (env {env}): unknown model family "
        "'qwen3vl' (did you mean 'qwen3-vl'?); known: gpt, qwen2.5-vl, qwen2-vl, qwen3-vl, "
        "gemini, doubao, glm-v, ui-tars, auto-glm")
    monkeypatch.setenv(env, "Qwen3-VL")         # any case, and aliases, still do
    assert getattr(load_settings(), name) == "Qwen3-VL"
    monkeypatch.setenv(env, "uitars")
    load_settings()


def test_a_misspelt_model_family_flag_is_blamed_on_the_flag():
    with pytest.raises(ConfigError, match=r"--model-family qwen3vl: unknown model family "
                                          r"'qwen3vl' \(did you mean 'qwen3-vl'\?\)"):
        load_settings(model="openai/x", model_family="qwen3vl")


@pytest.mark.parametrize("where, text, blamed", [
    ("pyproject.toml", '[tool.farm]\nscreenshots = "every"\n', "pyproject.toml:2 [tool.farm]"),
    ("farm.toml", 'screenshots = "every"\n', "farm.toml:1"),
])
def test_a_bad_value_is_blamed_on_the_file_that_set_it(tmp_path, where, text, blamed):
    """It said "(env FARM_SCREENSHOTS, farm.toml or [tool.farm])": look in three places; then
    it named the file but neither the line nor the value."""
    (tmp_path / where).write_text(text)
    with pytest.raises(ConfigError) as found:
        load_settings()
    assert str(found.value).splitlines()[1] == (
        f"  setting 'screenshots' ({blamed}): Input should be 'all', 'on-failure' or 'off', "
        "got 'every'")


def test_timeout_in_farm_toml_is_taken_for_the_timeout_flag_s_setting(tmp_path):
    """`timeout` is what --timeout and farm.yaml call it: default_timeout, not the nearest
    spelling (model_timeout). Nor does the message send the user to `farm config show`,
    which stops on the same file."""
    (tmp_path / "farm.toml").write_text("timeout = 5\n")
    with pytest.raises(ConfigError) as found:
        load_settings()
    assert str(found.value) == ("cannot read configuration: farm.toml:1: unknown setting "
                                "'timeout' (did you mean 'default_timeout'?)")


def test_a_farm_toml_that_is_not_utf8_is_named(tmp_path):
    (tmp_path / "farm.toml").write_bytes(b"retries = 1  # caf\xe9\n")
    with pytest.raises(ConfigError) as found:
        load_settings()
    assert str(found.value) == ("cannot read configuration: farm.toml: not UTF-8 text (byte "
                                "18): save it as UTF-8")


def test_a_misspelt_farm_variable_is_warned_about_with_the_real_name(monkeypatch, capsys):
    """FARM_RETRYS=3 was ignored without a word. Other programs' FARM_* variables (a suite's
    FARM_DEMO_URL, compose's FARM_WORKERS) are not settings misspelt: nothing is said."""
    from tests.support.farm_cli import run_main
    for name, value in [("FARM_RETRYS", "3"), ("FARM_TIMEOUT", "9"), ("FARM_DEMO_URL", "x"),
                        ("FARM_WORKERS", "2"), ("FARM_ANDROID_DEVICES", "1"),
                        ("FARM_TEST_FAKE_JOURNAL", "x")]:
        monkeypatch.setenv(name, value)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0 and re.search(r"^retries +\(not set: ", out, re.M), out
    assert err == (
        "farm: warning: FARM_RETRYS is not a farm setting and is ignored (did you mean "
        "FARM_RETRIES?)\n"
        "farm: warning: FARM_TIMEOUT is not a farm setting and is ignored (did you mean "
        "FARM_DEFAULT_TIMEOUT?)\n")


@pytest.mark.parametrize("env, where, text, blamed", [
    ({"FARM_CHROMIUM_PATH": "/nonexistent/chrome"}, None, "", "FARM_CHROMIUM_PATH"),
    ({}, "farm.toml", 'chromium_path = "/nonexistent/chrome"\n', "farm.toml:1"),
    ({}, "pyproject.toml", '[tool.farm]\nchromium_path = "/nonexistent/chrome"\n',
     "pyproject.toml:2 [tool.farm]"),
])
def test_a_missing_chromium_path_is_blamed_on_where_it_was_set(tmp_path, monkeypatch, capsys,
                                                                env, where, text, blamed):
    """It always said FARM_CHROMIUM_PATH, also when farm.toml set it and the variable was
    unset: the user looked for a variable that is not there."""
    from tests.support.farm_cli import run_main
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if where:
        (tmp_path / where).write_text(text)
    code, _, err = run_main(monkeypatch, capsys, "devices")
    assert (code, err) == (4, f"farm: error: chromium_path '/nonexistent/chrome' ({blamed}) "
                              "does not exist or is not executable\n")


@pytest.mark.parametrize("env, toml, args, blamed", [
    ({}, "", ["--report-dir", "prev"], "--report-dir prev"),
    ({"FARM_REPORT_DIR": "prev"}, "", [], "FARM_REPORT_DIR prev"),
    ({}, 'report_dir = "prev"\n', [], "farm.toml:1 report_dir prev"),
])
def test_a_report_dir_holding_a_run_is_blamed_on_where_it_was_set(tmp_path, monkeypatch, capsys,
                                                                  env, toml, args, blamed):
    """It said "--report-dir prev" to a user who had set FARM_REPORT_DIR or farm.toml."""
    from tests.support.farm_cli import run_main
    (tmp_path / "case.yaml").write_text("web: {url: 'about:blank'}\ntasks:\n  - name: t\n"
                                        "    flow:\n      - javascript: '1'\n")
    (tmp_path / "prev").mkdir()
    (tmp_path / "prev" / "results.json").write_text("{}")
    (tmp_path / "farm.toml").write_text(toml)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")     # no browser
    code, _, err = run_main(monkeypatch, capsys, "run", "case.yaml", "--devices", "fake:1",
                            "--no-progress", *args)
    assert (code, err) == (4, f"farm: error: {blamed} already holds a run (results.json): use "
                              "--overwrite to replace it, or another directory\n")


@pytest.mark.parametrize("env, toml, blamed", [
    ({"FARM_STATE_DIR": "afile"}, "", "FARM_STATE_DIR"),
    ({}, 'state_dir = "afile"\n', "farm.toml:1 state_dir"),
])
def test_a_state_dir_that_is_a_file_is_blamed_on_where_it_was_set(tmp_path, monkeypatch, capsys,
                                                                  env, toml, blamed):
    """It said "(FARM_STATE_DIR)" to a user who had set state_dir in farm.toml."""
    from tests.support.farm_cli import run_main
    (tmp_path / "case.yaml").write_text("web: {url: 'about:blank'}\ntasks:\n  - name: t\n"
                                        "    flow:\n      - javascript: '1'\n")
    (tmp_path / "afile").write_text("not a directory")
    (tmp_path / "farm.toml").write_text(toml)
    monkeypatch.delenv("FARM_STATE_DIR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")     # no browser
    code, _, err = run_main(monkeypatch, capsys, "run", "case.yaml", "--devices", "fake:1",
                            "--no-progress")
    assert code == 4 and err.startswith(f"farm: error: the state directory ({blamed}) afile"), err


def test_config_show_prints_what_is_in_force_for_settings_nothing_sets(monkeypatch, capsys):
    """It printed `cache None`, `retries None`, `default_timeout None`: not the values in
    force, which the README promises ("the resolved values")."""
    from tests.support.farm_cli import run_main
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    shown = dict(line.split(None, 1) for line in out.splitlines() if " " in line.strip())
    assert (code, err) == (0, "")
    assert shown["cache"] == "read-write (default; a case's own agent.cache when it has one)"
    assert shown["retries"] == "(not set: each case's retries:, else its farm.yaml's, else 0)"
    assert shown["default_timeout"] == ("(not set: each case's timeout:, else its farm.yaml's, "
                                        "else 300)")
    assert shown["report_dir"] == ".farm/runs/<run-id> (default)"
    assert shown["model"] == "(not set)" and not re.search(r"\bNone$", out, re.M), out
    monkeypatch.setenv("FARM_CACHE", "read-only")
    monkeypatch.setenv("FARM_RETRIES", "2")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert re.search(r"^cache +read-only$", out, re.M) and re.search(r"^retries +2$", out, re.M)


def test_a_farm_variable_set_to_nothing_leaves_the_default(tmp_path, monkeypatch, capsys):
    """`FARM_NO_PROGRESS=` (a CI file's empty value, compose's `${FARM_NO_PROGRESS:-}`) was
    'invalid configuration ... unable to interpret input', exit 4: it is not set."""
    from tests.support.farm_cli import run_main
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_NO_PROGRESS", "FARM_RETRIES", "FARM_BROWSER_ARGS"):
        monkeypatch.setenv(name, " " if name == "FARM_RETRIES" else "")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert re.search(r"^retries +\(not set: ", out, re.M), out
