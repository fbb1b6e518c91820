"""What aiAssert / aiWaitFor and aiNumber make of an answer that is not quite what was asked:

* "pass": "false" (quoted) is a failed assertion, "pass": "true" a passed one (they were model
  errors after a retry); "pass": 1 is still unreadable, and the message quotes the answer as
  JSON ("pass": 1), not Python's repr ({'pass': 1});
* aiNumber's NaN or Infinity is not a number: asked again, then a model error (it passed with
  null as the step's output).
"""

from __future__ import annotations

import pytest

from farm.agent.insight import judge, query
from farm.errors import ModelUnavailable
from farm.llm.client import ScriptedModelClient


def asker(*replies: str):
    asked: list[list] = []
    replies_left = list(replies)

    def ask(purpose, messages, client):
        asked.append(messages)
        return replies_left.pop(0) if len(replies_left) > 1 else replies_left[0]
    return ask, asked


CLIENT = ScriptedModelClient([])
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


@pytest.mark.parametrize("answer, verdict", [('{"pass": "false", "thought": "no Go"}', False),
                                             ('{"pass": " TRUE ", "thought": "Go"}', True),
                                             ('{"pass": false, "thought": "no Go"}', False)])
def test_a_quoted_verdict_is_read(answer, verdict):
    ask, asked = asker(answer)
    assert judge(ask, CLIENT, "there is a Go button", PNG)[0] is verdict
    assert len(asked) == 1


def test_an_unreadable_verdict_is_quoted_as_json():
    ask, asked = asker('{"pass": 1}')
    with pytest.raises(ModelUnavailable) as got:
        judge(ask, CLIENT, "there is a Go button", PNG)
    assert len(asked) == 2
    assert 'expected {"pass": true|false, "thought": "..."}, got {"pass": 1}' in str(got.value)


@pytest.mark.parametrize("answer", ['{"data": NaN}', '{"data": Infinity}', '{"data": "inf"}'])
def test_nan_is_not_a_number(answer):
    ask, asked = asker(answer)
    with pytest.raises(ModelUnavailable, match="expected a number, got"):
        query(ask, CLIENT, "how many buttons", "aiNumber", PNG)
    assert len(asked) == 2
    assert "expected a number" in asked[1][-1]["content"]


def test_a_number_is_still_a_number():
    ask, _ = asker('{"data": "$1,234.50"}')
    assert query(ask, CLIENT, "the total", "aiNumber", PNG) == 1234.5
