"""Native UI trees generated from a page's DOM (as walked by farm/devices/web/dom.js).

Pure functions: DOM node dicts with CSS-pixel rects → the XML a real ``uiautomator dump``
(physical pixels) or WebDriverAgent ``/source`` (points) would return.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Collection
from xml.sax.saxutils import quoteattr

from farm.text import xml_chars

EMPTY_UIAUTOMATOR = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" \
                    '<hierarchy rotation="0" />'

# DOM role → Android widget class / XCUIElementType.
_ANDROID = {"button": "android.widget.Button", "a": "android.widget.TextView",
            "link": "android.widget.TextView", "img": "android.widget.ImageView",
            "select": "android.widget.Spinner", "textarea": "android.widget.EditText",
            "input:checkbox": "android.widget.CheckBox", "checkbox": "android.widget.CheckBox",
            "input:radio": "android.widget.RadioButton", "input:submit": "android.widget.Button",
            "input:button": "android.widget.Button"}
_IOS = {"button": "Button", "a": "Link", "link": "Link", "img": "Image", "select": "Picker",
        "textarea": "TextView", "input:checkbox": "Switch", "checkbox": "Switch",
        "input:password": "SecureTextField", "input:submit": "Button", "input:button": "Button",
        "h1": "StaticText", "h2": "StaticText", "h3": "StaticText"}


# What uiautomator's AccessibilityNodeInfoDumper writes as "." (stripInvalidXMLChars: the
# controls XML cannot hold, C1 controls but NEL, U+FDD0-U+FDDF); WebDriverAgent drops every
# character outside XML's Char production (fb_xmlSafeStringWithReplacement:@"").
_UIAUTOMATOR_STRIPPED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f"
                                   "\ufdd0-\ufddf\ufffe\uffff]")


def uiautomator_text(text: str) -> str:
    """An attribute value as a real ``uiautomator dump`` writes it."""
    return _UIAUTOMATOR_STRIPPED.sub(".", text)


def wda_text(text: str) -> str:
    """An attribute value as WebDriverAgent's ``/source`` writes it."""
    return xml_chars(text)


def _children(nodes: list[dict[str, Any]]) -> dict[int | None, list[dict[str, Any]]]:
    kids: dict[int | None, list[dict[str, Any]]] = {}
    for n in nodes:
        kids.setdefault(n.get("parent"), []).append(n)
    return kids


def on_screen(dom: dict[str, Any], viewport: dict[str, float], width: int,
              height: int) -> dict[str, Any]:
    """``dom`` (rects relative to the layout viewport, as getBoundingClientRect gives them)
    with rects where they appear on a ``width`` x ``height`` CSS-pixel screen showing the
    visual ``viewport`` ({scale, left, top}): a page without a viewport meta tag is laid out
    980 px wide and zoomed out to fit, and its tree must say so. ``visible`` is recomputed:
    on this screen at all."""
    scale = viewport.get("scale") or 1.0
    left, top = viewport.get("left") or 0.0, viewport.get("top") or 0.0
    nodes = []
    for node in dom.get("nodes") or []:
        r = node["rect"]
        x, y = round((r["x"] - left) * scale), round((r["y"] - top) * scale)
        w, h = round(r["width"] * scale), round(r["height"] * scale)
        nodes.append({**node, "rect": {"x": x, "y": y, "width": w, "height": h},
                      "visible": w > 0 and h > 0 and x + w > 0 and y + h > 0 and x < width
                      and y < height})
    return {**dom, "nodes": nodes}


def android_class(node: dict[str, Any]) -> str:
    role = node.get("role", "")
    if node.get("editable") or role.startswith("input:") and role not in _ANDROID:
        return "android.widget.EditText"
    if role in _ANDROID:
        return _ANDROID[role]
    if node.get("text"):
        return "android.widget.TextView"
    scroll = node.get("scroll") or ""        # an element that scrolls (screen.dom): which way
    if scroll:
        return "android.widget.ScrollView" if "y" in scroll else \
            "android.widget.HorizontalScrollView"
    return "android.view.View"


def ios_type(node: dict[str, Any]) -> str:
    role = node.get("role", "")
    if role in _IOS:
        return "XCUIElementType" + _IOS[role]
    if node.get("editable"):
        return "XCUIElementTypeTextField"
    return "XCUIElementType" + ("StaticText" if node.get("text") else "Other")


def uiautomator_xml(dom: dict[str, Any], package: str, width: int, height: int,
                    dpr: float, rotation: int = 0) -> str:
    """A ``uiautomator dump`` of ``dom`` inside a full-screen FrameLayout of ``package``.

    ``width``/``height`` are the screen's physical pixels as it is turned (``rotation``, as
    the dump's root says it: 1 and 3 landscape); DOM rects are scaled by ``dpr``.
    Password fields carry no text, as on Android. Only what the user can see is dumped, as a
    real dump writes only the children that are ``isVisibleToUser`` (a RecyclerView's rows
    scrolled away do not exist at all): a node wholly off the screen, or outside the scrolling
    element it is in, is left out with what it holds (unless something inside it shows: a
    fixed header in a section scrolled away), and a partly shown one has its bounds clipped to
    what shows (AccessibilityNodeInfoHelper.getVisibleBoundsInScreen). A node keeps its index
    among all its parent's children, as a real dump's do. Elements that scroll say
    ``scrollable="true"``; the page itself does so on the root frame.
    """
    kids = _children(dom.get("nodes") or [])
    shown = _shown_bounds(kids, dpr, (0, 0, width, height))

    def element(node: dict[str, Any], index: int) -> tuple[str, dict[str, Any]]:
        box = shown.get(node["id"])
        bounds = f"[{box[0]},{box[1]}][{box[2]},{box[3]}]" if box else \
            _pixel_bounds(node["rect"], dpr, width, height)
        return "node", _android_attrs(node, index, package, bounds)

    scrolls = str(bool(dom.get("page_scroll"))).lower()
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
           f'<hierarchy rotation="{rotation}">',
           f'  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
           f'package={quoteattr(package)} content-desc="" checkable="false" '
           f'checked="false" clickable="false" enabled="true" focusable="false" '
           f'focused="false" scrollable="{scrolls}" long-clickable="false" password="false" '
           f'selected="false" bounds="[0,0][{width},{height}]">']
    _emit(kids, None, 2, element, " />", out, uiautomator_text, keep=shown)
    out.append("  </node>")
    out.append("</hierarchy>")
    return "\n".join(out)


Box = tuple[int, int, int, int]       # physical pixels: left, top, right, bottom


def _shown_bounds(kids: dict[int | None, list[dict[str, Any]]], dpr: float,
                  screen: Box) -> dict[int, Box | None]:
    """Which nodes a real dump writes: node id → its bounds clipped to what shows, or None for
    a node not shown itself but holding one that is. A node's children are clipped to the
    screen and to every element around them that scrolls (or is a frame): what a list has
    scrolled away is hidden even where the screen would show it."""
    out: dict[int, Box | None] = {}

    def visit(parent: int | None, clip: Box) -> bool:
        any_shown = False
        for node in kids.get(parent, []):
            r = node["rect"]
            box = (round(r["x"] * dpr), round(r["y"] * dpr),
                   round((r["x"] + r["width"]) * dpr), round((r["y"] + r["height"]) * dpr))
            seen = (max(box[0], clip[0]), max(box[1], clip[1]),
                    min(box[2], clip[2]), min(box[3], clip[3]))
            shows = seen[2] > seen[0] and seen[3] > seen[1]
            inner = seen if node.get("scroll") or node.get("role") in ("iframe", "frame") \
                else clip
            holds = node["id"] in kids and visit(node["id"], inner if shows else clip)
            if shows or holds:
                out[node["id"]] = seen if shows else None
                any_shown = True
        return any_shown

    visit(None, screen)
    return out


def _pixel_bounds(rect: dict[str, int], dpr: float, width: int, height: int) -> str:
    """A CSS-pixel rect as uiautomator's ``[x1,y1][x2,y2]`` in physical pixels, on screen."""
    def clamp(value: float, limit: int) -> int:
        return max(0, min(limit, round(value * dpr)))

    return (f"[{clamp(rect['x'], width)},{clamp(rect['y'], height)}]"
            f"[{clamp(rect['x'] + rect['width'], width)},"
            f"{clamp(rect['y'] + rect['height'], height)}]")


def _android_attrs(node: dict[str, Any], index: int, package: str,
                   bounds: str) -> dict[str, Any]:
    password = node.get("role") == "input:password"
    text = "" if password else (node.get("value") or node.get("text") or "")
    # only the placeholder: the <label> is its own TextView, as in a native form
    hint = node.get("placeholder") or ""
    widget = android_class(node)
    if widget == "android.widget.EditText" and not text:
        text = hint          # an empty EditText shows its hint as text, disabled or not
    clickable = bool(node.get("clickable"))
    return {
        "index": index, "text": text,
        "resource-id": f"{package}:id/{node['resource_id']}" if node.get("resource_id")
        else "",
        "class": widget, "package": package,
        "content-desc": node.get("name") or "",
        "checkable": str(node.get("role") in ("input:checkbox", "input:radio")).lower(),
        "checked": "false", "clickable": str(clickable).lower(),
        "enabled": _enabled(node),
        "focusable": str(clickable or bool(node.get("editable"))).lower(),
        "focused": str(bool(node.get("focused"))).lower(),
        "scrollable": str(bool(node.get("scroll"))).lower(),
        "long-clickable": "false",
        "password": str(password).lower(), "selected": "false",
        "bounds": bounds,
    }


def _enabled(node: dict[str, Any]) -> str:
    """A disabled control (``<button disabled>``) is ``enabled="false"`` in both trees, as a
    phone says of a control that is greyed out: farm waits for it or says it is disabled."""
    return "false" if node.get("enabled") is False else "true"


def wda_xml(dom: dict[str, Any] | None, bundle: str, width: int, height: int) -> str:
    """A WebDriverAgent ``/source?format=xml`` of ``dom`` (rects in points = CSS pixels)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<XCUIElementTypeApplication type="XCUIElementTypeApplication" '
           f'name={quoteattr(bundle)} label={quoteattr(bundle)} enabled="true" visible="true" '
           f'accessible="false" x="0" y="0" width="{width}" height="{height}" index="0">']
    _emit(_children((dom or {}).get("nodes") or []), None, 1, _ios_element, "/>", out, wda_text)
    out.append("</XCUIElementTypeApplication>")
    return "\n".join(out)


def _ios_element(node: dict[str, Any], index: int) -> tuple[str, dict[str, Any]]:
    kind = ios_type(node)
    r = node["rect"]
    password = node.get("role") == "input:password"
    # the accessible name only: a <label> is its own StaticText, as in a native form
    label = node.get("name") or ""
    value = "" if password else (node.get("value") or node.get("text") or "")
    name = node.get("resource_id") or label or value
    return kind, {"type": kind, "name": name, "label": label or value,
                  "value": value or node.get("placeholder") or "",
                  "placeholderValue": node.get("placeholder") or "",
                  "enabled": _enabled(node),
                  "visible": str(bool(node.get("visible", True))).lower(),
                  "accessible": str(bool(node.get("clickable") or value)).lower(),
                  "x": r["x"], "y": r["y"], "width": r["width"], "height": r["height"],
                  "index": index}


def _emit(kids: dict[int | None, list[dict[str, Any]]], parent: int | None, depth: int,
          element: Callable[[dict[str, Any], int], tuple[str, dict[str, Any]]],
          self_closing: str, out: list[str], safe: Callable[[str], str],
          keep: Collection[int] | None = None) -> None:
    """Append ``parent``'s children (and theirs) to ``out`` as XML elements, indented by depth;
    ``element`` gives a node's tag and attributes, ``safe`` what the device writes for a
    value's characters XML cannot hold; ``keep``, when given, the ids of the nodes written
    (each keeps its index among all its parent's children)."""
    for index, node in enumerate(kids.get(parent, [])):
        if keep is not None and node["id"] not in keep:
            continue
        tag, attrs = element(node, index)
        pad = "  " * depth
        body = " ".join(f"{k}={quoteattr(safe(str(v)))}" for k, v in attrs.items())
        inside = kids.get(node["id"], [])
        if not any(keep is None or n["id"] in keep for n in inside):
            out.append(f"{pad}<{tag} {body}{self_closing}")
            continue
        out.append(f"{pad}<{tag} {body}>")
        _emit(kids, node["id"], depth + 1, element, self_closing, out, safe, keep)
        out.append(f"{pad}</{tag}>")
