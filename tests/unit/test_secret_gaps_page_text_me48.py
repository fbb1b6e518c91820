"""A secret broken up by whitespace is masked (a model echoing a key across lines), but a page's
own spaced-out text that happens to hold a PIN's digits is not cut from what farm records or
sends to a model: `Pages: 1 2 3 4 5 6 7 8 9 10` stayed `Pages: *** 9 10` for PIN 12345678."""

from __future__ import annotations

from farm.suite.vars import Variables


def masked(text: str, *values: str) -> str:
    return Variables.hiding(values).mask(text)


def test_a_pagination_is_not_masked_as_an_all_digit_pin():
    assert masked("Pages: 1 2 3 4 5 6 7 8 9 10", "12345678") == "Pages: 1 2 3 4 5 6 7 8 9 10"
    assert masked("a b c d e f g h", "abcdefgh") == "a b c d e f g h"


def test_an_all_digit_secret_wrapped_in_a_few_places_is_still_masked():
    assert masked("card 1234 5678 9012 3456 ok", "1234567890123456") == "card *** ok"
    assert masked("pin 1234\n5678 ok", "12345678") == "pin *** ok"
    assert masked("pin 12345678 ok", "12345678") == "pin *** ok"


def test_a_mixed_secret_spelt_out_is_still_masked():
    assert masked("key S 3 C R 3 T - 5 - a p i k e y!", "S3CR3T-5-apikey") == "key ***!"


def test_an_ideographic_space_breaks_a_secret_as_a_space_does():
    assert masked("密码：芝麻开门\u3000123", "密码：芝麻开门123") == "***"
