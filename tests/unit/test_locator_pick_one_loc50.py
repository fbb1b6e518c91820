"""An ambiguous target's example XPath selects the element the message lists, not the <body>
around it: innermost matches only, and where the page answers XPath, the index it finds
inside the second listed element."""

from __future__ import annotations

import pytest

from farm.agent.locator import default_chain
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError

INNER = ('//*[contains(normalize-space(), "购物车") and '
         'not(*[contains(normalize-space(), "购物车")])]')


def node(i: int, role: str, y: int, parent: int | None = None, **kw) -> UINode:
    return UINode(id=i, role=role, parent=parent, rect=Rect(x=10, y=y, width=300, height=30),
                  **kw)


PAGE = UITree(source="dom", nodes=[
    node(0, "body", 0), node(1, "button", 40, 0, text="加入购物车", clickable=True),
    node(2, "a", 120, 0, text="查看购物车", clickable=True),
])


def ambiguous_message(device: FakeDevice) -> str:
    with pytest.raises(LocateError) as err:
        default_chain().locate("购物车", device)
    return str(err.value)


def test_the_example_selects_innermost_matches_loc50():
    said = ambiguous_message(FakeDevice(PAGE))
    assert f"(on a web page e.g. ({INNER})[2])" in said, said


def test_the_index_is_the_one_the_page_finds_in_the_second_listed_loc50():
    device = FakeDevice(PAGE)
    # a match the message does not list comes first: the second listed is the third
    device.xpaths = {INNER: [Rect(x=10, y=0, width=5, height=5), PAGE.nodes[1].rect,
                             PAGE.nodes[2].rect],
                     f"({INNER})[3]": [PAGE.nodes[2].rect]}
    said = ambiguous_message(device)
    assert f"(here ({INNER})[3] is the second one listed)" in said, said


def test_no_example_when_the_page_answers_none_of_the_listed_loc50():
    device = FakeDevice(PAGE)
    device.xpaths = {INNER: [Rect(x=0, y=0, width=600, height=400)]}
    said = ambiguous_message(device)
    assert said.endswith("pick one with xpath: or say more of it: its section, its neighbour")
