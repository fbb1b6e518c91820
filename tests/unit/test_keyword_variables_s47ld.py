"""A field that takes one of a fixed set of words (``direction:``, ``scrollType:``, ``mode:``,
runWdaRequest's ``method:``) written as one ``${NAME}``: Midscene substitutes variables across
the whole file before it parses it, so ``direction: ${DIR}`` with DIR=down scrolls down there.
farm reads it when the suite loads, as it reads a number field's; a wrong value names the
variable and its value; a secret never gives it a value (it would be shown in the report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = """\
web:
  url: about:blank
tasks:
  - name: t
    flow:
      - aiInput: Q
        value: a
        mode: ${MODE}
      - aiScroll:
          scrollType: ${ST}
          direction: ${DIR:-down}
"""
IOS = """\
ios:
  launch: com.example.app
tasks:
  - name: t
    flow:
      - runWdaRequest:
          method: ${VERB}
          endpoint: /status
"""


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, env: dict[str, str]):
    monkeypatch.chdir(tmp_path)          # messages name s/case.yaml; no stray .env is read
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "case.yaml").write_text(text)
    [suite] = load_suites(["s/case.yaml"], env=env)
    return suite.cases[0]


def errors(tmp_path, monkeypatch, text, env) -> list[str]:
    with pytest.raises(SuiteErrors) as raised:
        load(tmp_path, monkeypatch, text, env)
    return [str(e) for e in raised.value.errors]


def test_keyword_fields_take_the_variables_values(tmp_path, monkeypatch):
    case = load(tmp_path, monkeypatch, CASE, {"MODE": "typeOnly", "ST": "untilBottom"})
    typed, scroll = case.tasks[0].steps
    assert typed.options["mode"] == "typeOnly"
    assert scroll.options == {"direction": "down",             # DIR's default
                              "scrollType": "scrollToBottom"}   # an alias, as when written
    case = load(tmp_path, monkeypatch, IOS, {"VERB": "post"})
    assert case.tasks[0].steps[0].options["method"] == "POST"


def test_a_wrong_value_names_the_variable_and_its_value(tmp_path, monkeypatch):
    said = errors(tmp_path, monkeypatch, CASE, {"MODE": "typeOnly", "ST": "sideways",
                                                "DIR": "Up"})
    assert said == [
        "s/case.yaml:10:23: aiScroll scrollType: expected one of singleAction, scrollToBottom, "
        "scrollToTop, scrollToLeft, scrollToRight, got ${ST} = 'sideways' (from the "
        "environment)",
        "s/case.yaml:11:22: aiScroll direction: expected one of up, down, left, right, got "
        "${DIR} = 'Up' (from the environment) (did you mean 'up'?)"]
    said = errors(tmp_path, monkeypatch, IOS, {"VERB": "FETCH"})
    assert said == ["s/case.yaml:7:19: runWdaRequest method: expected one of GET, POST, "
                    "PUT, PATCH, DELETE, got ${VERB} = 'FETCH' (from the environment)"]


def test_a_secret_never_gives_a_keyword_field_its_value(tmp_path, monkeypatch):
    text = "secrets: [MODE]\nvars:\n  MODE: typeOnly\n" + CASE.replace("${ST}", "${API_TOKEN}")
    said = errors(tmp_path, monkeypatch, text, {"API_TOKEN": "0123456789abcdef"})
    assert said == [
        "s/case.yaml:11:15: aiInput mode: ${MODE} is a secret (secrets:); a field with a fixed "
        "set of values takes its value when the suite loads, from the environment, .env or "
        "vars:, never from a secret (write the value here, or use a variable that is not "
        "secret)",
        "s/case.yaml:13:23: aiScroll scrollType: expected one of singleAction, scrollToBottom, "
        "scrollToTop, scrollToLeft, scrollToRight, got ${API_TOKEN} = *** (from the "
        "environment)"]


def test_an_undefined_variable_is_reported_once(tmp_path, monkeypatch):
    said = errors(tmp_path, monkeypatch, CASE, {"MODE": "replace"})
    assert said == ["s/case.yaml:10:23: undefined variable ${ST} (set it in the environment, "
                    "a .env file in the working directory, vars:, or a secrets dir)"]


EMULATION = """\
web:
  url: about:blank
  permissions:
    - ${PERM}
  timezoneId: ${TZ}
  colorScheme: ${CS}
tasks:
  - name: t
    flow:
      - sleep: 1
"""


def test_web_emulation_words_name_the_variable_and_its_value(tmp_path, monkeypatch):
    case = load(tmp_path, monkeypatch, EMULATION, {"PERM": "geolocation", "TZ": "UTC",
                                                   "CS": "dark"})
    assert (case.web.permissions, case.web.timezone_id, case.web.color_scheme) == (
        ["geolocation"], "UTC", "dark")
    said = errors(tmp_path, monkeypatch, EMULATION, {"PERM": "geo", "TZ": "Mars", "CS": "dark"})
    assert [s.split(" is no ")[0] for s in said] == [
        "s/case.yaml:4:7: web.permissions: ${PERM} = 'geo' (from the environment)",
        "s/case.yaml:5:15: web.timezoneId: ${TZ} = 'Mars' (from the environment)"]
    text = "secrets: [TZ]\nvars:\n  TZ: UTC\n" + EMULATION
    said = errors(tmp_path, monkeypatch, text, {"PERM": "geolocation", "CS": "dark"})
    assert said == ["s/case.yaml:8:15: web.timezoneId: ${TZ} is a secret (secrets:); a time "
                    "zone takes its value when the suite loads, from the environment, .env or "
                    "vars:, never from a secret (write the value here, or use a variable that "
                    "is not secret)"]


@pytest.mark.parametrize("written, at, ref", [
    ("  permissions: [${PERM}]\n", "3:18", "${PERM}"),
    ("  locale: en-GB\n  permissions: [geolocation, ${PERM:-camera}]\n", "4:31",
     "${PERM:-camera}")])
def test_a_placeholder_inside_brackets_is_said_to_need_quotes(tmp_path, monkeypatch, written,
                                                               at, ref):
    """Midscene substitutes before it parses, so ``[${PERM}]`` works there; farm parses the
    YAML first, where the unquoted ``{`` starts a mapping: the syntax error says to quote it
    (``["${PERM}"]``, which then takes the value)."""
    text = EMULATION.replace("  permissions:\n    - ${PERM}\n", written)
    said = errors(tmp_path, monkeypatch, text, {"PERM": "geolocation", "TZ": "UTC", "CS": "dark"})
    assert len(said) == 1 and said[0].startswith(f"s/case.yaml:{at}: invalid YAML: "), said
    assert said[0].endswith(f'; inside [ ] or {{ }} write {ref} in quotes ("{ref}"): there '
                            "YAML takes its { for the start of a mapping"), said
    quoted = text.replace(ref, f'"{ref}"')
    case = load(tmp_path, monkeypatch, quoted, {"PERM": "geolocation", "TZ": "UTC", "CS": "dark"})
    assert "geolocation" in case.web.permissions
