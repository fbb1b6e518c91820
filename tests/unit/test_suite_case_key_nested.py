"""A key of the case indented under its target section (`tasks:` under `web:`) is said as
that, once, at the key: it was "unknown key 'tasks' in web:" beside "missing required key
'tasks'" at line 1, which sent the reader looking for a tasks: that is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

FLOW = "  - name: t\n    flow:\n      - sleep: 1\n"


def _problems(tmp_path: Path, text: str) -> list[tuple[int | None, str]]:
    case = tmp_path / "s" / "c.yaml"
    case.parent.mkdir()
    case.write_text(text, encoding="utf-8")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, dotenv=None)
    return [(e.line, e.message) for e in caught.value.errors]


def test_tasks_indented_under_web_is_one_problem_at_it(tmp_path):
    said = _problems(tmp_path, "name: x\nweb:\n  url: about:blank\n  tasks:\n" + FLOW)
    assert said == [(4, "tasks: is a key of the case, here indented under web: as if an option "
                        "of it: write it at the column of web:")]


def test_the_case_keys_under_android_each_said(tmp_path):
    said = _problems(tmp_path, "android:\n  launch: com.x\n  name: On the phone\n"
                               "  tags: [smoke]\ntasks:\n" + FLOW)
    assert [line for line, _ in said] == [3, 4]
    assert said[1][1].startswith("tags: is a key of the case, here indented under android:")


def test_a_key_the_case_has_already_stays_an_unknown_key_of_the_section(tmp_path):
    said = _problems(tmp_path, "name: x\nweb:\n  url: about:blank\n  name: y\ntasks:\n" + FLOW)
    assert len(said) == 1 and said[0][1].startswith("unknown key 'name' in web:")
