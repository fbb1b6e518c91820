"""A target past the end of a cut-off tree read (a page of more than MAX_NODES elements): the
miss says the read stopped there, and what reaches the rest; before, only "no zero-token match",
as if the element were not on the page."""

from __future__ import annotations

import pytest

from farm.agent.actions import Locate
from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import NeedsModel


def _rows(truncated: bool) -> UITree:
    return UITree(source="dom", truncated=truncated, nodes=[
        UINode(id=i, role="div", text=f"Row {i}", rect=Rect(x=0, y=20 * i, width=200, height=20))
        for i in range(3)])


def test_a_miss_on_a_cut_off_tree_says_the_read_stopped() -> None:
    agent = Agent(FakeDevice(_rows(truncated=True)))
    with pytest.raises(NeedsModel, match=r'"Bottom button" \(the screen has more than 3 '
                                         r"elements and the tree farm read stopped there: an "
                                         r"XPath step or a model reaches the rest\)"):
        agent.locate(Locate(prompt="Bottom button"))


def test_a_miss_on_a_whole_tree_says_nothing_of_it() -> None:
    agent = Agent(FakeDevice(_rows(truncated=False)))
    with pytest.raises(NeedsModel) as caught:
        agent.locate(Locate(prompt="Bottom button"))
    assert "stopped there" not in str(caught.value)
