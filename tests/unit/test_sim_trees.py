"""Native trees generated from a DOM, and parsed back by the drivers' parsers."""

from __future__ import annotations

import pytest

from farm.devices.native_tree import parse_uiautomator, parse_wda, query_xml
from farm.devices.sim.screen import Faults
from farm.devices.sim.trees import EMPTY_UIAUTOMATOR, uiautomator_xml, wda_xml

DOM = {"nodes": [
    {"id": 0, "parent": None, "role": "form", "text": "", "name": "", "placeholder": "",
     "resource_id": "login", "rect": {"x": 10, "y": 20, "width": 300, "height": 200},
     "clickable": False, "editable": False, "visible": True},
    {"id": 1, "parent": 0, "role": "input:password", "text": "", "name": "",
     "placeholder": "Enter your password", "resource_id": "password",
     "rect": {"x": 10, "y": 40, "width": 300, "height": 40}, "clickable": True,
     "editable": True, "visible": True},
    {"id": 2, "parent": 0, "role": "button", "text": "Sign in & go", "name": "",
     "placeholder": "", "resource_id": "", "rect": {"x": 10, "y": 100, "width": 100,
                                                     "height": 40},
     "clickable": True, "editable": False, "visible": True},
]}


def test_uiautomator_dump_has_real_format_and_pixel_bounds():
    xml = uiautomator_xml(DOM, "com.x", 1080, 2400, 2.5)
    assert xml.startswith("<?xml") and '<hierarchy rotation="0">' in xml
    assert 'bounds="[25,250][275,350]"' in xml           # button: CSS × 2.5
    assert 'resource-id="com.x:id/password"' in xml and 'password="true"' in xml
    tree = parse_uiautomator(xml, 1080, 2400)
    button = next(n for n in tree.nodes if n.text == "Sign in & go")
    assert button.role == "android.widget.Button" and button.clickable
    assert (button.rect.x, button.rect.y, button.rect.width) == (25, 250, 250)
    field = next(n for n in tree.nodes if n.editable)
    assert field.text == "Enter your password" and field.resource_id == "password"
    assert query_xml(xml, "//node[@text='Sign in & go']", tree) == [button.rect]


def test_empty_dump_parses_to_no_nodes():
    assert parse_uiautomator(EMPTY_UIAUTOMATOR, 1080, 2400).nodes == []


def test_wda_source_is_in_points_with_types():
    xml = wda_xml(DOM, "com.x", 390, 844)
    assert "<XCUIElementTypeApplication" in xml and "XCUIElementTypeSecureTextField" in xml
    tree = parse_wda(xml, 390, 844)
    button = next(n for n in tree.nodes if n.role == "XCUIElementTypeButton")
    assert button.text == "Sign in & go" and button.rect.as_list() == [10, 100, 100, 40]
    field = next(n for n in tree.nodes if n.editable)
    assert field.placeholder == "Enter your password" and field.text == ""
    rects = query_xml(xml, "//XCUIElementTypeButton", tree)
    assert rects == [button.rect]


def test_fault_counts():
    f = Faults()
    f.set("black", 2)
    assert f.hit("black") and f.hit("black") and not f.hit("black")
    f.set("drop", -1)
    assert all(f.hit("drop") for _ in range(5))
    with pytest.raises(KeyError):
        f.set("nope", 1)


def test_a_zoomed_out_page_s_tree_has_the_bounds_the_screen_shows():
    # no viewport meta tag: laid out 980 px wide, shown at scale 0.44 on a 432 px screen
    from farm.devices.sim.trees import on_screen
    footer = {**DOM["nodes"][2], "parent": None,
              "rect": {"x": 20, "y": 1448, "width": 92, "height": 31},
              "visible": False}
    shown = on_screen({"nodes": [footer]}, {"scale": 0.44, "left": 0, "top": 0}, 432, 960)
    node = shown["nodes"][0]
    assert node["visible"] and node["rect"] == {"x": 9, "y": 637, "width": 40, "height": 14}
    tree = parse_uiautomator(uiautomator_xml(shown, "com.x", 1080, 2400, 2.5), 1080, 2400)
    assert next(n for n in tree.nodes if n.text == "Sign in & go").visible


def test_a_field_shows_what_it_holds_as_a_phone_does():
    """A real EditText's text (and a WDA text field's value) is its content; the hint only
    while it is empty. A password field never shows its content."""
    typed = {"id": 3, "parent": 0, "role": "input:text", "text": "", "name": "",
             "placeholder": "Enter your username", "resource_id": "username", "value": "demo",
             "rect": {"x": 10, "y": 160, "width": 300, "height": 40}, "clickable": True,
             "editable": True, "visible": True}
    secret = {**DOM["nodes"][1], "value": "hunter22"}
    dom = {"nodes": [DOM["nodes"][0], secret, DOM["nodes"][2], typed]}
    android = uiautomator_xml(dom, "com.x", 1080, 2400, 2.5)
    fields = [n for n in parse_uiautomator(android, 1080, 2400).nodes if n.editable]
    assert [f.text for f in fields] == ["Enter your password", "demo"]
    ios = wda_xml(dom, "com.x", 390, 844)
    assert "hunter22" not in android and "hunter22" not in ios
    field = next(n for n in parse_wda(ios, 390, 844).nodes if n.resource_id == "username")
    assert field.text == "demo" and field.placeholder == "Enter your username"


def _row(i, parent, y, height=40, **kw):
    return {"id": i, "parent": parent, "role": "li", "text": f"Row {i}",
            "rect": {"x": 0, "y": y, "width": 400, "height": height}, **kw}


def test_the_dump_holds_only_what_shows_as_a_phone_s_does():
    """A real dump writes only the children that are visible to the user (a list's rows
    below the fold are not in it), each keeping its index among all its parent's children, and
    clips a partly shown one's bounds to the screen (getVisibleBoundsInScreen)."""
    dom = {"page_scroll": "y", "nodes": [
        {"id": 0, "parent": None, "role": "ul", "rect": {"x": 0, "y": 0, "width": 400,
                                                          "height": 2000}},
        _row(1, 0, 900), _row(2, 0, 940), _row(3, 0, 980), _row(4, 0, 1020),
        _row(5, None, -80), _row(6, None, 10, position="fixed")]}
    xml = uiautomator_xml(dom, "com.x", 1080, 2400, 2.5)
    assert 'scrollable="true"' in xml.split("\n")[2]                # the page scrolls
    tree = parse_uiautomator(xml, 1080, 2400)
    assert [n.text for n in tree.nodes if n.text] == ["Row 1", "Row 2", "Row 6"]
    assert 'index="1" text="Row 2"' in xml and 'index="2" text="Row 6"' in xml
    assert 'text="Row 2"' in xml and 'bounds="[0,2350][1000,2400]"' in xml   # clipped


def test_a_scrolling_element_hides_what_it_has_scrolled_away():
    """Rows scrolled out of a list that scrolls on its own are not shown, though the screen
    would have room for them; the list says scrollable="true"."""
    dom = {"nodes": [
        {"id": 0, "parent": None, "role": "div", "scroll": "y",
         "rect": {"x": 0, "y": 100, "width": 400, "height": 200}},
        _row(1, 0, 20), _row(2, 0, 120), _row(3, 0, 280), _row(4, 0, 320)]}
    xml = uiautomator_xml(dom, "com.x", 1080, 2400, 2.5)
    tree = parse_uiautomator(xml, 1080, 2400)
    assert [n.text for n in tree.nodes if n.text] == ["Row 2", "Row 3"]
    scroller = tree.nodes[1]
    assert scroller.role == "android.widget.ScrollView" and 'scrollable="true"' in xml
    row3 = next(n for n in tree.nodes if n.text == "Row 3")
    assert row3.rect.y + row3.rect.height == 750                   # the list's bottom edge
