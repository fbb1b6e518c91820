"""Text from pages, devices and models is valid Unicode once it is inside farm (farm/text.py),
however a page's JavaScript cut it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from farm.devices.native_tree import parse_uiautomator, parse_wda
from farm.text import clean, clean_json

HALF_EMOJI = "\ud83d"    # what a page's "😀".slice(0, 1) gives: the first UTF-16 unit of U+1F600
# Any code point, with surrogates drawn often (hypothesis' characters() nearly never gives one).
ANY_TEXT = st.text(st.one_of(st.characters(exclude_categories=()),
                             st.integers(0xD800, 0xDFFF).map(chr)))


@pytest.mark.parametrize("raw, cleaned", [
    ("cut " + HALF_EMOJI + " here", "cut \ufffd here"),        # the page's "😀".slice(0, 1)
    ("\ud800", "\ufffd"),                                       # String.fromCharCode(0xD800)
    ("\ude00 at the start", "\ufffd at the start"),            # a low half alone
    ("at the end \ud83d", "at the end \ufffd"),
    ("\ud83d\ud83d\ude00", "\ufffd😀"),                        # halves of a pair rejoin
    ("two \udc00\udc00", "two \ufffd\ufffd"),
])
def test_each_lone_surrogate_becomes_one_replacement_character(raw, cleaned):
    assert clean(raw) == cleaned
    clean(raw).encode("utf-8")


def test_valid_text_is_returned_as_it_is():
    text = "Grüße, 世界 😀 \x00 \U0010ffff"
    assert clean(text) is text


def test_structured_outputs_are_walked():
    value = {"name" + HALF_EMOJI: ["a\ud800", ("b", {"c": "\udfff"})], "n": 3, "ok": True,
             "none": None, "bytes": b"\xff"}
    assert clean(value) == {"name\ufffd": ["a\ufffd", ("b", {"c": "\ufffd"})], "n": 3,
                            "ok": True, "none": None, "bytes": b"\xff"}
    json.dumps(clean(value["name" + HALF_EMOJI]), ensure_ascii=False).encode("utf-8")


@given(ANY_TEXT)
def test_any_text_becomes_encodable_and_stays_put_once_clean(text):
    once = clean(text)
    once.encode("utf-8")
    assert clean(once) == once
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert once == text


def test_json_escapes_of_lone_surrogates_are_cleaned():
    # how JSON.stringify (and a model server's JSON) carries half an emoji
    assert clean_json('{"t": "cut \\ud83d here", "l": ["\\uDC00"]}') == {
        "t": "cut \ufffd here", "l": ["\ufffd"]}
    assert clean_json('"\\ud83d\\ude00"') == "😀"
    assert clean_json('{"escaped backslash": "\\\\ud800"}') == {"escaped backslash": "\\ud800"}


def test_a_native_tree_with_half_an_emoji_parses():
    # WDA's /source arrives as JSON: a label cut by the app reaches the XML as a lone surrogate
    source = ('<XCUIElementTypeApplication><XCUIElementTypeButton label="Smile '
              + HALF_EMOJI + '" x="0" y="0" width="10" height="10"/>'
              '</XCUIElementTypeApplication>')
    tree = parse_wda(source, 100, 100)
    assert tree.nodes[0].name == "Smile \ufffd"
    tree.model_dump_json()


@pytest.mark.parametrize("parse", [parse_uiautomator, parse_wda])
def test_a_dump_that_is_not_xml_is_a_value_error(parse):
    # the drivers retry on ValueError; ElementTree's own ParseError is a SyntaxError
    with pytest.raises(ValueError, match="not XML"):
        parse('<hierarchy><node text="cut off', 100, 100)
