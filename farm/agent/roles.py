"""A target written as text plus a role noun: "Sign in button", "the Username field".

Midscene's docs write targets that way, and a model reads them as meant. The text tier
(`farm.agent.locator.find_target`) reads them too, with no model: when the whole prompt
matches nothing, a leading article (the / a / an) and a trailing role noun from `ROLE_NOUNS`
are taken off, the rest is matched as what an element shows is (exact, then whole words;
not ids: "the gear icon" stays a model's), and only an element of a role that noun names
counts. No synonyms: "Login button" does not find a button that reads "Sign in"."""

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
_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}


@dataclass(frozen=True)
class RolePhrase:
    """``prompt`` read as ``text`` + ``noun``: "the Sign in button" → "Sign in" + "button"."""

    text: str
    noun: str

    def fits(self, node: UINode, tree: UITree) -> bool:
        return ROLE_NOUNS[self.noun](node, tree)

    def note(self) -> str:
        return f'found by text "{self.text}" ({self.noun})'


def role_phrase(prompt: str) -> RolePhrase | None:
    """``prompt`` as text plus a trailing role noun (`ROLE_NOUNS`), a leading article
    dropped; quotes around the text dropped (the "Sign in" button). None when it does not end
    in a role noun or nothing is left before it."""
    words = prompt.split()
    if words and words[0].lower() in ARTICLES:
        words = words[1:]
    for noun in ROLE_NOUNS:
        n = len(noun.split())
        if len(words) > n and " ".join(words[-n:]).lower() == noun:
            text = " ".join(words[:-n])
            if len(text) > 1 and _QUOTE_PAIRS.get(text[0]) == text[-1]:
                text = text[1:-1].strip()
            return RolePhrase(text, noun) if text else None
    return None
