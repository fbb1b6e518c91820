"""A locate step whose target is of the wrong type (`aiTap: [1, 2]`, `aiInput: [a]`) gets one
problem, the wrong type: it also got "expected a target description ... got nothing" at the same
place, which is not what the file says (an empty `prompt:` too)."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

WEB = "name: x\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"


@pytest.mark.parametrize("step, said", [
    ("      - aiTap: [1, 2]\n", "aiTap: expected a target description, got a list"),
    ("      - aiInput: [a]\n        value: v\n",
     "aiInput target: expected a target description, got a list"),
    ("      - aiTap: {prompt: ''}\n", "aiTap prompt: expected the prompt text, got an empty "
                                     "string"),
    ("      - aiTap:\n", "aiTap: expected a target description (`aiTap: <target>`) or an "
                         "`xpath:`, got nothing"),
])
def test_a_target_of_the_wrong_type_is_one_problem(tmp_path, step, said):
    case = tmp_path / "s" / "c.yaml"
    case.parent.mkdir()
    case.write_text(WEB + step, encoding="utf-8")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([case], env={}, dotenv=None)
    assert [(e.line, e.message) for e in caught.value.errors] == [(7, said)]
