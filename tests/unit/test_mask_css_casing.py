"""A page can show a secret cased by CSS (text-transform: uppercase | lowercase | capitalize):
`Variables.mask` hides those casings too, for a secret long enough to be one, and leaves a
short value's casings (the page's own words) alone."""

from __future__ import annotations

import html

import pytest

from farm.suite.vars import Variables

SECRET = "farm-demo-pass"

# What Chromium's innerText gave for each text-transform (tests/integration/
# test_secret_case_variants.py shows them through a real page).
CASED = {
    "uppercase": "FARM-DEMO-PASS",
    "capitalize": "Farm-Demo-Pass",
    "capitalize, '_' inside a word": "Hunter_two.X",
    "uppercase, sharp s": "SS-STRASSE-1",
    "capitalize, sharp s kept": "ß-Straße-1",
    "lowercase": "mixed-case-pass",
    "uppercase, lang=tr": "İSTANBUL-PASS",
    "uppercase, lang=el": "ΑΛΦΑ-ΚΩΔΙΚΟΣ",
    "lowercase, final sigma": "οδος-κωδικος",
}
SECRETS = {"uppercase": SECRET, "capitalize": SECRET,
           "capitalize, '_' inside a word": "hunter_two.x",
           "uppercase, sharp s": "ß-straße-1", "capitalize, sharp s kept": "ß-straße-1",
           "lowercase": "Mixed-CASE-pass", "uppercase, lang=tr": "istanbul-pass",
           "uppercase, lang=el": "άλφα-κωδικός", "lowercase, final sigma": "ΟΔΟΣ-ΚΩΔΙΚΟΣ"}


@pytest.mark.parametrize("how", CASED)
def test_a_secret_cased_by_css_is_masked(how: str) -> None:
    v = Variables({"DEMO_PASSWORD": SECRETS[how]}, secrets=["DEMO_PASSWORD"])
    assert v.mask(f"Password: {CASED[how]}.") == "Password: ***."


def test_a_cased_secret_is_masked_encoded_and_cut_short_too() -> None:
    v = Variables({"P": 'tok<en>"long'}, secrets=["P"])
    assert v.mask(html.escape('TOK<EN>"LONG')) == "***"
    assert v.mask("the screen shows \"Login as TOK<E\u2026\"") == \
        "the screen shows \"Login as ***\u2026\""


def test_casings_css_cannot_make_are_left() -> None:
    v = Variables({"P": SECRET}, secrets=["P"])
    for text in ("fArM-dEmO-pAsS", "FARM-DEMO-PAST"):
        assert v.mask(text) == text


def test_a_short_secret_is_masked_only_as_written() -> None:
    """``admin``, ``on``: their casings are the page's own words ("ADMIN", "On")."""
    v = Variables({"ROLE": "admin", "FLAG": "on"}, secrets=["ROLE", "FLAG"])
    assert v.mask("ADMIN Admin On ON") == "ADMIN Admin On ON"
    assert v.mask("role admin") == "role ***"
