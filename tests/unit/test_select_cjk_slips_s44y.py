"""Did-you-mean for -k, --tag and --exclude-tag in Chinese: a Chinese phrase is one \\w run
and a two-character tag can never reach difflib's 0.75, so `-k 购物東` (for 购物车),
`--tag 回帰` (回归) and `--tag 冒烟测试` (the tag is 冒烟) said nothing but "deselected"."""

from __future__ import annotations

from pathlib import Path

from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, name: str, *tags: str) -> Case:
    return Case(id=cid, name=name, file=Path(f"/s/商城测试/{cid}.yaml"),
                suite_root=Path("/s/商城测试"), platform="web",
                web=WebTarget(url="about:blank"), tags=list(tags),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


CASES = [_case("登录成功", "用户登录成功（正常流程）", "冒烟"),
         _case("购物车/查看购物车", "购物车数量错误（应失败）", "回归"),
         _case("密码错误", "密码错误提示", "回归")]


def test_a_k_word_one_character_off_offers_the_word_the_cases_have():
    sel = select_cases(CASES, SelectOptions(keyword="购物東"))
    assert sel.selected == []
    assert sel.notes[-1] == ("-k 购物東: no case's name or id has it; did you mean -k 购物车 "
                             "(selects 购物车/查看购物车)?")


def test_a_two_character_tag_one_character_off_is_named():
    sel = select_cases(CASES, SelectOptions(tags=["回帰"]))
    assert sel.notes[0] == ("--tag 回帰: no case has the tag '回帰'; did you mean --tag 回归 "
                            "(on 购物车/查看购物车 and 1 more)?")


def test_a_tag_holding_the_cases_tag_is_named():
    sel = select_cases(CASES, SelectOptions(tags=["冒烟测试"]))
    assert sel.notes[0] == ("--tag 冒烟测试: no case has the tag '冒烟测试'; did you mean --tag 冒烟 "
                            "(on 登录成功)?")


def test_an_exclude_tag_no_case_has_is_said_and_the_run_goes_on():
    sel = select_cases(CASES, SelectOptions(exclude_tags=["回帰"]))
    assert len(sel.selected) == 3
    assert sel.notes == ["--exclude-tag 回帰: no case has the tag '回帰'; did you mean "
                         "--exclude-tag 回归 (on 购物车/查看购物车 and 1 more)?"]


def test_a_chinese_word_like_nothing_gets_no_guess():
    assert select_cases(CASES, SelectOptions(tags=["性能"])).notes == [
        "no case selected: 3 deselected by --tag 性能"]
    assert select_cases(CASES, SelectOptions(keyword="支付宝")).notes == [
        "no case selected: 3 deselected by -k 支付宝"]
