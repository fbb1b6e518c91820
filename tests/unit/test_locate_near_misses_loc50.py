"""With no model, a misspelt short Chinese target fails naming the closest element (as an
English one does), a description holding a label on screen is skipped for a model with that
label as a hint, and a target in 「」 quotes (as the README writes them) says nothing of its
quotes."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocatorChain, TextMatchTier
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, NeedsModel


def node(i: int, role: str, y: int, **kw) -> UINode:
    return UINode(id=i, role=role, parent=0 if i else None,
                  rect=Rect(x=10, y=y, width=200, height=30), **kw)


PAGE = UITree(source="dom", nodes=[
    node(0, "body", 0), node(1, "button", 40, text="登录", clickable=True),
    node(2, "button", 80, text="加入购物车", clickable=True),
    node(3, "a", 120, text="Desk Lamp", clickable=True),
    node(4, "ul", 160, resource_id="product-grid"),
    node(5, "button", 200, text="Add to cart", clickable=True),
    node(6, "a", 240, text="首页", clickable=True),
    node(7, "button", 280, text="Sign in", clickable=True),
])


def locate(prompt: str):
    return LocatorChain([TextMatchTier()]).locate(prompt, FakeDevice(PAGE))


@pytest.mark.parametrize("prompt, closest", [
    ("登陆按钮", '"登录" (button)'), ("登陆", '"登录" (button)'),
    ("加入收藏", '"加入购物车" (button)'), ("加入收藏按钮", '"加入购物车" (button)'),
    ("Add to wishlist", '"Add to cart" (button)'), ("Sgin in", '"Sign in" (button)'),
    ("produt-grid", '"product-grid" (ul)'),
])
def test_a_misspelt_target_fails_naming_the_closest_loc50(prompt, closest):
    with pytest.raises(LocateError) as err:
        locate(prompt)
    assert str(err.value).splitlines()[0] == (
        f'no element matches "{prompt}"; the closest on screen is {closest}')


@pytest.mark.parametrize("prompt", ["注册", "页面", "个人中心", "设置"])
def test_an_unrelated_short_chinese_target_is_skipped_loc50(prompt):
    with pytest.raises(NeedsModel) as err:
        locate(prompt)
    assert "closest" not in str(err.value)


@pytest.mark.parametrize("prompt, hint", [
    ("the price of the Desk Lamp", '"Desk Lamp" (a)'),
    ("the product grid", '"product-grid" (ul)'),
    ("页面顶部的登录按钮", '"登录" (button)'),
])
def test_a_description_holding_a_label_is_skipped_for_a_model_loc50(prompt, hint):
    with pytest.raises(NeedsModel) as err:
        locate(prompt)
    assert str(err.value) == (
        f'needs a model (set FARM_MODEL): no zero-token match for "{prompt}" on screen; it '
        f"describes an element (a model's to find): the closest on screen is {hint}")


@pytest.mark.parametrize("prompt", ["「加入购物车」", "『加入购物车』", '"Desk Lamp"'])
def test_a_target_in_quotes_is_found_with_no_note_loc50(prompt):
    hit = locate(prompt)
    assert hit.tier == "text" and hit.notes == ()


def test_quotes_and_a_role_noun_still_say_the_role_loc50():
    assert locate("「加入购物车」按钮").notes == ('found by text "加入购物车" (按钮)',)
