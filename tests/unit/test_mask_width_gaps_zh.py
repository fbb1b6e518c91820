"""A secret a page shows in another width AND with a space put in (``密码:芝麻开门 123`` for
``密码：芝麻开门123``) is masked: the gapped form takes each character in its widths."""

import pytest

from farm.suite.vars import Variables

SECRET = "密码：芝麻开门123"


@pytest.mark.parametrize("shown", [
    "A 密码:芝麻开门 123 B",          # half-width colon, a space before the digits
    "G 密码: 芝麻开门123 H",          # half-width colon and a space after it
    "密码：芝麻开门 １２３",           # full-width digits after a space
    "密 码 : 芝 麻 开 门 1 2 3",      # every character apart, half-width
])
def test_a_secret_in_another_width_with_gaps_is_masked(shown):
    masked = Variables({"S": SECRET}, ["S"]).mask(shown)
    assert "芝麻开门" not in masked.replace(" ", "")
    assert "***" in masked


def test_a_latin_secret_in_full_width_with_a_line_break_is_masked():
    v = Variables({"API_TOKEN": "S3CR3T-5-apikey"})
    assert v.mask("key: Ｓ３CR3T-\n 5-apikey.") == "key: ***."


def test_a_short_secret_is_not_matched_spaced_out():
    # the minimum length for gaps stays: a short value spaced out is the page's own text
    v = Variables({"S": "门123"}, ["S"])
    assert v.mask("门 1 2 3") == "门 1 2 3"
