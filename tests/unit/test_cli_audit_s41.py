"""`farm run` given bad values, as a CI template or a hurried user gives them: one line naming
the value, exit 4 (usage), no traceback and no run started. In-process (`run_main`), on
in-memory `fake` devices (no browser)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - javascript: \"1\"\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith("FARM_") or key == "CELERY_BROKER_URL":
            monkeypatch.delenv(key)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shop").mkdir()
    for name in ("login", "cart"):
        (tmp_path / "shop" / f"{name}.yaml").write_text(CASE)
    return tmp_path


@pytest.mark.parametrize("blank", ["", " ", "/", " / "])
def test_a_blank_shard_is_a_usage_error_not_the_whole_suite(here, monkeypatch, capsys, blank):
    """`--shard "$SHARD"` (or "$I/$N") with the variables unset ran every case on every job."""
    code, out, err = run_main(monkeypatch, capsys, "run", "shop", "--devices", "fake:1",
                              "--no-progress", "--shard", blank, "--report-dir", "out")
    assert code == 4, out + err
    assert err.splitlines() == [f"farm: error: --shard {blank!r}: an empty shard (an unset "
                                "variable, as in \"$SHARD\"?): expected I/N, e.g. 1/3, or "
                                "leave --shard out"]
    assert out == "" and not (here / "out").exists()


def test_a_blank_shard_is_refused_by_collect_only_too(here, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", "shop", "--collect-only",
                              "--shard", "")
    assert (code, out) == (4, "")
    assert "an empty shard" in err


@pytest.mark.parametrize(("variable", "meant"), [
    ("FARM_MAX_RETRIES", "FARM_RETRIES"), ("FARM_CASE_TIMEOUT", "FARM_DEFAULT_TIMEOUT"),
    ("FARM_TEST_TIMEOUT", "FARM_DEFAULT_TIMEOUT"), ("FARM_CASE_RETRIES", "FARM_RETRIES")])
def test_another_tools_name_for_a_setting_is_said_to_be_ignored(here, monkeypatch, capsys,
                                                                variable, meant):
    """FARM_MAX_RETRIES=-3 / FARM_CASE_TIMEOUT=abc (the names other runners use) were ignored
    without a word: the run went with no retries and the default timeout."""
    monkeypatch.setenv(variable, "abc")
    code, _, err = run_main(monkeypatch, capsys, "run", "shop", "--collect-only")
    assert code == 0
    assert err.splitlines() == [f"farm: warning: {variable} is not a farm setting and is "
                                f"ignored (did you mean {meant}?)", counted(2).rstrip()]


def test_a_suites_own_variable_is_left_alone(here, monkeypatch, capsys):
    monkeypatch.setenv("FARM_TEST_URL", "http://x")
    monkeypatch.setenv("FARM_MAX_USERS", "3")
    code, _, err = run_main(monkeypatch, capsys, "run", "shop", "--collect-only")
    assert (code, err) == (0, counted(2))


def test_another_tools_name_in_farm_toml_is_refused_with_the_settings_name(here, monkeypatch,
                                                                           capsys):
    (here / "farm.toml").write_text("max_retries = 2\n")
    code, out, err = run_main(monkeypatch, capsys, "run", "shop", "--collect-only")
    assert (code, out) == (4, "")
    assert "'max_retries' (did you mean 'retries'?)" in err


@pytest.mark.parametrize("args", [("run", "shop", "--broker"), ("run", "shop", "--model"),
                                  ("run", "shop", "--model-base-url"),
                                  ("run", "shop", "--model-family"),
                                  ("run", "shop", "--pushgateway"), ("devices", "--broker"),
                                  ("worker", "--broker"), ("cache", "ls", "--broker")])
def test_a_blank_value_option_is_a_usage_error(here, monkeypatch, capsys, args):
    """`--broker "$REDIS_URL"` with the variable unset ran the suite here, not on the cluster
    (and put FARM_BROKER_URL aside); `--model "$MODEL"` skipped every ai case, exit 0."""
    monkeypatch.setenv("FARM_BROKER_URL", "redis://127.0.0.1:1/0")
    more = ("--devices", "fake:1", "--no-progress") if args[0] == "run" else ()
    code, out, err = run_main(monkeypatch, capsys, *args, " " * (args[0] == "cache"), *more)
    assert (code, out) == (4, ""), err
    assert (f"Error: Invalid value for '{args[-1]}': an empty value (an unset variable, as in "
            "\"$VAR\"?): give one, or leave the option out") in err.splitlines()
    assert not (here / ".farm" / "runs").exists()


def test_run_help_gives_the_limits_farm_holds_to(here, monkeypatch, capsys):
    """`--timeout [x>=0.1]` while 86401 was refused (after the settings loaded, in a block of
    two lines); `--retries` did not say it replaces each case's own retries:."""
    from farm.config import MAX_SECONDS
    code, out, _ = run_main(monkeypatch, capsys, "run", "--help")
    said = " ".join(out.split())
    assert code == 0
    assert f"Seconds per case (0.1 to {MAX_SECONDS}), or a duration" in said
    assert ("Re-runs after a test failure (at most 10), for every case: --retries wins over a "
            "case's own retries: and farm.yaml's; also FARM_RETRIES.") in said
    code, out, err = run_main(monkeypatch, capsys, "run", "shop", "--devices", "fake:1",
                              "--timeout", str(MAX_SECONDS + 1))
    assert (code, out) == (4, "")
    assert (f"Error: Invalid value for '--timeout': '{MAX_SECONDS + 1}' is out of range: from "
            f"0.1 s to {MAX_SECONDS} s (24h)") in err.splitlines()
