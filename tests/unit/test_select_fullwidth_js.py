"""-k and --tag read full-width and half-width forms alike (NFKC): a Chinese input method
types ： （ ） ， where a name has : ( ) , or the other way round, and -k selected nothing."""

from __future__ import annotations

from pathlib import Path

from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, name: str, *tags: str) -> Case:
    return Case(id=cid, name=name, file=Path(f"/s/探针/{cid}.yaml"), suite_root=Path("/s/探针"),
                platform="web", web=WebTarget(url="about:blank"), tags=list(tags),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


CASES = [_case("登录", "探针：歧义与最近文本", "冒烟"), _case("最近", "最近文本", "回归测试"),
         _case("数字", "数字边界", "ｓｍｏｋｅ"), _case("长度", "长度")]


def _ids(**opts) -> list[str]:
    return [c.id for c in select_cases(CASES, SelectOptions(**opts)).selected]


def test_a_half_width_colon_matches_a_full_width_one_in_the_name():
    assert _ids(keyword="探针:歧义") == ["登录"]


def test_full_width_parentheses_and_operators_group_words():
    assert _ids(keyword="（最近 or 数字）") == ["登录", "最近", "数字"]
    assert _ids(keyword="（最近　ａｎｄ　not 歧义）") == ["最近"]


def test_a_tag_in_another_width_is_the_same_tag():
    assert _ids(tags=["smoke"]) == ["数字"]
    assert _ids(exclude_tags=["ｓｍｏｋｅ", "冒烟"]) == ["最近", "长度"]


def test_a_full_width_comma_between_tags_gets_the_comma_hint():
    sel = select_cases(CASES, SelectOptions(tags=["冒烟，回归测试"]))
    assert ("--tag 冒烟，回归测试: no case has the tag '冒烟，回归测试'; a comma is part of a "
            "tag: give --tag once per tag (--tag 冒烟 --tag 回归测试)") in sel.notes
