"""`${rowz}` where an earlier step's result is named `rows` said only "undefined variable
${rowz}"; `${rows}` itself is told a step's result is no variable. A near result name gets
the did-you-mean and the same explanation."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = ("name: c\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - javascript: return 3\n        name: rows\n"
        "      - assertText: ${{{ref}}} orders shown\n")


def _said(tmp_path, ref: str, env: dict[str, str]) -> str:
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "c.yaml").write_text(CASE.format(ref=ref))
    with pytest.raises(SuiteErrors) as refused:
        load_suites([tmp_path / "s"], env=env, dotenv=None)
    [error] = refused.value.errors
    return error.message


def test_a_name_near_a_result_is_said_to_be_a_result(tmp_path):
    exact = _said(tmp_path, "rows", {})
    near = _said(tmp_path, "rowz", {})
    assert near == "undefined variable ${rowz}: did you mean ${rows}? " + exact.removeprefix(
        "undefined variable ${rows}: ")
    assert "'rows' is the name of the javascript result at line 7" in near


def test_a_near_variable_is_still_the_suggestion(tmp_path):
    said = _said(tmp_path, "ROWZ", {"ROWS_X": "1", "ROWZ_": "2"})
    assert said.startswith("undefined variable ${ROWZ}: did you mean ${ROWZ_}?"), said
    assert "result" not in said
