"""'"Help" is ambiguous: 2 elements match' left the author to guess how to name one: it
says to pick one with xpath: (an example for a web page) or to say more of it."""

from __future__ import annotations

import pytest

from farm.agent.locator import default_chain
from farm.devices.fake import FakeDevice
from farm.errors import LocateError
from tests.unit.test_locator import LOGIN


def test_an_ambiguous_target_says_how_to_pick_one():
    with pytest.raises(LocateError) as info:
        default_chain().locate("Help", FakeDevice(LOGIN))
    assert str(info.value) == (
        '"Help" is ambiguous: 2 elements match; pick one with xpath: (on a web page e.g. '
        '(//*[normalize-space()="Help" and not(*[normalize-space()="Help"])])[2]) or say more '
        'of it: its section, its neighbour')
    assert info.value.candidates[0].startswith('"Help" (a) at [10, 200')


def test_a_prompt_with_both_quotes_gets_no_example():
    from farm.agent.locator import ambiguous
    said = str(ambiguous("it's \"x\"", "words", ["a", "b"]))
    assert said.endswith("2 elements contain it; pick one with xpath: or say more of it: its "
                         "section, its neighbour")
