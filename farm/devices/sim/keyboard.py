"""The soft keyboard of a simulated phone. While a text field of the app in front has the focus
(until it is dismissed) it covers the lower part of the screen, as a real one does: the
screenshot shows it, a touch there hits its keys (a letter is typed) and not the app, and the
app's views under it stay in the app's tree with their bounds (uiautomator dumps the app's
window; the keyboard is a window of its own). Android says where it is in ``dumpsys window
InputMethod``; an iPhone's WDA source holds it as an ``XCUIElementTypeKeyboard``.

Boxes are (x1, y1, x2, y2) in the unit of the ``width`` x ``height`` given (Android: physical
pixels, iOS: points).
"""

from __future__ import annotations

import io
from xml.sax.saxutils import quoteattr

Box = tuple[int, int, int, int]
ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
SPACE, RETURN = "space", "return"


def box(width: int, height: int) -> Box:
    """Where the keyboard is: the lower 40% of an upright screen, 55% of a turned one."""
    part = 0.4 if height >= width else 0.55
    return 0, height - round(height * part), width, height


def keys(width: int, height: int) -> list[tuple[str, Box]]:
    """Each key's label and box: three rows of letters, then space and return."""
    x1, top, x2, bottom = box(width, height)
    row_h = (bottom - top) // 5
    out: list[tuple[str, Box]] = []
    for r, row in enumerate(ROWS):
        key_w = (x2 - x1) // 10
        left = x1 + (x2 - x1 - key_w * len(row)) // 2
        y = top + row_h // 2 + r * row_h
        out += [(ch, (left + i * key_w, y, left + (i + 1) * key_w, y + row_h))
                for i, ch in enumerate(row)]
    y = top + row_h // 2 + 3 * row_h
    out.append((SPACE, (x1 + (x2 - x1) // 4, y, x1 + (x2 - x1) * 3 // 4, y + row_h)))
    out.append((RETURN, (x1 + (x2 - x1) * 3 // 4, y, x2, y + row_h)))
    return out


def covers(x: float, y: float, width: int, height: int) -> bool:
    """Whether a touch at (x, y) lands on the keyboard."""
    x1, y1, x2, y2 = box(width, height)
    return x1 <= x < x2 and y1 <= y < y2


def key_at(x: float, y: float, width: int, height: int) -> str | None:
    """The label of the key at (x, y), or None (between keys: the keyboard takes the touch,
    nothing is typed)."""
    for label, (x1, y1, x2, y2) in keys(width, height):
        if x1 <= x < x2 and y1 <= y < y2:
            return label
    return None


def ime_window(width: int, height: int, shown: bool) -> str:
    """What ``dumpsys window InputMethod`` says of the keyboard's window (Android 12+)."""
    _, top, _, _ = box(width, height)
    return ("WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            "  Window #2 Window{8d1f2a u0 InputMethod}:\n"
            "    mAttrs={(0,0)(fillxwrap) gr=BOTTOM CENTER_VERTICAL sim={adjust=pan} "
            "ty=INPUT_METHOD fmt=TRANSPARENT}\n"
            f"    mHasSurface={str(shown).lower()} isReadyForDisplay()="
            f"{str(shown).lower()}\n"
            f"    Frames: parent=[0,0][{width},{height}] display=[0,0][{width},{height}] "
            f"frame=[0,{top}][{width},{height}] last frame=[0,{top}][{width},{height}]\n"
            "    mGivenContentInsets=[0,0][0,0] mGivenVisibleInsets=[0,0][0,0]\n")


def wda_element(width: int, height: int, index: int) -> str:
    """The ``XCUIElementTypeKeyboard`` a WDA source holds while the keyboard shows."""
    def element(kind: str, b: Box, name: str, i: int, inner: str = "") -> str:
        x1, y1, x2, y2 = b
        attrs = (f'type="XCUIElementType{kind}" name={quoteattr(name)} '
                 f'label={quoteattr(name)} enabled="true" visible="true" '
                 f'accessible="{str(kind == "Key").lower()}" x="{x1}" y="{y1}" '
                 f'width="{x2 - x1}" height="{y2 - y1}" index="{i}"')
        return (f"<XCUIElementType{kind} {attrs}>{inner}</XCUIElementType{kind}>" if inner
                else f"<XCUIElementType{kind} {attrs}/>")
    inner = "".join(element("Key", b, label, i) for i, (label, b)
                    in enumerate(keys(width, height)))
    return element("Keyboard", box(width, height), "", index, inner)


def draw(png: bytes, scale: float) -> bytes:
    """``png`` (the app's screen, ``scale`` pixels a unit) with the keyboard over its bottom."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.open(io.BytesIO(png)).convert("RGB")
    w, h = round(img.size[0] / scale), round(img.size[1] / scale)
    pen = ImageDraw.Draw(img)

    def px(b: Box) -> tuple[float, float, float, float]:
        return b[0] * scale, b[1] * scale, b[2] * scale, b[3] * scale
    pen.rectangle(px(box(w, h)), fill=(210, 213, 219))
    all_keys = keys(w, h)
    font = ImageFont.load_default(size=max(round((all_keys[0][1][3] - all_keys[0][1][1])
                                                 * scale * 0.45), 8))
    for label, b in all_keys:
        x1, y1, x2, y2 = px(b)
        pen.rounded_rectangle((x1 + 3 * scale, y1 + 4 * scale, x2 - 3 * scale, y2 - 4 * scale),
                              radius=4 * scale, fill=(255, 255, 255))
        pen.text(((x1 + x2) / 2, (y1 + y2) / 2), label, fill=(0, 0, 0), font=font,
                 anchor="mm")
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()
