"""XPaths for the locate cache: generated for the node a locate hit, checked against the live
tree before a cached one is trusted; and for the plan cache, the XPath of what a box-only
target hit (`anchor`). Pure functions over `UITree` (the device is only asked
to evaluate an XPath).

Candidates come in order of how well they survive app changes: an id, then text anchors
(accessible name, placeholder, label, visible text), positions last. Each dialect is what the
platform's `Device.query_xpath` evaluates: XPath 1.0 over the DOM (web), ElementTree's subset
over a ``uiautomator dump`` (android: ``//node[@text='…']``) or a WDA source
(ios: ``//XCUIElementTypeButton[@name='…']``).
"""

from __future__ import annotations

import re
from typing import Callable

from farm.devices.base import Rect, UINode, UITree
from farm.errors import StepFailed

MAX_ANCHOR = 80          # longer texts change too often to be an anchor
_TAG = re.compile(r"^[a-z][a-z0-9-]*$")


def node_for_rect(tree: UITree, rect: Rect) -> UINode | None:
    """The node a hit means: one with exactly that rect (a tree tier's hit), else the smallest
    clickable or editable node holding the rect's centre, else the smallest node holding it."""
    visible = [n for n in tree.nodes if n.visible]
    exact = [n for n in visible if n.rect == rect]
    if exact:
        exact.sort(key=lambda n: (not (n.clickable or n.editable), -n.id))
        return exact[0]
    cx, cy = rect.center
    holding = [n for n in visible if n.rect.x <= cx < n.rect.x + n.rect.width
               and n.rect.y <= cy < n.rect.y + n.rect.height]
    if not holding:
        return None
    acting = [n for n in holding if n.clickable or n.editable]
    pool = acting or holding
    return min(pool, key=lambda n: (n.rect.width * n.rect.height, -n.id))


def _q(value: str) -> str | None:
    """``value`` quoted for an XPath literal; None when it holds both quote kinds."""
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    return None


def _anchor(value: str) -> bool:
    return bool(value.strip()) and len(value) <= MAX_ANCHOR and "\n" not in value


def candidates(tree: UITree, node: UINode, package: str | None = None) -> list[str]:
    """XPaths that may select ``node``, best first (unchecked: see `pick`)."""
    if tree.source == "dom":
        out = _web(node)
    elif tree.source == "uiautomator":
        out = _android(node, package)
    else:
        out = _ios(node)
    out.append(_position(tree, node))
    return [x for x in dict.fromkeys(out) if x]


def _web(node: UINode) -> list[str]:
    role = node.role.lower()
    tag = "input" if role.startswith("input:") else role if _TAG.match(role) else "*"
    out: list[str] = []

    def add(template: str, value: str) -> None:
        quoted = _q(value)
        if quoted and _anchor(value):
            out.append(template.format(tag=tag, v=quoted))

    if node.resource_id:
        add("//*[@id={v}]", node.resource_id)
        add("//*[@data-testid={v}]", node.resource_id)
    if node.name:
        add("//{tag}[@aria-label={v}]", node.name)
        add("//{tag}[@title={v}]", node.name)
        add("//{tag}[@alt={v}]", node.name)
        add("//{tag}[@value={v}]", node.name)
    if node.placeholder:
        add("//{tag}[@placeholder={v}]", node.placeholder)
    if node.label:
        add("//{tag}[@id=//label[normalize-space(.)={v}]/@for]", node.label)
        add("//label[normalize-space(.)={v}]//{tag}", node.label)
    if node.text and not node.editable:
        add("//{tag}[normalize-space(.)={v}]", node.text)
        add("//*[text()[normalize-space(.)={v}]]", node.text)
    return out


def _android(node: UINode, package: str | None) -> list[str]:
    out: list[str] = []
    cls = _q(node.role) if node.role else None

    def add(attr: str, value: str) -> None:
        quoted = _q(value)
        if quoted and _anchor(value):
            out.append(f"//node[@{attr}={quoted}]")
            if cls:
                out.append(f"//node[@class={cls}][@{attr}={quoted}]")

    if node.resource_id:
        for pkg in (package, "android"):
            if pkg:
                add("resource-id", f"{pkg}:id/{node.resource_id}")
    if node.name:
        add("content-desc", node.name)
    if node.text and not node.editable:
        add("text", node.text)
    if node.editable and node.text and node.text == node.placeholder:
        add("text", node.text)      # an empty EditText shows its hint
    return out


def _ios(node: UINode) -> list[str]:
    out: list[str] = []
    kind = node.role if re.match(r"^[A-Za-z][A-Za-z0-9]*$", node.role or "") else "*"

    def add(attr: str, value: str) -> None:
        quoted = _q(value)
        if quoted and _anchor(value):
            out.append(f"//{kind}[@{attr}={quoted}]")

    if node.resource_id:
        add("name", node.resource_id)
    for attr, value in (("label", node.name), ("name", node.name),
                        ("placeholderValue", node.placeholder)):
        if value:
            add(attr, value)
    if node.text and not node.editable:
        add("label", node.text)
        add("value", node.text)
    return out


def _position(tree: UITree, node: UINode) -> str:
    """A path of element positions from the root (native trees only: the DOM tree farm reads
    leaves out unrendered elements, so its positions are not the page's)."""
    if tree.source == "dom":
        return ""
    by_id = {n.id: n for n in tree.nodes}
    kids: dict[int | None, list[UINode]] = {}
    for n in tree.nodes:
        kids.setdefault(n.parent, []).append(n)
    steps: list[str] = []
    cur: UINode | None = node
    while cur is not None:
        tag = "node" if tree.source == "uiautomator" else cur.role
        same = [k for k in kids.get(cur.parent, []) if tree.source == "uiautomator"
                or k.role == cur.role]
        steps.append(f"{tag}[{same.index(cur) + 1}]")
        cur = by_id.get(cur.parent) if cur.parent is not None else None
    return "/" + "/".join(reversed(steps))


def on_screen(rect: Rect, screen: tuple[int, int]) -> bool:
    w, h = screen
    return (rect.width > 0 and rect.height > 0 and rect.x + rect.width > 0
            and rect.y + rect.height > 0 and rect.x < w and rect.y < h)


def same_place(a: Rect, b: Rect) -> bool:
    """Whether two rects mean the same element: each one's centre lies inside the other."""
    def inside(p: tuple[int, int], r: Rect) -> bool:
        return r.x <= p[0] <= r.x + r.width and r.y <= p[1] <= r.y + r.height
    return inside(a.center, b) and inside(b.center, a)


def pick(options: list[str], query: Callable[[str], list[Rect]], rect: Rect,
         safe: Callable[[str], bool] = lambda x: True) -> str | None:
    """The first candidate that selects exactly one element, in the same place as ``rect``
    (and that ``safe`` accepts: no secret value in it)."""
    for xpath in options:
        if not safe(xpath):
            continue
        try:
            rects = query(xpath)
        except StepFailed:      # an XPath the platform cannot evaluate: try the next
            continue
        if len(rects) == 1 and same_place(rects[0], rect):
            return xpath
    return None


def anchor(tree: UITree, rect: Rect, query: Callable[[str], list[Rect]],
           safe: Callable[[str], bool] = lambda x: True) -> str | None:
    """An XPath for what a box-only target (the planner's box, no description) hit: the
    element that acts on a tap there (clickable or editable) when one XPath selects exactly it
    (and ``safe`` takes: none holding a secret, which would keep the plan out of the cache).
    None when no such element holds the box's centre (a canvas, a plain text) or none of its
    XPaths is unique: the box is all there is."""
    node = node_for_rect(tree, rect)
    if node is None or not (node.clickable or node.editable):
        return None
    return pick(candidates(tree, node), query, node.rect, safe=safe)
