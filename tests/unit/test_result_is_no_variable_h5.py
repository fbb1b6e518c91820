"""`${price}` in a later step, where `price` is an earlier aiNumber's `name:`, was reported as
"undefined variable ${price} (set it in the environment, a .env file, vars:, or a secrets
dir)": a team moving a Midscene suite was sent to define a variable for what it meant as the
query's answer. The load now says that `price` is that step's result, at its line, and that a
result is no variable (as in Midscene, whose ${} is the environment's)."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = """\
web:
  url: http://127.0.0.1:1/
tasks:
  - name: read
    flow:
      - aiNumber: the price on the product page
        name: price
      - aiAssert: the cart total is ${price}
      - aiTap: ${NOT_SET}
"""


def test_a_result_s_name_used_as_a_variable_is_said_as_such(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "buy.yaml").write_text(CASE)
    with pytest.raises(SuiteErrors) as got:
        load_suites([tmp_path / "s"], env={}, dotenv=None)
    said = "\n".join(str(e) for e in got.value.errors)
    assert ("buy.yaml:8:37: undefined variable ${price}: 'price' is the name of the aiNumber "
            "result at line 6, and a step's result is no variable") in said
    # a name no step has is still an ordinary undefined variable
    assert "undefined variable ${NOT_SET} (set it in the environment" in said


def test_a_variable_that_is_set_is_not_taken_for_the_result(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "buy.yaml").write_text(CASE.replace("${NOT_SET}", "Buy"))
    [case] = [c for s in load_suites([tmp_path / "s"], env={"price": "12"}, dotenv=None)
              for c in s.cases]
    assert case.tasks[0].steps[1].value == "the cart total is ${price}"
