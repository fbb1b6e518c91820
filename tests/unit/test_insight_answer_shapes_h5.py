"""What aiBoolean / aiAssert / aiNumber make of answers a model words rather than types.

A "yes" to "is there a Sign in button?" and a "3 items" to "how many items" are answers, not
unreadable replies: sent back and said again, they made the case an *error* (exit 3, as if
the model were down). Magnitudes ("1.5k") and two numbers ("3 of 5") are still sent back,
never guessed. A null's reason may come as Midscene's "errors" list.
"""

from __future__ import annotations

import pytest

from farm.agent.insight import judge, query
from farm.errors import ModelUnavailable, StepFailed
from farm.llm.client import ScriptedModelClient

CLIENT = ScriptedModelClient([])
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def asker(*replies: str):
    asked: list[list] = []

    def ask(purpose, messages, client):
        asked.append(messages)
        return replies[min(len(asked), len(replies)) - 1]
    return ask, asked


@pytest.mark.parametrize("said, value", [("yes", True), ("No", False), ("Yes.", True),
                                         ("true", True), (" FALSE ", False)])
def test_a_yes_or_no_to_ai_boolean_is_its_answer(said, value):
    ask, asked = asker(f'{{"data": "{said}", "thought": "a Sign in button"}}')
    assert query(ask, CLIENT, "is there a Sign in button", "aiBoolean", PNG) is value
    assert len(asked) == 1


def test_a_yes_verdict_passes_the_assertion_with_its_reason():
    ask, asked = asker('{"pass": "yes", "thought": "the badge says Cart (0)"}')
    assert judge(ask, CLIENT, "the cart is empty", PNG) == (True, "the badge says Cart (0)")
    assert len(asked) == 1


@pytest.mark.parametrize("said, value", [("3 items", 3), ("€ 12.50", 12.5), ("42%", 42),
                                         ("¥1,299", 1299), ("-5°C", -5), ("Total: $7", 7)])
def test_one_number_with_its_unit_is_the_number(said, value):
    ask, asked = asker(f'{{"data": "{said}"}}')
    got = query(ask, CLIENT, "the value", "aiNumber", PNG)
    assert got == value and type(got) is type(value)
    assert len(asked) == 1


@pytest.mark.parametrize("said", ["1.5k", "2 million", "10万", "3 of 5", "1.2.3", "1,5",
                                  "a few", "maybe"])
def test_a_number_that_would_be_a_guess_is_sent_back(said):
    ask, asked = asker(f'{{"data": "{said}"}}', '{"data": 1500}')
    assert query(ask, CLIENT, "the value", "aiNumber", PNG) == 1500
    assert len(asked) == 2 and "expected a number" in asked[1][-1]["content"]


@pytest.mark.parametrize("said", ["maybe", "1", "sometimes"])
def test_other_words_are_no_boolean(said):
    ask, _ = asker(f'{{"data": "{said}"}}')
    with pytest.raises(ModelUnavailable, match="expected true or false"):
        query(ask, CLIENT, "is it there", "aiBoolean", PNG)


def test_a_null_s_reason_may_be_midscene_s_errors_list():
    ask, _ = asker('{"data": null, "errors": ["no price is shown"]}')
    with pytest.raises(StepFailed, match=r"it answered null\): no price is shown$"):
        query(ask, CLIENT, "the price", "aiNumber", PNG)
