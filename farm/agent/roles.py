"""A target written as text plus a role noun: "Sign in button", "the Username field".

Midscene's docs write targets that way, and a model reads them as meant. The text tier
(`farm.agent.locator.find_target`) reads them too, with no model: when the whole prompt
matches nothing, a leading article (the / a / an) and a trailing role noun from `ROLE_NOUNS`
are taken off, the rest is matched as what an element shows is (exact, then whole words;
not ids: "the gear icon" stays a model's), and only an element of a role that noun names
counts. No synonyms: "Login button" does not find a button that reads "Sign in". Chinese
role nouns (`CJK_ROLE_NOUNS`: "登录按钮", "用户名输入框") are read the same way, and a target
in quotes ("「提交订单」") as its text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from farm.devices.base import UINode, UITree

ARTICLES = ("the", "a", "an")

# What each kind of element is, per platform, by its role (web: the tag, ``input:<type>`` or the
# role attribute; Android: the widget class; iOS: the XCUIElementType), lower-cased; an
# Android class is compared by its last part ("android.widget.ImageButton" → "imagebutton").
_WEB_BUTTONS = {"button", "input:submit", "input:button", "input:reset", "input:image"}
_WEB_FIELDS = {"input:text", "input:search", "input:email", "input:url", "input:tel",
               "input:password", "input:number", "textarea", "textbox", "searchbox",
               "combobox"}
_IOS_FIELDS = {"xcuielementtypetextfield", "xcuielementtypesecuretextfield",
               "xcuielementtypesearchfield", "xcuielementtypetextview"}
_IMAGES = {"img", "svg", "i", "image", "input:image", "xcuielementtypeimage",
           "xcuielementtypeicon"}


def _kind(node: UINode) -> str:
    role = node.role.lower()
    return role.rsplit(".", 1)[-1] if _android(node) else role


def _android(node: UINode) -> bool:
    """A widget class ("android.widget.Button", "com.google.….MaterialButton"): web roles
    and iOS types have no dot."""
    return "." in node.role


def is_button(node: UINode, tree: UITree) -> bool:
    kind = _kind(node)
    return kind in _WEB_BUTTONS or kind == "xcuielementtypebutton" or (
        _android(node) and kind.endswith("button") and "radio" not in kind)


def is_field(node: UINode, tree: UITree) -> bool:
    kind = _kind(node)
    return node.editable or kind in _WEB_FIELDS or kind in _IOS_FIELDS or "edittext" in kind


def is_link(node: UINode, tree: UITree) -> bool:
    return _kind(node) in ("a", "link", "xcuielementtypelink")


def is_checkbox(node: UINode, tree: UITree) -> bool:
    kind = _kind(node)
    return kind in ("input:checkbox", "checkbox", "menuitemcheckbox",
                    "xcuielementtypecheckbox") or kind.endswith("checkbox")


def is_radio(node: UINode, tree: UITree) -> bool:
    kind = _kind(node)
    return kind in ("input:radio", "radio", "menuitemradio") or kind.endswith("radiobutton")


def is_switch(node: UINode, tree: UITree) -> bool:
    kind = _kind(node)
    return kind in ("switch", "input:checkbox", "xcuielementtypeswitch",
                    "xcuielementtypetoggle") or kind.endswith(("switch", "switchcompat",
                                                               "switchmaterial", "togglebutton"))


def is_tab(node: UINode, tree: UITree) -> bool:
    """A tab: web role=tab, an Android tab view, an iOS tab or a button of a tab bar."""
    kind = _kind(node)
    if kind in ("tab", "xcuielementtypetab") or (_android(node) and "tab" in kind
                                                 and "table" not in kind):
        return True
    return kind == "xcuielementtypebutton" and any(
        a.role == "XCUIElementTypeTabBar" for a in tree.ancestors(node))


def is_menu_item(node: UINode, tree: UITree) -> bool:
    return _kind(node) in ("menuitem", "menuitemcheckbox", "menuitemradio",
                           "xcuielementtypemenuitem")


def is_icon(node: UINode, tree: UITree) -> bool:
    """An image, or a control an icon is (an icon button or link named "Search")."""
    return _kind(node) in _IMAGES or "image" in _kind(node) or is_button(node, tree) \
        or is_link(node, tree)


# The role nouns a target may end with, and what each accepts. Longer phrases first.
ROLE_NOUNS: dict[str, Callable[[UINode, UITree], bool]] = {
    "radio button": is_radio, "check box": is_checkbox, "menu item": is_menu_item,
    "input box": is_field, "input field": is_field, "text box": is_field,
    "text field": is_field,
    "button": is_button, "link": is_link, "field": is_field, "input": is_field,
    "textbox": is_field, "box": is_field, "checkbox": is_checkbox, "radio": is_radio,
    "switch": is_switch, "toggle": is_switch, "tab": is_tab, "icon": is_icon,
}
# ... and in Chinese, as Midscene's Chinese docs write them ("邮箱地址输入框", "结账按钮"): a
# suffix, with or without a space before it. Longer nouns first (单选按钮 before 按钮).
CJK_ROLE_NOUNS: dict[str, Callable[[UINode, UITree], bool]] = {
    "单选按钮": is_radio, "菜单项": is_menu_item, "输入框": is_field, "文本框": is_field,
    "搜索框": is_field, "复选框": is_checkbox, "勾选框": is_checkbox, "单选框": is_radio,
    "标签页": is_tab, "选项卡": is_tab, "按钮": is_button, "链接": is_link, "开关": is_switch,
    "图标": is_icon, "框": is_field,
}
_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019",
                "\u300c": "\u300d", "\u300e": "\u300f", "\uff02": "\uff02",
                "\uff07": "\uff07"}
QUOTED = ""        # a `RolePhrase`'s noun for a whole target in quotes ("「提交订单」")


@dataclass(frozen=True)
class RolePhrase:
    """``prompt`` read as ``text`` + ``noun``: "the Sign in button" → "Sign in" + "button"."""

    text: str
    noun: str

    def fits(self, node: UINode, tree: UITree) -> bool:
        if self.noun == QUOTED:
            return True
        return {**ROLE_NOUNS, **CJK_ROLE_NOUNS}[self.noun](node, tree)

    def note(self) -> str:
        if self.noun == QUOTED:
            return f'found by text "{self.text}" (the quotes around it dropped)'
        return f'found by text "{self.text}" ({self.noun})'


def role_phrase(prompt: str) -> RolePhrase | None:
    """``prompt`` as text plus a trailing role noun (`ROLE_NOUNS`), a leading article
    dropped; or as text plus a Chinese one (`CJK_ROLE_NOUNS`, with or without a space:
    "登录按钮", "登录 按钮"); quotes around the text dropped (the "Sign in" button,
    「提交订单」按钮). A whole prompt in quotes ("「提交订单」") is its text, of any role
    (`QUOTED`). None when it does not end in a role noun or nothing is left before it."""
    words = prompt.split()
    if words and words[0].lower() in ARTICLES:
        words = words[1:]
    for noun in ROLE_NOUNS:
        n = len(noun.split())
        if len(words) > n and " ".join(words[-n:]).lower() == noun:
            text = _unquoted(" ".join(words[:-n]))
            return RolePhrase(text, noun) if text else None
    whole = " ".join(prompt.split())
    for noun in CJK_ROLE_NOUNS:
        if whole.endswith(noun):
            text = _unquoted(whole[:-len(noun)].strip())
            return RolePhrase(text, noun) if text else None
    text = _unquoted(whole)
    return RolePhrase(text, QUOTED) if text and text != whole else None


def _unquoted(text: str) -> str:
    """``text`` without a pair of quotes around it (`_QUOTE_PAIRS`)."""
    if len(text) > 1 and _QUOTE_PAIRS.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text
