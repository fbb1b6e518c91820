"""Which model finds say the step's label may have changed: only a target that reads as a
literal label, found on a control whose text shares no word with it."""

import pytest

from farm.agent.model_tiers import _renamed
from farm.devices.base import Rect, UINode, UITree


def found(text: str, role: str = "button", editable: bool = False) -> tuple[UINode, UITree]:
    node = UINode(id=0, role=role, text=text, clickable=True, editable=editable,
                  rect=Rect(x=10, y=10, width=100, height=30))
    return node, UITree(source="dom", nodes=[node])


@pytest.mark.parametrize("prompt, shown", [
    ("Buy now", "Purchase"), ("Log in", "Sign in"), ("Settings", "Preferences")])
def test_a_label_found_on_a_control_sharing_no_word_is_noted(prompt, shown):
    note = _renamed(prompt, *found(shown))
    assert note == (f'the model found "{shown}" (button) for "{prompt}", which shares no word '
                    "with it: if the app renamed it, change the step")


@pytest.mark.parametrize("prompt, shown, editable", [
    ("the blue buy button", "Purchase", False),    # described, not spelled
    ("buy button", "Purchase", False),
    ("Buy now", "Buy now!", False),                 # the same words
    ("Buy", "Buy now", False),
    ("Buy now", "", False),                         # an icon: nothing shown to compare
    ("Email", "E-mail address", True),              # a field: its label is worded freely
    ("Add the item to my shopping cart today", "Purchase", False),   # a sentence
])
def test_described_targets_same_words_icons_and_fields_are_not_noted(prompt, shown, editable):
    assert _renamed(prompt, *found(shown, editable=editable)) is None


@pytest.mark.parametrize("prompt, shown", [
    ("登录", "立即登录"),        # Chinese writes no spaces: a shared character is a shared word
    ("购买", "立即 购买"),
    ("设置", "设置中心"),
])
def test_chinese_labels_sharing_characters_are_not_noted(prompt, shown):
    assert _renamed(prompt, *found(shown)) is None


def test_a_chinese_label_found_on_a_control_with_other_characters_is_noted():
    assert _renamed("登录", *found("注册")) == (
        'the model found "注册" (button) for "登录", which shares no word with it: if the app '
        "renamed it, change the step")
