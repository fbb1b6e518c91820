"""A case named 登录成功（中文用户名）, its name pasted into -k, was refused: "column 5:
unexpected '('; a space joins no words: -k '登录成功 and (中文用户名)'" — no space was typed,
and it quoted '(' where '（' was. Full-width brackets a -k cannot read as grouping are part of
the word they touch; an error quotes what was typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, name: str) -> Case:
    return Case(id=cid, name=name, file=Path(f"/s/q/{cid}.yaml"), suite_root=Path("/s/q"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


CASES = [_case("zh", "登录成功（中文用户名）"), _case("en", "登录成功(english)"),
         _case("cart", "购物车")]


def _ids(keyword: str) -> list[str]:
    return [c.id for c in select_cases(CASES, SelectOptions(keyword=keyword)).selected]


def test_a_name_with_full_width_brackets_pasted_into_k_selects_it_sui50():
    assert _ids("登录成功（中文用户名）") == ["zh"]


def test_such_a_name_joins_other_words_sui50():
    assert _ids("登录成功（中文用户名） or 购物车") == ["zh", "cart"]


def test_full_width_brackets_still_group_where_they_can_sui50():
    assert _ids("（english or 购物车）") == ["en", "cart"]


def test_an_error_quotes_the_bracket_as_typed_sui50():
    with pytest.raises(ConfigError) as refused:
        _ids("登录 ） or")
    assert "unexpected '）'" in str(refused.value)
