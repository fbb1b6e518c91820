"""An absolute XPath over a phone's tree starts at its root element, as XPath means it:
Appium Inspector's `/XCUIElementTypeApplication[@name='…']/XCUIElementTypeWindow[1]/…` and a
dump's `/hierarchy/node[1]/…` matched nothing (their first step was looked for below the
root), so a step's `xpath:` failed with "no element matches". farm's own positional XPaths in
the locate cache (`/node[1]/node[2]`: steps below the root) still select what they did."""

from __future__ import annotations

from farm.cache.xpaths import candidates
from farm.devices.native_tree import parse_uiautomator, parse_wda, query_xml

DUMP = ("<hierarchy rotation='0'><node class='android.widget.FrameLayout' text='' "
        "bounds='[0,0][100,100]'><node class='android.widget.Button' text='Go' "
        "bounds='[0,0][50,50]'/></node></hierarchy>")
SOURCE = ("<XCUIElementTypeApplication type='XCUIElementTypeApplication' name='com.x' x='0' "
          "y='0' width='100' height='100'><XCUIElementTypeWindow type='XCUIElementTypeWindow' "
          "x='0' y='0' width='100' height='100'><XCUIElementTypeButton "
          "type='XCUIElementTypeButton' name='Go' label='Go' x='1' y='1' width='10' "
          "height='10'/></XCUIElementTypeWindow></XCUIElementTypeApplication>")


def test_an_absolute_xpath_of_a_dump_starts_at_its_root():
    tree = parse_uiautomator(DUMP, 100, 100)
    go = tree.nodes[1].rect
    for xpath in ("/hierarchy/node/node", "/hierarchy/node[1]/node[1]",
                  "/hierarchy[@rotation='0']/node/node[@text='Go']", "/*/node/node"):
        assert query_xml(DUMP, xpath, tree) == [go], xpath
    assert query_xml(DUMP, "/node/node/node", tree) == []


def test_an_absolute_xpath_of_a_wda_source_starts_at_the_application():
    tree = parse_wda(SOURCE, 100, 100)
    go = tree.nodes[1].rect
    for xpath in ("/XCUIElementTypeApplication/XCUIElementTypeWindow/XCUIElementTypeButton",
                  "/XCUIElementTypeApplication[@name='com.x']/XCUIElementTypeWindow[1]"
                  "/XCUIElementTypeButton[1]"):
        assert query_xml(SOURCE, xpath, tree) == [go], xpath


def test_the_locate_caches_positional_xpaths_still_select_their_element():
    for xml, tree in ((DUMP, parse_uiautomator(DUMP, 100, 100)),
                      (SOURCE, parse_wda(SOURCE, 100, 100))):
        button = tree.nodes[1]
        positional = candidates(tree, button)[-1]
        assert positional.startswith("/") and not positional.startswith("//")
        assert query_xml(xml, positional, tree) == [button.rect], positional


def test_appiums_class_named_xpaths_select_in_a_dump():
    """Appium names a dump's elements by their class (its page source does): such an XPath
    matched nothing in farm's `node` tree."""
    tree = parse_uiautomator(DUMP, 100, 100)
    go = tree.nodes[1].rect
    for xpath in ("//android.widget.Button[@text='Go']",
                  "/hierarchy/android.widget.FrameLayout/android.widget.Button",
                  "//node[@class='android.widget.Button']"):
        assert query_xml(DUMP, xpath, tree) == [go], xpath
    assert query_xml(DUMP, "//android.widget.TextView", tree) == []
