"""Only a key-shaped secret has its tails hidden (an endpoint quoting part of a key): an
email address, a database URL or a passphrase given as a secret ends in the page's own text
(the site's domain, a database name, an ordinary word), which must stay readable in every log
and report; the whole value is still hidden."""

from __future__ import annotations

import pytest

from farm.suite.vars import Variables

EMAIL, DB = "qa.tester@shop-example.com", "postgres://farm:pw@db.internal/application_prod"
PHRASE = "CorrectHorseBatteryStaple"


@pytest.mark.parametrize("text", [
    "Welcome to shop-example.com", "https://shop-example.com/login",
    "support@shop-example.com", "my application_prod db", "BatteryStaple is a word",
])
def test_the_end_of_an_address_or_a_passphrase_is_the_pages_own_text_me50(text):
    assert Variables.hiding([EMAIL, DB, PHRASE]).mask(text) == text


def test_the_whole_address_is_still_hidden_me50():
    mask = Variables.hiding([EMAIL, DB, PHRASE]).mask
    assert mask(f"signed in as {EMAIL} on {DB}") == "signed in as *** on ***"


@pytest.mark.parametrize("key", ["sk-good-key-123456",     # a known prefix
                                 "a8F3kQ9zX2mP7wL4"])      # letters and digits, one word
def test_a_keys_tail_is_hidden_me50(key):
    said = Variables.hiding([key]).mask(f"the endpoint said: {key[3:]}")
    assert said == "the endpoint said: ***"
