"""A secret of very few characters (``secrets: [REGION, SHARD]``, REGION=step, SHARD=1) masks
ordinary text in farm.log and the outputs; the warning that says so was left out whenever the
value also stood in a step's text (the "also stands in" warning only). Now both are said, and a
value under 4 characters is said to mask ordinary text everywhere. Names, never values."""

from __future__ import annotations

from farm.suite.vars import Variables, secret_warnings


def _said(values: dict[str, str]) -> list[str]:
    v = Variables(values, list(values))
    return secret_warnings(v, {"a.yaml:7": "Go to the next step", "a.yaml:9": "Shard 1 of 3"})


def test_a_short_secret_the_steps_hold_is_warned_of_as_short_too():
    said = _said({"REGION": "step"})
    assert said[0].startswith("secret ${REGION}'s value also stands in 1 step text"), said
    assert said[1] == ("secret ${REGION}'s value has 4 characters: wherever a page, a message "
                       "or a result holds the same characters (a year, a word), they are "
                       "masked as *** too"), said


def test_a_value_under_4_characters_is_said_to_mask_ordinary_text_everywhere():
    said = _said({"SHARD": "1"})
    assert len(said) == 2 and said[1].startswith("secret ${SHARD}'s value has 1 character: "), said
    assert said[1].endswith("masked as *** too; a value this short will mask ordinary text "
                            "everywhere (farm.log, the outputs, the report)"), said
