"""`-k covred` (a slip of a word the cases have) selected nothing and said only "16 deselected
by -k covred", while flags, steps and keys are suggested when misspelt. A one-word -k that
matches nothing now offers the nearest word of the cases' names and ids, and what it selects."""

from __future__ import annotations

from tests.unit.test_select_file_name_slip import _notes, demo_cases  # noqa: F401 (fixture)


def test_a_misspelt_word_offers_the_word_the_cases_have(demo_cases):  # noqa: F811
    assert _notes(demo_cases, "chekout") == [
        "no case selected: 16 deselected by -k chekout",
        "-k chekout: no case's name or id has it; did you mean -k checkout "
        "(selects demo/checkout_e2e and 1 more)?"]


def test_nothing_near_and_expressions_get_no_guess(demo_cases):  # noqa: F811
    assert _notes(demo_cases, "zzzqqq") == ["no case selected: 16 deselected by -k zzzqqq"]
    assert len(_notes(demo_cases, "checkout and chekout")) == 1
