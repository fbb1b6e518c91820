"""`farm config show` as a user debugging a CI job's settings reads it: where each value came
from (which file wins is said, and what it overrides), and no password printed, wherever the
URL holding it sits."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def _where(out: str) -> dict[str, str]:
    """The "where set" lines of `farm config show`, by setting."""
    tail = out.split("\nwhere set", 1)[1].splitlines()[1:]
    return dict(line.split(None, 1) for line in tail if line.startswith("  "))


def test_config_show_names_where_each_value_was_set_and_what_it_overrides(
        tmp_path, monkeypatch, capsys):
    """It printed `retries 1` and `keep_runs 4` alone: a user with farm.toml, [tool.farm]
    and FARM_* variables could not tell which one had won, nor that farm.toml beats
    pyproject.toml."""
    (tmp_path / "farm.toml").write_text('retries = 2\n\n# runs kept\n  "keep_runs" = 4\n')
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nretries = 9\n[tool.farm]\nretries = 5\nkeep_runs = 3\n'
        'android_serial = "emulator-5554"\n[tool.black]\nkeep_runs = 1\n')
    monkeypatch.setenv("FARM_RETRIES", "1")
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-5556")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert "\nwhere set (environment > farm.toml > pyproject.toml [tool.farm]; " in out
    assert _where(out) == {
        "android_serial": "ANDROID_SERIAL (overrides pyproject.toml:7 [tool.farm])",
        "retries": "FARM_RETRIES (overrides farm.toml:1, pyproject.toml:5 [tool.farm])",
        "keep_runs": "farm.toml:4 (overrides pyproject.toml:6 [tool.farm])"}


def test_config_show_says_when_nothing_sets_a_value(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert out.endswith("\nwhere set: nowhere: every value is farm's default (no FARM_* "
                        "variable, farm.toml or pyproject.toml [tool.farm] sets one)\n")


def test_a_proxy_password_in_browser_args_is_masked(tmp_path, monkeypatch, capsys):
    """`FARM_BROWSER_ARGS='["--proxy-server=http://ci:hunter22@proxy:3128"]'` was printed
    whole, password and all, into the CI log of anyone checking their settings."""
    monkeypatch.setenv("FARM_BROWSER_ARGS",
                       '["--proxy-server=http://ci:hunter22@proxy:3128", "--lang=de"]')
    (tmp_path / "farm.toml").write_text(
        'worker_host = "https://h/?token=tok-secret-1 x"\n')
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0 and "hunter22" not in out and "tok-secret-1" not in out, out
    assert "browser_args             ['--proxy-server=http://ci:***@proxy:3128', '--lang=de']" \
        in out
    assert "worker_host              https://h/?token=*** x" in out


def test_config_show_names_the_model_family_guessed_from_the_model_name(monkeypatch, capsys):
    """`model_family (not set)` left the user to guess how farm would read an
    `openai/ui-tars-1.5-7b`'s answers (pixels, not 0-1000): it says the family it guessed."""
    monkeypatch.setenv("FARM_MODEL", "openai/ui-tars-1.5-7b")
    monkeypatch.setenv("FARM_ASSERT_MODEL", "openai/gemini-2.5-pro")
    code, out, _ = run_main(monkeypatch, capsys, "config", "show")
    names = ("model_family ", "planning_model_family ", "assert_model_family ")
    shown = dict(line.split(None, 1) for line in out.split("\nwhere set")[0].splitlines()
                 if line.startswith(names))
    assert code == 0 and shown == {
        "model_family": "(not set: ui-tars-1.5, guessed from the model name "
                        "'openai/ui-tars-1.5-7b')",
        "planning_model_family": "(not set)",
        "assert_model_family": "(not set: gemini, guessed from the model name "
                               "'openai/gemini-2.5-pro')"}
