"""A model's JSON answer followed by prose that has braces of its own ('{"data": 3} note:
{x}') was unreadable: the reader cut from the first "{" to the last "}" and gave up, so the
answer cost a second request (and two such replies made the case a model error). The first
complete JSON value is read when that cut does not parse."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.llm.plan import ReplyParseError, loads_lenient


@pytest.mark.parametrize("text, value", [
    ('{"data": 1} note: {x}', {"data": 1}),
    ('{"data": [1, 2]} (the list {as shown})', {"data": [1, 2]}),     # not its inner list
    ('Answer: {"pass": false, "thought": "no {badge}"} -- {end}',
     {"pass": False, "thought": "no {badge}"}),
    ('[{"a": 1}, {"b": 2}] note {x}', [{"a": 1}, {"b": 2}]),
    ('rows: [1, 2] then {oops}', [1, 2]),
])
def test_the_first_complete_value_is_read_when_prose_after_it_has_braces(text, value):
    assert loads_lenient(text) == value


def test_a_cut_that_parses_is_still_preferred():
    assert loads_lenient('Here: [1, 2] and {"a": 1}') == {"a": 1}


@pytest.mark.parametrize("text", ["{x} then {y}", "{a: 1} {b", "[" * 100_000 + "x",
                                  # a list in prose is no answer: the marks reader's turn
                                  'option [1] or [2]: do(action="Tap", element=[500,437])'])
def test_what_holds_no_complete_value_stays_unreadable(text):
    with pytest.raises(ReplyParseError):
        loads_lenient(text)


def test_an_ai_query_answered_with_a_note_after_it_is_one_call():
    model = ScriptedModelClient(['{"data": 3, "thought": "3 rows"} note: {rows are 1-3}'])
    agent = Agent(FakeDevice(UITree(source="dom", page_text="3 rows", nodes=[])),
                  ModelSet.single(model))
    assert agent.ai_query("how many rows", "aiNumber") == 3
    assert model.calls == 1
