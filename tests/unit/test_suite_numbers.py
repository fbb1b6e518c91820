"""Numbers in suite files as Midscene reads them: js-yaml (YAML 1.2) reads ``1e3`` as 1000, and
JavaScript has one number type, so ``1e3`` and ``1000.0`` are whole numbers wherever an integer
is expected. A number in quotes is a string: only ``sleep:`` takes one (Midscene parses it), any
other number field refuses it saying how to write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = """\
web:
  url: about:blank
  viewportWidth: {width}
tasks:
  - name: t
    flow:
      - sleep: {sleep}
      - waitForText: Welcome
        timeout: {timeout}
"""


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict | None = None,
         **fields: str):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "case.yaml").write_text(CASE.format(**fields))
    [suite] = load_suites(["s"], env=env or {}, dotenv=None)
    return suite.cases[0]


def test_exponent_notation_is_a_number_as_in_yaml_1_2(tmp_path, monkeypatch):
    case = load(tmp_path, monkeypatch, width="1.28e3", sleep="1e3", timeout="5E+2")
    sleep, wait = case.tasks[0].steps
    assert (case.web.viewport_width, sleep.value, wait.timeout_ms) == (1280, "1000", 500)
    case = load(tmp_path, monkeypatch, width="1280.0", sleep="2.5e2", timeout="500")
    assert (case.web.viewport_width, case.tasks[0].steps[0].value) == (1280, "250")
    case = load(tmp_path, monkeypatch, {"DELAY": "1e3"}, width="1280", sleep="${DELAY}",
                timeout="500")           # a variable's value is typed as if written there
    assert case.tasks[0].steps[0].value == "1000"


def test_a_number_still_has_to_be_whole_where_a_whole_one_is_expected(tmp_path, monkeypatch):
    with pytest.raises(SuiteErrors) as caught:
        load(tmp_path, monkeypatch, width="1280", sleep="1.5e0", timeout="1e-1")
    assert [str(e) for e in caught.value.errors] == [
        "s/case.yaml:7:16: sleep: expected milliseconds as a non-negative integer, got the "
        "number 1.5e0",
        "s/case.yaml:9:18: waitForText timeout: expected milliseconds as a positive integer, "
        "got the number 1e-1"]


def test_a_quoted_number_is_taken_by_sleep_only_and_refused_saying_so(tmp_path, monkeypatch):
    with pytest.raises(SuiteErrors) as caught:
        load(tmp_path, monkeypatch, width='"1280"', sleep='"1000"', timeout="'500'")
    assert [str(e) for e in caught.value.errors] == [
        "s/case.yaml:3:18: web.viewportWidth: expected pixels as a positive integer, got the "
        "string '1280' (in quotes a number is a string: write 1280 without quotes)",
        "s/case.yaml:9:18: waitForText timeout: expected milliseconds as a positive integer, "
        "got the string '500' (in quotes a number is a string: write 500 without quotes)"]
    case = load(tmp_path, monkeypatch, width="1280", sleep='"1000"', timeout="500")
    assert case.tasks[0].steps[0].value == "1000"


def test_a_text_field_keeps_an_exponent_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "case.yaml").write_text(
        "web:\n  url: about:blank\ntasks:\n  - name: 1e3\n    flow:\n      - aiInput: Code\n"
        "        value: 2E5\n")
    [suite] = load_suites(["s"], env={}, dotenv=None)
    task = suite.cases[0].tasks[0]
    assert (task.name, task.steps[0].value) == ("1e3", "2E5")
