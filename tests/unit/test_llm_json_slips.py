"""JSON as models write it: a comma before the closing brace ({"pass": false, "thought":
"…",}) and a Python dict ({'pass': False}). The first was unreadable, or worse, the list
inside it was taken for the answer ('{"bbox": [1,2,3,4],}' read as [1, 2, 3, 4]); each cost
a second request, and two such answers in a row ended the case as a model error."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.llm.plan import ReplyParseError, loads_lenient, parse_plan


@pytest.mark.parametrize("text, value", [
    ('{"pass": false, "thought": "no badge",}', {"pass": False, "thought": "no badge"}),
    ('{"bbox": [10, 20, 30, 40],}', {"bbox": [10, 20, 30, 40]}),
    ('{"data": [1, 2,], "x": {"y": 1,},}', {"data": [1, 2], "x": {"y": 1}}),
    ('```json\n{"data": "a, b",}\n```', {"data": "a, b"}),
    ('Here: {"data": "ends with ,}",} done', {"data": "ends with ,}"}),
    ("{'pass': True, 'thought': 'the cart shows 1'}", {"pass": True,
                                                       "thought": "the cart shows 1"}),
    ("{'data': None}", {"data": None}),
])
def test_slips_models_make_are_read(text, value):
    assert loads_lenient(text) == value


@pytest.mark.parametrize("text", ["{a: 1}", "{'s': {1, 2}}", "{'f': len}", "{" * 5000])
def test_what_is_neither_stays_unreadable(text):
    with pytest.raises(ReplyParseError):
        loads_lenient(text)


def test_an_action_s_params_with_a_trailing_comma_are_read():
    plan = parse_plan('<action-type>Tap</action-type><action-param-json>{"locate": '
                      '{"prompt": "Sign in", "bbox": [1, 2, 3, 4]},}</action-param-json>', "xml")
    assert plan.actions[0].params == {"locate": {"prompt": "Sign in", "bbox": [1, 2, 3, 4]}}


def test_a_verdict_with_a_trailing_comma_is_one_call():
    judge = ScriptedModelClient(['{"pass": false, "thought": "the cart is empty",}'])
    agent = Agent(FakeDevice(UITree(source="dom", page_text="Cart (0)", nodes=[])),
                  ModelSet.single(judge))
    with pytest.raises(AssertionFailed, match="failed: the cart is empty$"):
        agent.ai_assert("the cart shows 1 item")
    assert judge.calls == 1
