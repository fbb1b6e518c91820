"""A number or true/false field written as one ``${NAME}`` (``viewportWidth: ${VW}``,
``continueOnError: ${SOFT}``, ``sleep: ${DELAY}``): Midscene substitutes variables before it
parses a script, so these are numbers and booleans there. farm reads them when the suite loads,
from the environment or ``vars:`` (never from a secret), then checks them like a literal; a
bad value is reported at its file:line with the variable and its value."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites
from farm.suite.vars import Variables

SUITE = """\
vars:
  RETRIES: "2"
  CYCLES: "50"
timeout: ${CASE_SECONDS:-90}
retries: ${RETRIES}
"""
CASE = """\
vars:
  CYCLES: "7"
web:
  url: http://127.0.0.1:1/
  viewportWidth: ${VW}
  viewportHeight: ${VH:-800}
  acceptInsecureCerts: ${INSECURE}
agent:
  replanningCycleLimit: ${CYCLES}
tasks:
  - name: shop
    continueOnError: ${SOFT}
    flow:
      - sleep: ${DELAY}
      - aiWaitFor: the basket is shown
        timeout: ${WAIT_MS}
"""


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, env: dict[str, str],
         suite: str = SUITE, secrets_dir: Path | None = None):
    monkeypatch.chdir(tmp_path)          # messages name s/case.yaml; no stray .env is read
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "farm.yaml").write_text(suite)
    (tmp_path / "s" / "case.yaml").write_text(case)
    [suite_] = load_suites(["s"], env=env, secrets_dir=secrets_dir)
    return suite_.cases[0]


def errors(tmp_path, monkeypatch, case, env, **kw) -> list[str]:
    with pytest.raises(SuiteErrors) as raised:
        load(tmp_path, monkeypatch, case, env, **kw)
    return [str(e) for e in raised.value.errors]


def test_number_and_boolean_fields_take_the_variables_values(tmp_path, monkeypatch):
    env = {"VW": "1024", "INSECURE": "true", "SOFT": "true", "DELAY": "250",
           "WAIT_MS": "4000", "RETRIES": "1"}          # the environment beats vars:
    case = load(tmp_path, monkeypatch, CASE, env)
    assert (case.web.viewport_width, case.web.viewport_height) == (1024, 800)   # VH's default
    assert case.web.accept_insecure_certs is True
    assert case.agent["replanningCycleLimit"] == 7          # the case's vars: over farm.yaml's
    assert case.tasks[0].continue_on_error is True
    sleep, wait = case.tasks[0].steps
    assert (sleep.value, wait.timeout_ms) == ("250", 4000)
    assert (case.timeout, case.retries) == (90, 1)           # farm.yaml's fields too


def test_a_value_that_is_no_number_names_the_variable_and_its_value(tmp_path, monkeypatch):
    env = {"VW": "wide", "INSECURE": "maybe", "SOFT": "true", "DELAY": "-5", "WAIT_MS": "0"}
    said = errors(tmp_path, monkeypatch, CASE, env)
    assert said == [
        "s/case.yaml:5:18: web.viewportWidth: expected pixels as a positive integer, "
        "got ${VW} = 'wide' (from the environment)",
        "s/case.yaml:7:24: web.acceptInsecureCerts: expected true or false, "
        "got ${INSECURE} = 'maybe' (from the environment)",
        "s/case.yaml:14:16: sleep: expected milliseconds as a non-negative integer, "
        "got ${DELAY} = '-5' (from the environment)",
        "s/case.yaml:16:18: aiWaitFor timeout: expected milliseconds as a positive integer, "
        "got ${WAIT_MS} = '0' (from the environment)"]


def test_a_secret_never_gives_a_number_field_its_value(tmp_path, monkeypatch):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "DELAY").write_text("250\n")
    case = CASE.replace("vars:\n", "secrets: [SOFT]\nvars:\n  SOFT: 'true'\n", 1)
    env = {"VW": "1024", "INSECURE": "true", "WAIT_MS": "4000",
           "LIMIT_TOKEN": "0123456789abcdef"}
    case = case.replace("${CYCLES}", "${LIMIT_TOKEN}")
    said = errors(tmp_path, monkeypatch, case, env, secrets_dir=tmp_path / "secrets")
    assert len(said) == 3, said
    assert said[0].startswith("s/case.yaml:11:25: agent.replanningCycleLimit: expected a "
                              "positive integer, got ${LIMIT_TOKEN} = *** (from the environment)")
    assert said[1].startswith("s/case.yaml:14:22: continueOnError: ${SOFT} is a secret "
                              "(secrets:); a number or true/false field takes its value when "
                              "the suite loads")
    assert said[2].startswith("s/case.yaml:16:16: sleep: ${DELAY} comes from the secrets dir")
    assert not [s for s in said if "0123456789abcdef" in s]


def test_an_undefined_variable_is_reported_once(tmp_path, monkeypatch):
    env = {"VW": "1024", "INSECURE": "true", "SOFT": "true", "DELAY": "250"}
    assert errors(tmp_path, monkeypatch, CASE, env) == [
        "s/case.yaml:16:18: undefined variable ${WAIT_MS} (set it in the environment, a .env "
        "file in the working directory, vars:, or a secrets dir)"]


def test_a_batch_s_number_fields_take_the_variables_values_too(tmp_path, monkeypatch):
    """index.yaml with `retry: ${RETRY}` and `concurrent: ${LANES:-1}`, as Midscene reads it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "one.yaml").write_text(CASE.replace("${", "${X_"))
    (tmp_path / "b" / "index.yaml").write_text(
        "concurrent: ${LANES:-1}\nretry: ${RETRY}\nfiles: [one.yaml]\n")
    env = {"RETRY": "2", **{f"X_{k}": v for k, v in {
        "VW": "800", "INSECURE": "false", "SOFT": "false", "DELAY": "1", "WAIT_MS": "10",
        "CYCLES": "3"}.items()}}
    batches: list = []
    load_suites(["b/index.yaml"], env=env, batches=batches)
    [batch] = batches
    assert (batch.concurrent, batch.retry) == (1, 2)


PLAIN = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - aiTap: go\n"


def test_a_suite_vars_value_refers_to_the_environment_and_other_vars(tmp_path, monkeypatch):
    suite = ("vars:\n  BASE: ${HOST}/index.html\n  SEARCH: ${BASE}?q=mug\n"
             "  SECONDS: ${TENS}0\ntimeout: ${SECONDS}\n")
    case = load(tmp_path, monkeypatch, PLAIN.replace("about:blank", "${SEARCH}"),
                {"HOST": "about:blank", "TENS": "4"}, suite)
    assert case.timeout == 40           # a number field reads it when the suite loads
    env = {"HOST": "http://127.0.0.1:8000"}         # the run's environment
    assert Variables.from_sources(case.vars, env=env).resolve(case.web.url) == \
        "http://127.0.0.1:8000/index.html?q=mug"


def test_vars_that_refer_to_each_other_are_reported_where_written(tmp_path, monkeypatch):
    suite = "vars:\n  A: x${B}\n  B: ${C}\n  C: ${A}/y\n  D: ${D}\n"
    with pytest.raises(SuiteErrors) as caught:
        load(tmp_path, monkeypatch, PLAIN, {}, suite)
    assert [str(e) for e in caught.value.errors] == [
        "s/farm.yaml:2:6: vars.A: refers to itself (${A} -> ${B} -> ${C} -> ${A}): a value "
        "cannot be made of itself",
        "s/farm.yaml:3:6: vars.B: refers to itself (${B} -> ${C} -> ${A} -> ${B}): a value "
        "cannot be made of itself",
        "s/farm.yaml:4:6: vars.C: refers to itself (${C} -> ${A} -> ${B} -> ${C}): a value "
        "cannot be made of itself",
        "s/farm.yaml:5:6: vars.D: refers to itself (${D} -> ${D}): a value cannot be made "
        "of itself"]
