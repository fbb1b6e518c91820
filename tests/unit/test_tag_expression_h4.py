"""A tag expression (pytest's ``-m "smoke and not slow"`` habit) or tags joined by a space
given to --tag / --exclude-tag: it is one tag no case has, so --tag ran nothing and
--exclude-tag left out nothing, saying only "not tagged so". The note before the run now says
--tag takes one tag and gives the flags nearest to what was meant."""

from __future__ import annotations

from pathlib import Path

from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, tags: list[str]) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"), tags=tags,
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


CASES = [_case("s/a", ["smoke"]), _case("s/b", ["smoke", "slow"]), _case("s/c", ["big day"])]


def test_a_tag_expression_is_said_with_the_nearest_flags():
    sel = select_cases(CASES, SelectOptions(tags=("smoke and not slow",)))
    assert sel.selected == []
    assert sel.notes[0] == (
        "--tag smoke and not slow: no case has the tag 'smoke and not slow'; --tag takes one "
        "tag, not an expression: --tag smoke --exclude-tag slow is the nearest (a case with "
        "any --tag given runs, one with any --exclude-tag given does not; -k EXPR takes and "
        "/ or / not)")
    nearest = select_cases(CASES, SelectOptions(tags=("smoke",), exclude_tags=("slow",)))
    assert [c.id for c in nearest.selected] == ["s/a"]


def test_an_exclude_tag_expression_and_tags_joined_by_a_space_are_said():
    sel = select_cases(CASES, SelectOptions(exclude_tags=("(slow or smoke)",)))
    assert [c.id for c in sel.selected] == ["s/a", "s/b", "s/c"]    # as before: one tag
    assert "--exclude-tag takes one tag, not an expression: --exclude-tag slow " \
           "--exclude-tag smoke is the nearest" in sel.notes[0]
    spaced = select_cases(CASES, SelectOptions(tags=("smoke slow",)))
    assert spaced.notes[0] == ("--tag smoke slow: no case has the tag 'smoke slow'; a space "
                               "is part of a tag: give --tag once per tag (--tag smoke "
                               "--tag slow)")


def test_a_tag_with_a_space_that_a_case_has_gets_no_note():
    sel = select_cases(CASES, SelectOptions(tags=("big day",)))
    assert [c.id for c in sel.selected] == ["s/c"] and sel.notes == []
