"""Quotes the shell kept in -k (``-k "'login'"``: a CI file's quoting quoted again) are part
of the words, so nothing matched and farm said only "deselected by -k 'login'", which reads as
the plain word. A note now says the quote is part of the word, with the -k that selects; and
the hint for ``-k '"Log in"'`` (a phrase) no longer keeps the quotes it cannot match."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.select import SelectOptions, select_cases
from farm.suite.loader import load_suites

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_cases():
    return [c for s in load_suites([ROOT / "suites" / "demo"], env={}) for c in s.cases]


def test_quotes_kept_around_a_word_are_said(demo_cases):
    chosen = select_cases(demo_cases, SelectOptions(keyword="'logout'"))
    assert chosen.selected == []
    assert chosen.notes[-1] == ("-k 'logout': a quote is part of a word (-k takes no quoted "
                                "phrase): -k logout selects demo/logout")


def test_a_quoted_phrase_is_answered_without_its_quotes(demo_cases):
    with pytest.raises(ConfigError) as said:
        select_cases(demo_cases, SelectOptions(keyword='"Log out"'))
    assert "a space joins no words: -k 'Log and out' matches cases with all of them" \
        in str(said.value)


def test_a_quote_inside_a_word_is_a_word(demo_cases):
    chosen = select_cases(demo_cases, SelectOptions(keyword="can't"))
    assert chosen.selected == [] and not any("quote" in n for n in chosen.notes)
