"""`--tag smok` (a typo) said only "no case selected: 400 deselected by --tag smok" (exit 5),
where `-k chekout` says "did you mean -k checkout …?": --tag and --exclude-tag name the tag
the suite has that the one given is a slip of."""

from __future__ import annotations

from pathlib import Path

from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, *tags: str) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"), tags=list(tags),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


CASES = [_case("s/a", "smoke", "p1"), _case("s/b", "smoke"), _case("s/c", "nightly")]


def test_a_tag_typo_names_the_tag_the_suite_has():
    sel = select_cases(CASES, SelectOptions(tags=["smok"]))
    assert sel.selected == []
    assert sel.notes[0] == ("--tag smok: no case has the tag 'smok'; did you mean --tag smoke "
                            "(on s/a and 1 more)?")


def test_an_exclude_tag_typo_too():
    sel = select_cases(CASES, SelectOptions(exclude_tags=["nigthly"]))
    assert sel.notes == ["--exclude-tag nigthly: no case has the tag 'nigthly'; did you mean "
                         "--exclude-tag nightly (on s/c)?"]


def test_a_tag_like_none_of_the_suites_says_nothing_more():
    sel = select_cases(CASES, SelectOptions(tags=["android"]))
    assert sel.notes == ["no case selected: 3 deselected by --tag android"]
