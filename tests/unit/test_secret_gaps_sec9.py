"""A secret broken up by whitespace (a model echoing an API key with a line break in it, a
page or a terminal wrapping a token) is masked as the secret itself: before, ``S3CR3T- \\n
5-apikey`` was readable in results.json, junit.xml, report.html, farm.log and results.jsonl,
all of which take their text through `Variables.mask`."""

from __future__ import annotations

import json

import pytest

from farm.suite.vars import GAP_CHARS, Variables

KEY = "S3CR3T-5-apikey"


def masked(text: str, *values: str) -> str:
    return Variables.hiding(values or (KEY,)).mask(text)


@pytest.mark.parametrize("shown", [
    "S3CR3T- \n 5-apikey", "S3CR3T-\r\n5-apikey", "S3\tCR3T-5-api key",
    "S 3 C R 3 T - 5 - a p i k e y",
    "S3CR3T-5-a\n     pikey", "S3CR3T-5-apikey",
])
def test_a_secret_with_whitespace_inside_is_masked(shown):
    out = masked(f"the key is {shown} (echoed)")
    assert out == "the key is *** (echoed)"


def test_a_json_escaped_line_break_inside_is_masked_too():
    text = json.dumps({"reply": "auth S3CR3T- \n 5-apikey"})     # "S3CR3T- \\n 5-apikey"
    assert "apikey" not in masked(text) and "***" in masked(text)


def test_a_passphrase_keeps_any_run_of_whitespace_between_its_words():
    assert masked("say open\n\n  sesame now", "open sesame") == "say *** now"
    assert masked("x op en  se same y", "open sesame") == "x *** y"


def test_more_whitespace_than_a_few_characters_is_not_taken_as_the_secret():
    far = "S3CR3T-" + " " * (GAP_CHARS + 1) + "5-apikey"
    assert masked(far) == far


def test_a_short_secret_spaced_out_is_the_pages_own_text():
    assert masked("a b c d", "abcd") == "a b c d"
    assert masked("abcd", "abcd") == "***"


def test_the_other_forms_are_kept():
    import base64
    from urllib.parse import quote
    for form in (KEY, quote(KEY), KEY.upper(), base64.b64encode(KEY.encode()).decode()):
        assert masked(f"<{form}>") == "<***>", form
