"""A failed text check in Chinese says the closest text on the screen, as one in English does:
a Chinese sentence has no spaces to cut it into words, and a page writes "（" where a suite
types "(". The text is quoted as the page writes it."""

from __future__ import annotations

import sys

import pytest

import farm.agent.ocr as ocr
from farm.agent.api import Agent
from farm.agent.screen_hint import closest
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed


def test_a_number_that_differs_in_a_chinese_line_is_the_closest_text():
    assert closest("共 5 件商品", "共 3 件商品，合计：￥128.50") == "共 3 件商品"
    assert closest("共5件商品", "首页\n共 3 件商品，合计：￥128.50") == "共 3 件商品"
    assert closest("合计：￥128.80", "共 3 件商品，合计：￥128.50") == "合计：￥128.50"


def test_a_changed_name_in_a_chinese_sentence_is_found_inside_it():
    assert closest("欢迎回来，李四！", "欢迎回来，张三！您有3条新消息") == "欢迎回来，张三！"
    # as the English one is
    assert closest("Welcome back, bob!", "Welcome back, alice! You have 3 new messages") == \
        "Welcome back, alice!"


def test_full_width_brackets_are_compared_as_the_matcher_compares_them():
    assert closest("购物车(5)", "首页\n购物车（3）\n我的") == "购物车（3）"


def test_part_of_the_expected_text_or_nothing_close_says_nothing():
    assert closest("欢迎回来，李四！", "首页\n欢迎回来\n退出") is None
    assert closest("订单已提交", "首页\n我的\n设置") is None


def test_a_failed_assert_text_names_the_chinese_text_closest_to_it(monkeypatch):
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)
    tree = UITree(source="uiautomator", nodes=[
        UINode(id=0, role="android.widget.TextView", text="共 3 件商品，合计：￥128.50",
               rect=Rect(x=0, y=0, width=300, height=30))])
    with pytest.raises(AssertionFailed) as info:
        Agent(FakeDevice(tree, platform="android")).assert_text("共 5 件商品")
    assert 'the closest text on it is "共 3 件商品"' in str(info.value)
