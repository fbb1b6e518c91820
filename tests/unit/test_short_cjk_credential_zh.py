"""A credential-named variable's value counts a wide (Chinese, Japanese, Korean) character
as 2 toward the 8 that mask it everywhere: ``SHOP_PASSWORD=芝麻开门哈`` (5 characters) was
masked only where a text was that value alone; a page's "欢迎, 芝麻开门哈!" showed it."""

from __future__ import annotations

import pytest

from farm.config import environment_secrets, is_credential, secret_chars
from farm.suite.vars import Variables, short_credentials


@pytest.mark.parametrize("value, count", [("芝麻开门哈", 10), ("芝麻开门", 8), ("芝麻开", 6),
                                          ("abc12345", 8), ("门1234", 6), ("ｱｲｳ", 3),
                                          (" 芝麻开门\n", 8)])
def test_a_wide_character_counts_as_2(value, count):
    assert secret_chars(value) == count


def test_a_short_chinese_password_is_masked_inside_a_text():
    v = Variables({"SHOP_PASSWORD": "芝麻开门哈"})
    assert "SHOP_PASSWORD" in v.secret_names
    assert v.mask("欢迎, 芝麻开门哈!") == "欢迎, ***!"
    assert is_credential("SHOP_PASSWORD", "芝麻开门")
    assert environment_secrets({"SHOP_PASSWORD": "芝麻开门"}) == ["芝麻开门"]


def test_three_chinese_characters_stay_short():
    assert not is_credential("SHOP_PASSWORD", "芝麻开")
    assert short_credentials({"SHOP_PASSWORD": "芝麻开门"}) == {}
    assert short_credentials({"SHOP_PASSWORD": "芝麻开1"}) == {"SHOP_PASSWORD": "芝麻开1"}
    v = Variables({"SHOP_PASSWORD": "芝麻开1"})
    assert v.mask("芝麻开1") == "***" and v.mask("欢迎 芝麻开1") == "欢迎 芝麻开1"


def test_latin_values_count_as_before():
    assert not is_credential("DB_PASSWORD", "abc1234")
    assert is_credential("DB_PASSWORD", "abc12345")


def test_the_warning_of_a_short_wide_value_says_how_it_counts():
    from farm.suite.vars import secret_warnings
    v = Variables({"SHOP_PASSWORD": "芝麻开1"})
    (said,) = secret_warnings(v, {"a.yaml:3": "${SHOP_PASSWORD}"})
    assert "has 4 characters" in said and "counts as 2" in said and "芝麻" not in said
    (said,) = secret_warnings(Variables({"SHOP_PASSWORD": "abc1"}),
                              {"a.yaml:3": "${SHOP_PASSWORD}"})
    assert "counts as 2" not in said
