"""A --tag / --exclude-tag that no case has and that looks like a slip gets a note before the
run: ``--exclude-tag slow,flaky`` (behave's and old Cucumber's way of giving two) left out
nothing and ran the slow and flaky cases without a word, ``--tag Smoke`` for ``smoke`` ran
nothing with only "not tagged so"."""

from __future__ import annotations

from pathlib import Path

from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, tags: list[str]) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"), tags=tags,
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


CASES = [_case("s/a", ["smoke", "slow"]), _case("s/b", ["flaky"]), _case("s/c", ["x,y"])]


def test_tags_joined_by_a_comma_are_said_to_be_one_tag():
    sel = select_cases(CASES, SelectOptions(exclude_tags=("slow,flaky",)))
    assert [c.id for c in sel.selected] == ["s/a", "s/b", "s/c"]     # as before: one tag
    assert sel.notes == [
        "--exclude-tag slow,flaky: no case has the tag 'slow,flaky'; a comma is part of a "
        "tag: give --exclude-tag once per tag (--exclude-tag slow --exclude-tag flaky)"]


def test_another_casing_of_a_tag_is_named():
    sel = select_cases(CASES, SelectOptions(tags=("Smoke",)))
    assert sel.selected == []
    assert sel.notes[0] == ("--tag Smoke: no case has the tag 'Smoke'; tags match exactly: "
                            "the cases have 'smoke'")


def test_a_tag_some_case_has_or_a_plain_unknown_one_gets_no_note():
    sel = select_cases(CASES, SelectOptions(tags=("x,y", "smoke"), exclude_tags=("nightly",)))
    assert [c.id for c in sel.selected] == ["s/a", "s/c"] and sel.notes == []


def test_a_k_operator_in_capitals_is_said_to_be_a_word():
    """-k "login AND checkout" said only "unexpected 'AND'", as if AND were misplaced."""
    import pytest

    from farm.errors import ConfigError
    from farm.select import KeywordExpr
    with pytest.raises(ConfigError) as caught:
        KeywordExpr("NOT login")
    assert str(caught.value) == (
        "-k 'NOT login': column 5: unexpected 'login'; 'NOT' is a word to match: and / or / "
        "not are lower case (write words joined by and / or / not, with parentheses)")
