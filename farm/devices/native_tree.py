"""Native UI trees → `UITree`: uiautomator dumps (Android) and WDA sources (iOS).

Pure functions, shared by the drivers and their unit tests.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Callable

from farm.devices.base import Rect, UINode, UITree
from farm.errors import StepFailed
from farm.text import clean, cut, xml_chars

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_EDITABLE_IOS = {"XCUIElementTypeTextField", "XCUIElementTypeSecureTextField",
                 "XCUIElementTypeTextView", "XCUIElementTypeSearchField"}
_CLICKABLE_IOS = _EDITABLE_IOS | {"XCUIElementTypeButton", "XCUIElementTypeLink",
                                  "XCUIElementTypeCell", "XCUIElementTypeSwitch",
                                  "XCUIElementTypeTab", "XCUIElementTypePicker"}


def _root(xml: str | bytes) -> ET.Element:
    """The parsed document; ValueError when it is not XML (ElementTree's ParseError is a
    SyntaxError). A lone surrogate (WDA's JSON can carry one) becomes U+FFFD first, and a
    character XML cannot hold (an app's text with a control character in it) is dropped, as
    WebDriverAgent drops it: one such character must not cost the whole screen its tree."""
    if isinstance(xml, bytes):
        xml = xml.decode("utf-8", "replace")
    try:
        return ET.fromstring(xml_chars(clean(xml)).encode("utf-8"))
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from exc


def parse_xml(xml: str | bytes) -> ET.Element:
    """A device's XML tree (a dump, a source) parsed as `parse_uiautomator` reads it;
    ValueError when it is not XML."""
    return _root(xml)


def parse_uiautomator(xml: str, width: int, height: int) -> UITree:
    """A ``uiautomator dump`` → UITree (physical pixels). Raises ValueError on bad XML."""
    root = _root(xml)
    nodes: list[UINode] = []

    def visit(el: ET.Element, parent: int | None) -> None:
        for child in el:
            if child.tag != "node":
                continue
            m = _BOUNDS.match(child.get("bounds", ""))
            x1, y1, x2, y2 = (int(v) for v in m.groups()) if m else (0, 0, 0, 0)
            rid = child.get("resource-id", "")
            cls = child.get("class", "")
            node = UINode(
                id=len(nodes), parent=parent, role=cls, text=child.get("text", ""),
                name=child.get("content-desc", ""), resource_id=rid.split(":id/")[-1],
                placeholder=child.get("hint", ""),      # Android 16's uiautomator writes it
                rect=Rect(x=x1, y=y1, width=max(0, x2 - x1), height=max(0, y2 - y1)),
                clickable=child.get("clickable") == "true"
                or child.get("long-clickable") == "true",
                editable="EditText" in cls and child.get("enabled") != "false",
                enabled=child.get("enabled") != "false",
                visible=x2 > x1 and y2 > y1 and x2 > 0 and y2 > 0 and x1 < width
                and y1 < height)
            nodes.append(node)
            visit(child, node.id)

    visit(root, None)
    return UITree(source="uiautomator", nodes=nodes)


def parse_wda(xml: str, width: int, height: int) -> UITree:
    """A WDA ``/source`` → UITree (points); ValueError on bad XML. The Application element
    itself is not a node."""
    root = _root(xml)
    nodes: list[UINode] = []

    def num(el: ET.Element, key: str) -> int:
        try:
            return round(float(el.get(key, "0")))
        except ValueError:
            return 0

    def visit(el: ET.Element, parent: int | None) -> None:
        for child in el:
            kind = child.get("type", child.tag)
            x, y, w, h = num(child, "x"), num(child, "y"), num(child, "width"), num(child, "height")
            label, value = child.get("label", ""), child.get("value", "")
            placeholder = child.get("placeholderValue", "")
            editable = kind in _EDITABLE_IOS
            node = UINode(
                id=len(nodes), parent=parent, role=kind,
                text="" if editable and value == placeholder else value,
                name=label if label != value else "", placeholder=placeholder,
                resource_id=child.get("name", "") if child.get("name") not in (label, value)
                else "",
                rect=Rect(x=x, y=y, width=w, height=h),
                clickable=kind in _CLICKABLE_IOS, editable=editable,
                enabled=child.get("enabled", "true") != "false",
                visible=child.get("visible", "true") == "true" and w > 0 and h > 0
                and x + w > 0 and y + h > 0 and x < width and y < height)
            nodes.append(node)
            visit(child, node.id)

    visit(root, None)
    return UITree(source="wda", nodes=nodes)


def secret_boxes(tree: UITree, hide: Callable[[str], str]) -> list[list[int]]:
    """[x, y, width, height] (the tree's units) of each visible node of ``tree`` whose text,
    label (content-desc) or value holds a secret: ``hide`` (the case's mask, `Variables.mask`)
    changes it, as it finds a secret in any of its forms, a short credential typed whole
    included (the browser's test of a field's value: `farm.devices.web.capture.
    secret_fields`). What a phone's screenshot has blacked out: a node's whole box (a tree
    has none for part of a text); a node one of whose descendants holds it too is left to
    those (an iOS cell's label repeats its texts', an Android view's content-desc its
    children's)."""
    found = [n for n in tree.nodes if n.visible and n.rect.width > 0 and n.rect.height > 0
             and any(t and hide(t) != t for t in (n.text, n.name, n.placeholder))]
    if not found:
        return []
    outer = {a.id for n in found for a in tree.ancestors(n)}
    return [n.rect.as_list() for n in found if n.id not in outer]


_FIRST_STEP = re.compile(r"/([^/\[\s]+)")        # an absolute path's first element name
# a step naming an Android view class (android.widget.Button, androidx.…, com.app.MyView)
_CLASS_STEP = re.compile(r"(?:^|/)([a-z]\w*(?:\.\w+)+)(?=$|[/\[])")


def query_xml(xml: str, xpath: str, tree: UITree) -> list[Rect]:
    """Rects of visible elements of a native XML tree matching ``xpath`` (ElementTree's XPath
    subset: ``//node[@text='Sign in']``, ``//XCUIElementTypeButton[@name='x']``; on Android
    Appium's ``//android.widget.Button[@text='Sign in']`` too)."""
    root = _root(xml)
    # walk in the same order as the parsers, so the n-th element is the n-th node
    order = [el for el in root.iter() if el is not root and (el.tag == "node" or root.tag !=
                                                              "hierarchy")]
    found = _matches(root, xpath)
    if not found and root.tag == "hierarchy" and _CLASS_STEP.search(xpath):
        # Appium's XPaths name a dump's elements by class (//android.widget.Button[@text=
        # 'Go']), as its page source does: the dump's `node`s named so, asked again
        for el in order:
            el.tag = el.get("class") or el.tag
        found = _matches(root, xpath)
    rects = []
    for el, node in zip(order, tree.nodes):
        if id(el) in found and node.visible:
            rects.append(node.rect)
    return rects


def _matches(root: ET.Element, xpath: str) -> set[int]:
    """ids of the elements under ``root`` that ``xpath`` selects."""
    path = xpath.strip()
    scope = root
    first = _FIRST_STEP.match(path)
    if first and first.group(1) in (root.tag, "*"):
        # an absolute XPath from the document's root element, as XPath means it (Appium
        # Inspector's `/XCUIElementTypeApplication/XCUIElementTypeWindow[1]/...`, a dump's
        # `/hierarchy/node[1]/...`): its first step is the root itself
        scope = ET.Element("document")
        scope.append(root)
    if path.startswith("/"):
        path = "." + path       # (farm's own `/node[1]/node[2]`: steps below the root)
    try:
        return set(map(id, scope.iterfind(path)))
    except (SyntaxError, KeyError, ValueError, TypeError) as exc:
        raise StepFailed(f"invalid XPath {xpath!r} (native trees take ElementTree's XPath "
                         f"subset): {_xpath_problem(path, exc)}") from None


def _xpath_problem(path: str, exc: Exception) -> str:
    """What ElementTree's XPath parser found wrong, in words: an unclosed ``[`` made it
    call None (a TypeError, which ended the case as farm's internal error)."""
    if path.count("[") > path.count("]"):
        return "a [ is not closed"
    if isinstance(exc, KeyError):        # the token it has no rule for
        return f"{exc.args[0]!r} is not understood there"
    return str(exc) if not isinstance(exc, TypeError) else "it ends inside a step"


# -- what keeps a phone's screen from showing the case's app or page ----------------------------
# (`AndroidDevice.error_page` / `IosDevice.error_page`: a step that missed its target or failed
# says it, where the miss read as a step for a model, skipped, and the run passed)

# The titles a phone's browser puts on its own page for one it could not load: Chrome's (Android
# and iOS), an Android WebView's, Safari's; matched against each text of the screen.
_NOT_LOADED = re.compile(
    r"This site can[’']t be reached|This page isn[’']t working|"
    r"This site can[’']t provide a secure connection|Your connection is not private|"
    r"You[’']re offline|No internet|Web ?page not available|This .{1,80} page can[’']t be "
    r"found|Safari (?:can[’']t|cannot) (?:open the page|find the server|connect)|"
    r"Cannot Open Page", re.I)
# the reason code Chrome's error page prints under its title (NET:: for a certificate)
_NET_CODE = re.compile(r"\b(?:NET::)?(ERR_[A-Z0-9_]+)\b")
# an HTTP error as a page shows it: Chrome's own ("HTTP ERROR 404", for an empty body), a
# server's error page (Python's "Error code: 404", nginx's "404 Not Found")
_HTTP_SHOWN = re.compile(r"\bHTTP ERROR ([45]\d\d)\b|\bError code:? ([45]\d\d)\b|"
                         r"\b([45]\d\d)[\s:–-]+([A-Za-z][A-Za-z' -]{1,40})")


def shown_texts(tree: UITree) -> list[str]:
    """The texts of ``tree``'s visible nodes, in order (an element's text, else its label)."""
    return [n.text or n.name for n in tree.nodes if n.visible and (n.text or n.name)]


def http_error_shown(texts: list[str]) -> str | None:
    """'404 Not Found ("Error code: 404")' when one of ``texts`` shows an HTTP error
    status (4xx, 5xx): a phone's browser does not say what its server answered, its page does.
    A number followed by words counts only when the words are that status's phrase."""
    from http import HTTPStatus
    for text in texts:
        for m in _HTTP_SHOWN.finditer(text):
            code = int(m.group(1) or m.group(2) or m.group(3))
            try:
                phrase = HTTPStatus(code).phrase
            except ValueError:
                continue
            if m.group(3) and not m.group(4).strip().lower().startswith(phrase.lower()):
                continue
            return f'{code} {phrase} ("{_line(m.group(0).strip())}")'
    return None


def browser_error_shown(texts: list[str]) -> str | None:
    """'"This site can’t be reached" (ERR_CONNECTION_REFUSED)' when ``texts`` hold a phone's
    browser's error page: its title, and the reason code it prints when it does."""
    title = next((t for t in texts if _NOT_LOADED.search(t)), None)
    if title is None:
        return None
    code = next((m.group(0) for t in texts if (m := _NET_CODE.search(t))), None)
    return f'"{_line(title)}"' + (f" ({code})" if code else "")


def page_failure(texts: list[str], opened: str | None) -> str | None:
    """What a failed step adds about a page that did not show (`error_page`), from the screen's
    ``texts``: the browser's error page, or (when the case opened a URL, ``opened``, as the
    user sees it) an HTTP error the page shows; None when the screen shows neither."""
    said = f"; the case opened {opened}" if opened else ""
    status = http_error_shown(texts) if opened else None
    if status is not None:
        return f"the page shows HTTP error {status}{said}"
    failed = browser_error_shown(texts)
    return None if failed is None else f"the browser could not load the page: {failed}{said}"


_BUTTON_CLASSES = ("Button",)
_MESSAGE_IDS = ("permission_message", "alertTitle", "message", "aerr_title")


def android_dialog(xml: str, fronts: tuple[str, ...]) -> tuple[str, list[str]] | None:
    """(what it says, its buttons) of a system dialog a ``uiautomator dump`` shows in front: its
    window is one of ``fronts``' packages (the permission controller asking for a runtime
    permission, the system's "isn't responding"); None for any other window, or an
    unreadable dump."""
    try:
        root = _root(xml)
    except ValueError:
        return None
    first = next((n for n in root.iter("node")), None)
    if first is None or first.get("package") not in fronts:
        return None
    texts: list[tuple[str, str]] = []       # (resource id, text) of the texts not buttons
    buttons: list[str] = []
    for el in root.iter("node"):
        text = (el.get("text") or el.get("content-desc") or "").strip()
        if not text:
            continue
        if any(k in el.get("class", "") for k in _BUTTON_CLASSES):
            buttons.append(text)
        else:
            texts.append((el.get("resource-id", "").split(":id/")[-1], text))
    said = next((t for rid, t in texts if rid in _MESSAGE_IDS), texts[0][1] if texts else "")
    return said, buttons


# the buttons that let an app go on, which a step answering the dialog would tap
_GOES_ON = re.compile(r"^(Allow|While using|Only this time|OK|Continue)", re.I)


def dialog_failure(kind: str, said: str, buttons: list[str], answerable: bool = True) -> str:
    """'a system dialog is in front of the app: "Allow Lab to …?" (buttons: Allow, Don't
    allow); answer it with a step first (aiTap: Allow)' for a dialog ``kind`` names; without
    the advice unless ``answerable`` (a case's launch failed: no step can come before it)."""
    shown = f': "{_line(said)}"' if said else ""
    if not buttons or not answerable:
        listed = f" (buttons: {', '.join(buttons)})" if buttons else ""
        return f"{kind} is in front of the app{shown}{listed}"
    tap = next((b for b in buttons if _GOES_ON.match(b)), buttons[0])
    return (f"{kind} is in front of the app{shown} (buttons: {', '.join(buttons)}); answer "
            f"it with a step first (aiTap: {tap})")


def _line(text: str) -> str:
    """``text`` on one line, cut at 120 characters."""
    return cut(" ".join(text.split()), 120)
