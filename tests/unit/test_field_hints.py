"""An input field named by its hint on a phone: Android 16's uiautomator writes the hint as an
attribute (kept as the field's placeholder); older dumps show it as the empty field's text only,
so the text tier remembers which field the words named once it is filled."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocatorChain, TextMatchTier
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.native_tree import parse_uiautomator
from farm.errors import LocateError, NeedsModel

DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0"><node index="0" text="demo" resource-id="com.x:id/user"
 class="android.widget.EditText" package="com.x" content-desc="" clickable="true" enabled="true"
 bounds="[0,0][500,100]" hint="Enter your username" /></hierarchy>"""


def test_android_16_hint_attribute_is_the_fields_placeholder():
    node = parse_uiautomator(DUMP, 1080, 2400).nodes[0]
    assert node.placeholder == "Enter your username" and node.text == "demo" and node.editable


def _field(text: str, rid: str = "user", y: int = 0) -> UINode:
    return UINode(id=y, role="android.widget.EditText", text=text, resource_id=rid,
                  rect=Rect(x=0, y=y, width=500, height=100), clickable=True, editable=True)


def test_the_text_tier_finds_a_filled_field_by_the_hint_it_showed():
    empty = UITree(source="uiautomator", nodes=[_field("Search box")])
    filled = UITree(source="uiautomator", nodes=[_field("first")])
    device = FakeDevice(screens={"empty": empty, "filled": filled}, platform="android")
    chain = LocatorChain([TextMatchTier()])
    hit = chain.locate("Search box", device)
    device.screen = "filled"
    again = chain.locate("Search box", device)
    assert again.rect == hit.rect and "named before it was filled" in again.description
    # two fields of that id (a list of rows): no guess
    device.screens["filled"] = UITree(source="uiautomator",
                                      nodes=[_field("first"), _field("other", y=200)])
    with pytest.raises((LocateError, NeedsModel)):
        chain.locate("Search box", device)
