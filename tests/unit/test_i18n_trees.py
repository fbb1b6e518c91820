"""A Chinese app's screen on a phone: CJK text, emoji and a stray control character in an app's
text (a pasted ANSI colour, a backspace from a server message) still give a readable UI tree."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from farm.devices.android import focus_problem
from farm.devices.native_tree import parse_uiautomator, parse_wda, query_xml
from farm.devices.sim.trees import uiautomator_xml, wda_xml
from farm.text import xml_chars


def _node(i: int, role: str, text: str, **kw: object) -> dict:
    return {"id": i, "parent": None, "role": role, "text": text, "name": "", "placeholder": "",
            "resource_id": "", "rect": {"x": 10, "y": 10 + 50 * i, "width": 200, "height": 40},
            "clickable": role == "button", "editable": False, "visible": True, **kw}


DOM = {"nodes": [_node(0, "p", "控制\x01字符\x1b[31m红\x08"), _node(1, "button", "登录 😀"),
                 _node(2, "p", "價格：¥12.50\ufffe")]}

DUMP = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        '<node index="0" text="" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">'
        '<node index="0" text="警告\x1b[31m红" class="android.widget.TextView" '
        'bounds="[0,0][500,100]" />'
        '<node index="1" text="登录&#x1;" class="android.widget.Button" focused="true" '
        'clickable="true" bounds="[0,100][500,200]" /></node></hierarchy>')


def test_a_dump_with_a_control_character_in_an_apps_text_still_parses():
    tree = parse_uiautomator(DUMP, 1080, 2400)
    assert [n.text for n in tree.nodes][1:] == ["警告[31m红", "登录"]
    button = next(n for n in tree.nodes if n.text == "登录")
    assert query_xml(DUMP, "//node[@text='登录']", tree) == [button.rect]


def test_the_focus_check_reads_a_dump_with_a_control_character():
    """Unreadable, the dump said nothing was wrong and a tap that focused a button passed as
    a text field's."""
    assert focus_problem(DUMP) == 'the focus is on Button "登录"'


def test_a_wda_source_with_a_control_character_still_parses():
    source = ('<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="App">'
              '<XCUIElementTypeButton type="XCUIElementTypeButton" label="登录\x1b" value="" '
              'x="1" y="2" width="30" height="40" visible="true"/></XCUIElementTypeApplication>')
    [button] = parse_wda(source, 390, 844).nodes
    assert button.name == "登录"


def test_the_simulators_write_what_real_devices_write_for_such_characters():
    """uiautomator writes "." for a character XML cannot hold, WebDriverAgent drops it: the
    simulated dump and source are well-formed XML for any parser, as a phone's are."""
    dump = uiautomator_xml(DOM, "com.x", 1080, 2400, 2.5)
    texts = [n.get("text") for n in ET.fromstring(dump.encode()).iter("node")][1:]
    assert texts == ["控制.字符.[31m红.", "登录 😀", "價格：¥12.50."]
    source = wda_xml(DOM, "com.x", 390, 844)
    labels = [e.get("label") for e in ET.fromstring(source.encode())]
    assert labels == ["控制字符[31m红", "登录 😀", "價格：¥12.50"]


def test_xml_chars_keeps_text_and_drops_only_what_xml_cannot_hold():
    assert xml_chars("中文\t\n\r😀&#9;&#x4E2D;") == "中文\t\n\r😀&#9;&#x4E2D;"
    assert xml_chars("a\x00b\x1bc&#1;&#x1B;&#xFFFE;&#x110000;d", ".") == "a.b.c....d"
