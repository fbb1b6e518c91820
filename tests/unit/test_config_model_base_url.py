"""A model base URL no request can use (`localhost:11434/v1` without http://, a port past
65535) stops farm with exit 4 before any device starts, saying what to write; it failed every
model call of the run, three attempts each, and ended the cases as infrastructure errors
(exit 3). A URL setting written without its scheme keeps its password out of the error."""

from __future__ import annotations

import os

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suites").mkdir()


def test_a_base_url_without_its_scheme_is_refused_with_the_url_to_give(monkeypatch, capsys):
    monkeypatch.setenv("FARM_MODEL", "openai/qwen3-vl")
    monkeypatch.setenv("FARM_MODEL_BASE_URL", "localhost:11434/v1")
    code, out, err = run_main(monkeypatch, capsys, "run", "suites")
    assert (code, out) == (4, "")
    assert err == ("farm: error: invalid configuration:\n  setting 'model_base_url' (env "
                   "FARM_MODEL_BASE_URL): has no http:// or https:// before the host: give "
                   "http://localhost:11434/v1\n")


@pytest.mark.parametrize("flag, url, said", [
    ("--model-base-url", "http://127.0.0.1:99999/v1",
     "has a port that is not a number from 1 to 65535"),
    ("--model-base-url", "ftp://models.lan/v1",
     "is the model's http:// or https:// URL, got ftp://"),
])
def test_a_base_url_no_request_can_use_is_refused_naming_the_flag(monkeypatch, capsys, flag,
                                                                  url, said):
    code, _, err = run_main(monkeypatch, capsys, "run", "suites", "--model", "openai/x",
                            flag, url)
    assert code == 4
    assert f"{flag} {url}: {said}" in err


def test_planning_and_assert_models_urls_are_checked_too(tmp_path, monkeypatch, capsys):
    (tmp_path / "farm.toml").write_text('assert_model_base_url = "judge.lan:8000/v1"\n')
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert ("setting 'assert_model_base_url' (farm.toml:1): has no http:// or https:// before "
            "the host: give http://judge.lan:8000/v1") in err


def test_a_good_base_url_is_taken(monkeypatch, capsys):
    monkeypatch.setenv("FARM_MODEL_BASE_URL", "https://api.example.com/v1")
    code, out, _ = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0
    assert "model_base_url           https://api.example.com/v1" in out


@pytest.mark.parametrize("variable, value", [
    ("FARM_BROKER_URL", ":s3cret-pw@redis.lan:6379/0"),
    ("FARM_CACHE_URL", "farm:s3cret-pw@redis.lan:6379/0"),
    ("FARM_MODEL_BASE_URL", "me:s3cret-pw@models.lan:8000/v1"),
])
def test_a_url_written_without_its_scheme_keeps_its_password_out(monkeypatch, capsys,
                                                                   variable, value):
    monkeypatch.setenv(variable, value)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert "s3cret-pw" not in out + err
    assert "***@" in err


def test_a_flag_written_without_its_scheme_keeps_its_password_out(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", "suites", "--broker",
                              ":s3cret-pw@redis.lan:6379/0")
    assert code == 4
    assert "s3cret-pw" not in out + err
    assert "--broker :***@redis.lan:6379/0: the broker is a Redis URL" in err
