"""Numbers a setting cannot mean, refused before any device starts (exit 4, naming where each
was set and the value): `inf` / `nan` (valid TOML, and what `float()` takes from a variable),
a negative model backoff or temperature, a replanning limit below 1. Each was taken, to fail
later: an OverflowError or a sleep of -1 s in the middle of a run, every ai step failing at
"replanning limit -1 reached", a limit of 0 silently the family's."""

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


@pytest.mark.parametrize("line, said", [
    ("cache_ttl_days = inf", "setting 'cache_ttl_days' (farm.toml:2): Input should be a finite "
                             "number, got inf"),
    ("model_backoff = nan", "setting 'model_backoff' (farm.toml:2): Input should be a finite "
                            "number, got nan"),
    ("model_backoff = -1", "setting 'model_backoff' (farm.toml:2): must be between 0 and "
                           "86400 seconds, got -1"),
    ("model_temperature = -0.5", "setting 'model_temperature' (farm.toml:2): must be "
                                 "between 0 and 2, got -0.5"),
    ("replanning_cycle_limit = 0", "setting 'replanning_cycle_limit' (farm.toml:2): must be "
                                   "between 1 and 1000, got 0"),
    ("replanning_cycle_limit = -1", "setting 'replanning_cycle_limit' (farm.toml:2): must be "
                                    "between 1 and 1000, got -1"),
])
def test_farm_toml_numbers_no_run_can_use_are_refused_at_their_line(
        tmp_path, monkeypatch, capsys, line, said):
    (tmp_path / "farm.toml").write_text(f"# settings\n{line}\n")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert said in err


def test_a_variable_of_inf_is_refused_naming_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "suites").mkdir()
    monkeypatch.setenv("FARM_CACHE_TTL_DAYS", "inf")
    code, _, err = run_main(monkeypatch, capsys, "run", "suites", "--collect-only")
    assert code == 4
    assert "(env FARM_CACHE_TTL_DAYS): Input should be a finite number, got 'inf'" in err


def test_sensible_values_still_pass(tmp_path, monkeypatch, capsys):
    (tmp_path / "farm.toml").write_text("model_backoff = 0\nmodel_temperature = 0.7\n"
                                        "replanning_cycle_limit = 40\ncache_ttl_days = 7\n")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert "replanning_cycle_limit   40" in out


def test_a_refused_broker_variable_says_got_once(monkeypatch, capsys):
    """It said "…, got http, got 'http://u:***@x'"."""
    monkeypatch.setenv("CELERY_BROKER_URL", "http://u:hunter2@x")
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert ("setting 'broker_url' (env CELERY_BROKER_URL): the broker is a Redis URL "
            "(redis:// or rediss://), got http: 'http://u:***@x'\n") in err
    assert "hunter2" not in err


@pytest.mark.parametrize("var, value", [("FARM_SERVE_URL_HOST", "http://10.0.0.5"),
                                        ("FARM_SERVE_HOST", "0.0.0.0/0")])
def test_a_url_where_a_host_goes_is_refused(monkeypatch, capsys, var, value):
    """The app URL is http://HOST:PORT: a URL there gave workers http://http://10.0.0.5:PORT
    to open, and every served case failed on them."""
    monkeypatch.setenv(var, value)
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert (f"(env {var}): is a host name or address (10.0.0.5, build-host.lan), not a URL "
            f"or path, got {value!r}") in err


def test_a_results_history_url_that_is_no_path_nor_redis_is_refused(tmp_path, monkeypatch,
                                                                    capsys):
    """``http://u:pw@host/db`` was a path: the history went into ./http:/u:pw@host/db, a
    SQLite file no other job shares, the password in a folder name."""
    (tmp_path / "suites").mkdir()
    monkeypatch.setenv("FARM_RESULTS_HISTORY_URL", "http://u:hunter2@host/db")
    code, _, err = run_main(monkeypatch, capsys, "run", "suites", "--collect-only")
    assert code == 4
    assert ("(env FARM_RESULTS_HISTORY_URL): is a file path or a Redis URL (redis://, "
            "rediss://), got http://: 'http://u:***@host/db'") in err
    assert "hunter2" not in err
    assert not (tmp_path / "http:").exists()
