"""`-k "Log in"` (words of a case's name, with a space) said only "unexpected 'in'": it now
gives the expression with `and` between the words, which selects cases holding them all (a
space is no operator, as in pytest's -k)."""

from __future__ import annotations

import pytest

from farm.errors import ConfigError
from farm.select import KeywordExpr


@pytest.mark.parametrize("given, joined", [
    ("Log in", "'Log and in'"),
    ("valid credentials now", "'valid and credentials and now'"),
    ("login not cart", "'login and not cart'"),
    ("(login) cart", "'(login) and cart'"),
])
def test_words_with_only_a_space_between_get_the_and_they_need(given, joined):
    with pytest.raises(ConfigError) as caught:
        KeywordExpr(given)
    assert f"; a space joins no words: -k {joined} matches cases with all of them" \
        in str(caught.value)


@pytest.mark.parametrize("given", ["login )", "login AND cart", "a b )", "login and"])
def test_no_joined_expression_where_joining_is_not_the_fix(given):
    with pytest.raises(ConfigError) as caught:
        KeywordExpr(given)
    assert "a space joins no words" not in str(caught.value)
