"""aiNumber on a page written with a decimal comma: a model that quotes "1,5" (1.5 kg) or
"1.234,50" is asked again for a JSON number; its answer is never read as 15 or 1.2345."""

import pytest

from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts


def page():
    return FakeDevice(screens={"p": UITree(source="dom", page_text="Gewicht: 1,5 kg")})


@pytest.mark.parametrize("quoted, meant", [("1,5", 1.5), ("1.234,50", 1234.5)])
def test_a_decimal_comma_is_sent_back_not_misread(quoted, meant):
    client = ScriptedModelClient([f'{{"data": "{quoted}"}}', f'{{"data": {meant}}}'])
    assert Agent(page(), ModelSet.single(client)).ai_number("the weight") == meant
    told = message_texts({"messages": client.requests[1]})[-1]
    assert f'expected a number, got "{quoted}"' in told


def test_a_decimal_comma_twice_is_a_model_error_never_a_wrong_number():
    client = ScriptedModelClient(['{"data": "1,5"}'])
    with pytest.raises(ModelUnavailable, match='expected a number, got "1,5"'):
        Agent(page(), ModelSet.single(client)).ai_number("the weight")


@pytest.mark.parametrize("quoted, value", [("$1,234.50", 1234.5), ("12,345", 12345),
                                           ("-1,000", -1000)])
def test_thousands_separators_are_still_read(quoted, value):
    client = ScriptedModelClient([f'{{"data": "{quoted}"}}'])
    assert Agent(page(), ModelSet.single(client)).ai_number("the total") == value
    assert len(client.requests) == 1
