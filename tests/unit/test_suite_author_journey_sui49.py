"""A suite author's journey: problems that hid others, vacuous steps, misleading hints."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites


def _errors(paths, **kw) -> list[str]:
    with pytest.raises(SuiteErrors) as info:
        load_suites(paths, env={}, **kw)
    return [str(e) for e in info.value.errors]


def _suite(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "s"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


CASE = "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n"


def test_a_gbk_dotenv_is_said_once_with_every_other_problem_sui49(tmp_path):
    root = _suite(tmp_path, {"a.yaml": CASE + "      - aiTapp: Login\n"
                                              "      - aiTap: ${FOO}\n"})
    dotenv = tmp_path / ".env"
    dotenv.write_bytes("FOO=你好世界\n".encode("gbk"))
    errors = _errors([root], dotenv=dotenv)
    assert sum("not UTF-8" in e for e in errors) == 1
    assert any("aiTapp" in e for e in errors)
    # FOO is set there: not also "undefined"
    assert not any("undefined variable" in e for e in errors), errors


ONE = CASE + "      - sleep: 1\n"


@pytest.mark.parametrize("setup, said", [
    ("e.yaml", "setup: e.yaml is this batch file, not a case"),
    ("other.yaml", "setup: other.yaml is a batch file, not a case")])
def test_a_batch_setup_that_is_a_batch_file_is_refused_at_its_line_sui49(tmp_path, setup, said):
    root = _suite(tmp_path, {
        "e.yaml": f"shareBrowserContext: true\nsetup: {setup}\nfiles:\n  - one.yaml\n",
        "other.yaml": "files:\n  - one.yaml\n", "one.yaml": ONE})
    errors = _errors([root / "e.yaml"])
    assert any(said in e and "e.yaml:2:" in e for e in errors), errors


@pytest.mark.parametrize("step, said", [
    ("aiScroll: list\n        keyName: Enter",
     "unknown option 'keyName' for aiScroll (keyName is an option of aiKeyboardPress"),
    ("aiInput: box\n        value: x\n        keyName: Enter",
     "unknown option 'keyName' for aiInput (keyName is an option of aiKeyboardPress"),
    ("assertText: Hi\n        timeout: 100",
     "unknown option 'timeout' for assertText (timeout is an option of waitForText, aiWaitFor, "
     "which wait up to it for the text or condition; assertText checks once, at once)"),
    ("aiTap: Login\n        value: x",
     "unknown option 'value' for aiTap (value is an option of aiInput, which types it)")])
def test_an_option_of_another_step_kind_says_which_kind_takes_it_sui49(tmp_path, step, said):
    root = _suite(tmp_path, {"a.yaml": CASE + f"      - {step}\n"})
    errors = _errors([root])
    assert any(said in e for e in errors), errors
    assert not any("did you mean 'name'" in e for e in errors), errors


ANCHORED = (CASE + "      - aiTap: &f Login\n"      # line 6
                   "      - aiTapp: x\n"            # line 7
                   "      - aiTap: *f\n"            # line 8
                   "      - waitForText: Hi\n"
                   "        timeot: 3\n")           # line 10


def test_an_anchor_is_said_with_each_alias_and_the_rest_still_checked_sui49(tmp_path):
    errors = _errors([_suite(tmp_path, {"a.yaml": ANCHORED})])
    assert [e.split(": ", 1)[0].rsplit(":", 2)[-2] for e in errors] == ["6", "7", "8", "10"]
    assert "found anchor &f" in errors[0] and "found *f, the anchor at line 6" in errors[2]
    assert "aiTapp" in errors[1] and "timeot" in errors[3]


def test_a_merged_alias_is_said_not_its_keys_as_missing_sui49(tmp_path):
    errors = _errors([_suite(tmp_path, {"a.yaml": (
        "base: &b\n  url: https://example.com\nweb:\n  <<: *b\n  viewportWidth: 800\n"
        "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")})])
    assert not any("url is missing" in e or "'<<'" in e for e in errors), errors
    assert any("found *b" in e for e in errors)


def test_aliases_of_aliases_are_not_walked_exponentially_sui49(tmp_path):
    lines = ["x0: &a0 [1, 2]"] + [f"x{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 40)]
    errors = _errors([_suite(tmp_path, {"a.yaml": "\n".join(lines) + "\n" + CASE
                                         + "      - sleep: 1\n"})])
    assert [e for e in errors if "aliases" in e] == [
        f"{tmp_path}/s/a.yaml:1:5: YAML aliases are not allowed in suite files (found anchor "
        "&a0, and *a0 inside an anchored value at line 2); repeat the value instead"]


def test_a_variable_whose_definition_failed_is_not_also_undefined_sui49(tmp_path):
    root = _suite(tmp_path, {
        "farm.yaml": "vars:\n  USERS: [demo, alice]\n  QA: ${USERS}/x\n",
        "a.yaml": CASE + "      - aiInput: Name\n        value: ${USERS}\n"
                         "      - aiInput: Name\n        value: ${OWN}\n"
                         "      - aiInput: Name\n        value: ${TYPO}\n"
                         "vars:\n  OWN: {a: 1}\n"})
    errors = _errors([root])
    assert not any("undefined variable ${USERS}" in e or "${OWN}" in e for e in errors), errors
    assert any("undefined variable ${TYPO}" in e for e in errors)
    assert any("vars.USERS: expected a string or number, got a list" in e for e in errors)


def test_a_farm_yaml_that_does_not_read_leaves_no_undefined_follow_ons_sui49(tmp_path):
    root = _suite(tmp_path, {
        "farm.yaml": "timeout: 60\n  retries: 1\napps:\n  shop:\n    serve: .\n    env: URL\n",
        "a.yaml": "web:\n  url: ${URL}/index.html\ntasks:\n  - name: t\n    flow:\n"
                  "      - aiTapp: x\n"})
    errors = _errors([root])
    assert not any("undefined variable" in e for e in errors), errors
    assert any("aiTapp" in e for e in errors) and any("farm.yaml:2" in e for e in errors)


@pytest.mark.parametrize("step, said", [
    ("waitForText: ${EMPTY_SUI49:-}\n        timeout: 1000",
     "waitForText: ${EMPTY_SUI49:-} comes out empty (${EMPTY_SUI49} is not set, its default "
     "empty): a check of an empty text checks nothing"),
    ("assertText: ${BLANK}", "assertText: ${BLANK} comes out empty (${BLANK} is empty (from "
                             "vars:))"),
    ("assertNoText: ${BLANK} ${BLANK}", "assertNoText: ${BLANK} ${BLANK} comes out empty"),
    ("aiTap: ${BLANK}", "aiTap: ${BLANK} comes out empty (${BLANK} is empty (from vars:)): it "
                        "has no target to look for"),
    ("aiAssert: ${BLANK}", "aiAssert: ${BLANK} comes out empty")])
def test_a_text_that_comes_out_empty_at_load_is_refused_sui49(tmp_path, step, said):
    root = _suite(tmp_path, {"a.yaml": CASE + f"      - {step}\nvars:\n  BLANK: ''\n"})
    errors = _errors([root])
    assert any(said in e for e in errors), errors


def test_a_text_with_a_value_or_a_secret_is_left_to_run_time_sui49(tmp_path):
    root = _suite(tmp_path, {"a.yaml": CASE + "      - assertText: ${HI}\n"
                                              "      - assertText: ${BLANK:-fallback}\n"
                                              "      - assertText: ${TOKEN}\n"
                                              "vars:\n  HI: hi\n  BLANK: ''\n  TOKEN: ''\n"
                                              "secrets: [TOKEN]\n"})
    [suite] = load_suites([root], env={})
    assert len(suite.cases) == 1


def test_a_check_text_empty_at_run_time_fails_the_step_naming_it_sui49():
    from types import SimpleNamespace

    from farm.errors import StepFailed
    from farm.runner import _text
    from farm.suite.model import Step
    from farm.suite.vars import Variables
    run = SimpleNamespace(vars=Variables({"TOKEN": ""}, frozenset({"TOKEN"})))
    step = Step(kind="waitForText", value="${TOKEN}", line=3, column=9)
    with pytest.raises(StepFailed, match=r"waitForText: \$\{TOKEN\} came out empty \(\$\{TOKEN\}"):
        _text(run, step)
    assert _text(run, Step(kind="assertText", value="hi", line=3, column=9)) == "hi"


@pytest.mark.parametrize("written, seconds", [("1m", 60.0), ("90s", 90.0), ("1h30m", 5400.0),
                                              ("45", 45.0)])
def test_a_case_timeout_takes_the_durations_farm_run_takes_sui49(tmp_path, written, seconds):
    root = _suite(tmp_path, {"a.yaml": f"timeout: {written}\n" + ONE})
    [suite] = load_suites([root], env={})
    assert suite.cases[0].timeout == seconds


def test_a_case_timeout_that_is_no_duration_says_the_forms_sui49(tmp_path):
    errors = _errors([_suite(tmp_path, {"a.yaml": "timeout: 1 min\n" + ONE})])
    assert any("timeout: expected seconds as a number > 0, got the string '1 min' (or a "
               "duration, as farm run --timeout takes: 90s, 5m, 1h30m)" in e for e in errors)


def test_tags_as_one_string_says_the_list_to_write_sui49(tmp_path):
    errors = _errors([_suite(tmp_path, {"a.yaml": "tags: smoke, fast\n" + ONE})])
    assert any("tags: expected a list of strings, got the string 'smoke, fast': write "
               "tags: [smoke, fast]" in e for e in errors), errors


def test_a_default_over_a_value_built_from_a_secret_is_left_to_run_time_sui49(tmp_path):
    """``AUTH: ${TOKEN:-}`` with TOKEN a secret: TOKEN's value comes at run time (the
    environment has it), so AUTH is not its default's empty text at load."""
    root = _suite(tmp_path, {"farm.yaml": "vars:\n  AUTH: ${TOKEN:-}\nsecrets: [TOKEN]\n",
                             "a.yaml": CASE + "      - assertText: ${AUTH}\n"})
    [suite] = load_suites([root], env={"TOKEN": "abc"})
    assert len(suite.cases) == 1
    errors = _errors([_suite(tmp_path, {"b.yaml": "web:\n  url: https://example.com\n"
                                                  "  viewportWidth: ${AUTH}\n"
                                                  "tasks:\n  - name: t\n    flow:\n"
                                                  "      - sleep: 1\n"})])
    assert any("${AUTH} is built from ${TOKEN}, a secret (secrets:); a number" in e
               for e in errors), errors
