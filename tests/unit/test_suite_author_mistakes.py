"""A first-time suite author's mistakes, as `farm run --collect-only` reports them: one line
per mistake, at its file:line:col, saying what was given; exit 4, nothing run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main
from tests.support.load_errors import NOT_LISTED_SUITE, NOT_RUN_SUITE, problems

HEAD = "name: x\nweb:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n"


@pytest.fixture
def farm_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS...`` in ``tmp_path``: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("value, got", [("[1, 2]", "a list"), ("{a: b}", "a mapping")])
def test_an_ai_input_value_of_the_wrong_type_is_one_problem_saying_what_was_given(
        farm_run, tmp_path, value, got):
    _write(tmp_path / "s" / "c.yaml",
           HEAD + f"      - aiInput: Username\n        value: {value}\n")
    code, out, err = farm_run("s", "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err) == [
        "farm: 1 problem in suite files:",
        f"  s/c.yaml:8:16: aiInput value: expected the text to type, got {got}"]


def test_an_ai_input_without_a_value_still_says_the_text_is_missing(farm_run, tmp_path):
    _write(tmp_path / "s" / "c.yaml", HEAD + "      - aiInput: Username\n        value:\n")
    code, _, err = farm_run("s", "--collect-only")
    assert code == 4
    assert problems(err)[1:] == [
        "  s/c.yaml:8:15: aiInput: expected the text to type (`aiInput: <target>` with "
        "`value: <text>`, or `mode: clear`), got nothing"]


@pytest.mark.parametrize("collect_only, said", [
    (True, "farm: no case is listed: --collect-only lists cases only when every suite file "
           "loads (fix the problems listed, or name only the files to list)"),
    (False, "farm: no case ran: a run starts only when every suite file loads (fix the "
            "problems listed, or name only the files to run)")])
def test_one_broken_file_among_good_ones_says_the_good_ones_did_not_run_either(
        farm_run, tmp_path, collect_only, said):
    for name in ("a_good", "b_good"):
        _write(tmp_path / "s" / f"{name}.yaml", HEAD + "      - aiTap: Sign in\n")
    _write(tmp_path / "s" / "c_broken.yaml", HEAD + "      - aitap: Sign in\n")
    args = ["--collect-only"] if collect_only else ["--report-dir", tmp_path / "run"]
    code, out, err = farm_run("s", *args)
    assert code == 4 and not (tmp_path / "run").exists()
    assert problems(err, said) == [
        "farm: 1 problem in suite files:",
        "  s/c_broken.yaml:7:9: unknown step kind 'aitap' (did you mean 'aiTap'?)"]
    assert out == ""
    assert "a_good" not in err


def test_a_broken_farm_yaml_is_not_answered_by_naming_fewer_files(farm_run, tmp_path):
    _write(tmp_path / "s" / "farm.yaml", "- timeout: 5\n")      # a list, not settings
    _write(tmp_path / "s" / "a.yaml", HEAD + "      - aiTap: Sign in\n")
    code, out, err = farm_run("s/a.yaml", "--report-dir", tmp_path / "run")
    assert code == 4 and out == ""
    assert err.splitlines()[-1] == NOT_RUN_SUITE   # a.yaml named alone still reads its
    # suite's farm.yaml


def _suite_serving(root: Path, text: str, env: str = "APP_URL") -> None:
    _write(root / "app" / "index.html", f"<h1>{text}</h1>")
    _write(root / "farm.yaml", f"apps:\n  site:\n    serve: app\n    env: {env}\n")
    _write(root / "check.yaml", HEAD.replace("https://example.com", f"${{{env}}}/index.html")
           + f"      - assertText: {text}\n")


def test_two_apps_of_one_suite_serving_other_directories_under_one_variable_are_refused(
        farm_run, tmp_path):
    """The suite's cases get one URL for both (the later app's): one app's cases would check
    the other's pages and fail (or pass) for it. (Two suites may: test_suites_own_apps.py.)"""
    _suite_serving(tmp_path / "alpha", "I am alpha")
    _write(tmp_path / "alpha" / "admin" / "index.html", "<h1>admin</h1>")
    _write(tmp_path / "alpha" / "farm.yaml", "apps:\n  site:\n    serve: app\n    env: APP_URL\n"
           "  admin:\n    serve: admin\n    env: APP_URL\n")
    code, out, err = farm_run("alpha", "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err, NOT_LISTED_SUITE)[1:] == [
        "  alpha/farm.yaml:7:10: apps.admin.env: APP_URL is also the URL variable of an app "
        "that serves another directory (alpha/farm.yaml:4): the suite's cases get one value "
        "for it, so one app's cases would open the other's pages; give each app a variable of "
        "its own"]


def test_two_suites_may_serve_their_own_apps_under_one_variable(farm_run, tmp_path):
    _suite_serving(tmp_path / "alpha", "I am alpha")
    _suite_serving(tmp_path / "beta", "I am beta")
    code, out, err = farm_run("alpha", "beta", "--collect-only")
    assert code == 0, err
    assert "farm: 2 case(s) collected" in err


def test_apps_of_one_directory_may_share_their_variable(farm_run, tmp_path):
    _suite_serving(tmp_path / "alpha", "I am alpha")
    _write(tmp_path / "alpha" / "farm.yaml", "apps:\n  site:\n    serve: app\n    env: APP_URL\n"
           "  phone:\n    serve: app\n    env: APP_URL\n    android: com.x.shop\n")
    _suite_serving(tmp_path / "beta", "I am beta", env="BETA_URL")
    code, out, err = farm_run("alpha", "beta", "--collect-only")
    assert code == 0, err
    assert "farm: 2 case(s) collected" in err


def test_a_suite_var_named_as_its_own_app_url_variable_is_refused(farm_run, tmp_path):
    """The served URL replaces a vars: value of that name in every case of the suite."""
    _suite_serving(tmp_path / "beta", "I am beta")
    with (tmp_path / "beta" / "farm.yaml").open("a") as f:
        f.write("vars:\n  APP_URL: https://staging.example.com\n")
    code, out, err = farm_run("beta", "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err, NOT_LISTED_SUITE)[1:] == [
        "  beta/farm.yaml:6:3: vars.APP_URL: APP_URL is the URL variable of an app the suite "
        "serves (beta/farm.yaml:4), whose URL replaces this value in every case of the suite: "
        "give the variable another name"]


def test_a_case_var_named_as_its_suites_app_url_variable_is_refused(farm_run, tmp_path):
    _suite_serving(tmp_path / "beta", "I am beta")
    _write(tmp_path / "beta" / "own.yaml", "vars:\n  APP_URL: https://staging.example.com\n"
           + HEAD.replace("https://example.com", "${APP_URL}") + "      - aiTap: Go\n")
    code, _, err = farm_run("beta", "--collect-only")
    assert code == 4
    assert problems(err)[1:] == [
        "  beta/own.yaml:2:3: vars.APP_URL: APP_URL is the URL variable of an app the suite "
        "serves (beta/farm.yaml:4), whose URL replaces this value in every case of the suite: "
        "give the variable another name"]


@pytest.mark.parametrize("name", ["farm.yml", "Farm.yaml"])
def test_suite_settings_in_a_misnamed_file_say_to_rename_it(farm_run, tmp_path, name):
    """Not "no target section ... list it under exclude: in the suite's farm.yaml": the
    author meant this file to be that farm.yaml."""
    _write(tmp_path / "s" / name, "timeout: 10\nvars:\n  HOST: example.com\n")
    _write(tmp_path / "s" / "c.yaml", HEAD + "      - aiTap: Go\n")
    code, out, err = farm_run("s", "--collect-only")
    assert code == 4 and "collected" not in out
    assert problems(err)[1:] == [
        f"  s/{name}:1:1: this holds suite settings (timeout, vars), which farm reads only from "
        "a file named farm.yaml: rename it to farm.yaml (as it is, it is taken for a case)"]


def test_a_case_named_farm_yml_is_still_a_case(farm_run, tmp_path):
    _write(tmp_path / "s" / "farm.yml", HEAD + "      - aiTap: Go\n")
    code, out, err = farm_run("s", "--collect-only")
    assert code == 0, err
    assert "farm: 1 case(s) collected" in err


SECRET = "sk-live-Leak1234"


@pytest.mark.parametrize("var", ["DB_PASSWORD", "PIN", "db_password", "Api_Token"])
def test_a_var_whose_value_holds_a_colon_is_not_echoed_in_the_quoting_hint(
        farm_run, tmp_path, var):
    """A password with ': ' in it breaks the YAML; the hint says to quote it without printing
    it into the CI log (an assertText's text is still shown quoted, as it helps)."""
    _write(tmp_path / "s" / "farm.yaml", f"secrets: [{var}]\nvars:\n  {var}: {SECRET}: x\n")
    _write(tmp_path / "s" / "c.yaml", HEAD + "      - aiTap: Go\n")
    code, out, err = farm_run("s", "--collect-only")
    assert code == 4 and SECRET not in out + err
    assert err.splitlines()[1].endswith(
        f"a value holding ': ' must be quoted: {var}: \"<its value>\"")


def test_a_step_text_holding_a_colon_is_shown_quoted_in_the_hint(farm_run, tmp_path):
    _write(tmp_path / "s" / "c.yaml", HEAD + "      - assertText: Total: $5\n")
    _, _, err = farm_run("s", "--collect-only")
    assert err.splitlines()[1].endswith("must be quoted: assertText: \"Total: $5\"")


@pytest.mark.parametrize("line", [f"vars: API_TOKEN={SECRET}", f"vars:\n  API_TOKEN {SECRET}"])
def test_vars_written_as_one_string_are_refused_without_printing_it(farm_run, tmp_path, line):
    _write(tmp_path / "s" / "farm.yaml", line + "\n")
    _write(tmp_path / "s" / "c.yaml", HEAD + "      - aiTap: Go\n")
    code, out, err = farm_run("s", "--collect-only")
    assert code == 4 and SECRET not in out + err
    assert err.splitlines()[1].endswith(
        "vars: expected a mapping of variable name to value (`NAME: value`, one a line), "
        "got a string")
