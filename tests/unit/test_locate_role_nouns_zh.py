"""Targets written as Midscene's Chinese docs write them, text plus a Chinese role noun
("登录按钮", "登录 按钮", "用户名输入框"), or the text in 「」 quotes, are found by the text tier
with no model, as the English ones are ("Sign in button")."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocatorChain, TextMatchTier
from farm.agent.roles import QUOTED, RolePhrase, role_phrase
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel


def node(i: int, role: str, y: int, parent: int | None = None, **kw) -> UINode:
    return UINode(id=i, role=role, parent=parent,
                  rect=Rect(x=10, y=y, width=200, height=30), **kw)


def locate(prompt: str, *nodes: UINode):
    device = FakeDevice(UITree(source="dom", nodes=list(nodes)))
    return LocatorChain([TextMatchTier()]).locate(prompt, device)


@pytest.mark.parametrize("prompt, text, noun", [
    ("登录按钮", "登录", "按钮"), ("登录 按钮", "登录", "按钮"),
    ("用户名输入框", "用户名", "输入框"), ("同意用户协议复选框", "同意用户协议", "复选框"),
    ("帮助链接", "帮助", "链接"), ("是单选按钮", "是", "单选按钮"), ("搜索 框", "搜索", "框"),
    ("「提交订单」按钮", "提交订单", "按钮"), ("“提交订单” 按钮", "提交订单", "按钮"),
    ("「提交订单」", "提交订单", QUOTED), ("『提交订单』", "提交订单", QUOTED),
])
def test_a_prompt_reads_as_text_and_a_chinese_role_noun(prompt, text, noun):
    assert role_phrase(prompt) == RolePhrase(text, noun)


@pytest.mark.parametrize("prompt", ["按钮", "「」", "提交订单", " 输入框"])
def test_no_text_before_the_noun_or_no_noun_is_none(prompt):
    assert role_phrase(prompt) is None


HEADING = node(0, "h1", 10, text="登录")
USER_LABEL = node(1, "label", 60, text="用户名", clickable=True)
USER = node(2, "input:text", 100, label="用户名", clickable=True, editable=True)
LOGIN = node(3, "button", 140, text="登录", clickable=True)
TERMS = node(4, "input:checkbox", 180, label="同意用户协议", clickable=True)
HELP = node(5, "a", 220, text="帮助", clickable=True)
SUBMIT = node(6, "button", 260, text="提交订单", clickable=True)
PAGE = (HEADING, USER_LABEL, USER, LOGIN, TERMS, HELP, SUBMIT)


@pytest.mark.parametrize("prompt, target, note", [
    ("登录按钮", LOGIN, 'found by text "登录" (按钮)'),
    ("登录 按钮", LOGIN, 'found by text "登录" (按钮)'),
    ("用户名输入框", USER, 'found by text "用户名" (输入框)'),
    ("同意用户协议复选框", TERMS, 'found by text "同意用户协议" (复选框)'),
    ("帮助链接", HELP, 'found by text "帮助" (链接)'),
    ("「提交订单」", SUBMIT, None),      # (wholly in quotes: its text, nothing to say)
    ("「提交订单」按钮", SUBMIT, 'found by text "提交订单" (按钮)'),
])
def test_text_and_a_chinese_noun_finds_the_element_of_that_role(prompt, target, note):
    hit = locate(prompt, *PAGE)
    assert hit.rect == target.rect and hit.tier == "text"
    assert hit.notes == ((note,) if note else ())


def test_the_role_must_fit_the_noun():
    with pytest.raises(LocateError, match='no element matches "登录链接"'):
        locate("登录链接", *PAGE)


def test_no_synonyms():
    # ("登入" is not "登录": not found as it; one character off a short label, a near miss
    # naming the button, as a typo's 登陆 is)
    with pytest.raises(LocateError, match='no element matches "登入按钮"; the closest on '
                                          r'screen is "登录" \(button\)'):
        locate("登入按钮", *PAGE)
    with pytest.raises(NeedsModel, match='"注册按钮"'):      # (nothing near it: a model's)
        locate("注册按钮", *PAGE)


def test_two_of_that_role_are_ambiguous():
    other = node(7, "button", 300, text="登录", clickable=True)
    with pytest.raises(LocateError, match=r'ambiguous: 2 elements of its role \(按钮\)'):
        locate("登录按钮", *PAGE, other)


def test_a_quoted_target_matching_two_is_ambiguous_without_an_empty_role():
    other = node(7, "a", 300, text="提交订单", clickable=True)
    with pytest.raises(LocateError) as err:
        locate("「提交订单」", *PAGE, other)
    assert "ambiguous: 2 elements match" in str(err.value) and "role ()" not in str(err.value)


def test_an_element_that_shows_the_whole_prompt_wins():
    literal = node(7, "span", 300, text="登录按钮", clickable=True)
    hit = locate("登录按钮", *PAGE, literal)
    assert hit.rect == literal.rect and hit.notes == ()
