"""Which boxes of a phone's screen are blacked out for a secret: the innermost element whose
text or label the case's mask changes, never a container that joins its children's labels,
never a hidden element, never a text without the secret."""

from __future__ import annotations

from farm.devices.base import Rect, UINode, UITree
from farm.devices.native_tree import secret_rects

SECRET = "Hunter2-Secret!"


def mask(text: str) -> str:
    return text.replace(SECRET, "***")


def node(id: int, parent: int | None, text: str = "", name: str = "", visible: bool = True,
         y: int = 0) -> UINode:
    return UINode(id=id, parent=parent, text=text, name=name, visible=visible,
                  rect=Rect(x=0, y=y, width=100, height=10))


def test_the_innermost_element_showing_the_secret_only():
    tree = UITree(source="wda", nodes=[
        node(0, None, name=f"Your password is {SECRET}, Nothing to hide", y=0),
        node(1, 0, text=f"Your password is {SECRET}", y=10),
        node(2, 0, text="Nothing to hide", y=20),
        node(3, None, name=f"token {SECRET}", y=30),         # content-desc / label
        node(4, None, text=SECRET, visible=False, y=40)])
    assert [r.y for r in secret_rects(tree, mask)] == [10, 30]


def test_a_screen_without_the_secret_has_no_box():
    tree = UITree(source="uiautomator", nodes=[node(0, None, text="Nothing to hide")])
    assert secret_rects(tree, mask) == []
