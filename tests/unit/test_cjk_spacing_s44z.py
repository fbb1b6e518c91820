"""Chinese UIs put a space around a number or a Latin word, or not: `assertText: 共3件商品`
passes on a page showing "共 3 件商品", and `aiTap: 立即 购买` finds "立即购买"; spacing
between Latin words still counts ("log in" is not "login")."""

from __future__ import annotations

import sys

import pytest

import farm.agent.ocr as ocr
from farm.agent.api import Agent
from farm.agent.locator import default_chain
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed, LocateError, NeedsModel


@pytest.fixture(autouse=True)
def no_ocr(monkeypatch):
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)   # the import fails


def _shop(*texts: str) -> FakeDevice:
    return FakeDevice(UITree(source="uiautomator", nodes=[
        UINode(id=i, role="android.widget.TextView", text=t, clickable=True,
               rect=Rect(x=0, y=40 * i, width=300, height=30)) for i, t in enumerate(texts)]),
        platform="android")


def test_spaces_beside_chinese_are_no_difference_to_a_text_check():
    agent = Agent(_shop("共 3 件商品，合计：￥128.50", "登录 按钮"))
    agent.assert_text("共3件商品")
    agent.assert_text("共 3件 商品")
    agent.assert_text("登录按钮")
    agent.assert_text("合计 :¥128.50")       # (NFKC: "：" is ":", "￥" is "¥")
    with pytest.raises(AssertionFailed):
        agent.assert_no_text("共3件商品")
    with pytest.raises(AssertionFailed, match="共5件商品"):
        agent.assert_text("共5件商品")


def test_spacing_between_latin_words_still_counts():
    agent = Agent(_shop("Please log in", "登录 login"))
    agent.assert_text("log in")
    with pytest.raises(AssertionFailed):
        agent.assert_text("Please login")
    agent.assert_text("登录login")


def test_the_text_tier_finds_a_target_whatever_its_spaces_beside_chinese():
    device = _shop("首页", "立即购买", "加入 购物车")
    assert default_chain().locate("立即 购买", device).rect.y == 40
    assert default_chain().locate("加入购物车", device).rect.y == 80
    # a target inside a longer label, as "Clear completed" finds "Clear completed (3)"
    assert default_chain().locate("购物车", device).rect.y == 80


def test_latin_words_run_together_are_not_the_spaced_target():
    with pytest.raises((LocateError, NeedsModel)):
        default_chain().locate("log in", _shop("Home", "login"))
