"""The system's runtime-permission dialog of a simulated Android phone: what an app that asks
for a permission as it starts (notifications, the camera) puts in front of itself, owned by the
permission controller, not the app. Its UI dump, its pixels over the app's, and which of its
buttons a tap hits; all in physical pixels of a ``width`` x ``height`` screen.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import quoteattr

PACKAGE = "com.google.android.permissioncontroller"
ACTIVITY = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
_IDS = "com.android.permissioncontroller:id/"
BUTTONS = (("Allow", "permission_allow_button"), ("Don't allow", "permission_deny_button"))

Box = tuple[int, int, int, int]


def message(app: str) -> str:
    """What the dialog asks: the app named by its package's last part."""
    return f"Allow {app.rsplit('.', 1)[-1].capitalize()} to send you notifications?"


def layout(width: int, height: int) -> dict[str, Box]:
    """(x1, y1, x2, y2) of the dialog, its message and each button (by resource id)."""
    x1, x2 = width * 8 // 100, width * 92 // 100
    row = max(height // 16, 48)
    y1 = (height - 4 * row) // 2
    boxes = {"grant_dialog": (x1, y1, x2, y1 + 4 * row),
             "permission_message": (x1, y1, x2, y1 + 2 * row)}
    for i, (_, rid) in enumerate(BUTTONS):
        boxes[rid] = (x1, y1 + (2 + i) * row, x2, y1 + (3 + i) * row)
    return boxes


def button_at(x: float, y: float, width: int, height: int) -> str | None:
    """The resource id of the button at (x, y), or None (a tap beside them does nothing)."""
    for _, rid in BUTTONS:
        x1, y1, x2, y2 = layout(width, height)[rid]
        if x1 <= x < x2 and y1 <= y < y2:
            return rid
    return None


def _node(cls: str, box: Box, rid: str = "", text: str = "", clickable: bool = False,
          inner: str = "") -> str:
    x1, y1, x2, y2 = box
    flag = str(clickable).lower()
    return (f'<node index="0" text={quoteattr(text)} resource-id={quoteattr(rid)} '
            f'class="{cls}" package="{PACKAGE}" content-desc="" checkable="false" '
            f'checked="false" clickable="{flag}" enabled="true" focusable="{flag}" '
            f'focused="false" scrollable="false" long-clickable="false" password="false" '
            f'selected="false" bounds="[{x1},{y1}][{x2},{y2}]"'
            + (f">{inner}</node>" if inner else " />"))


def dump(app: str, width: int, height: int, rotation: int) -> str:
    """The ``uiautomator dump`` of the screen while the dialog is in front."""
    boxes = layout(width, height)
    inner = _node("android.widget.TextView", boxes["permission_message"],
                  _IDS + "permission_message", message(app))
    inner += "".join(_node("android.widget.Button", boxes[rid], _IDS + rid, label, True)
                     for label, rid in BUTTONS)
    dialog = _node("android.widget.LinearLayout", boxes["grant_dialog"], _IDS + "grant_dialog",
                   inner=inner)
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="{rotation}">'
            + _node("android.widget.FrameLayout", (0, 0, width, height), inner=dialog)
            + "</hierarchy>")


def draw(png: bytes, app: str) -> bytes:
    """``png`` (the app's screen) dimmed, with the dialog drawn over it."""
    from PIL import Image, ImageDraw

    from farm.devices.sim.fonts import font_for

    img = Image.open(io.BytesIO(png)).convert("RGB")
    img = Image.blend(img, Image.new("RGB", img.size, (0, 0, 0)), 0.6)
    boxes = layout(*img.size)
    pen = ImageDraw.Draw(img)
    size = max(img.size[1] // 60, 10)
    font = font_for("".join(label for label, _ in BUTTONS), size)
    pen.rectangle(boxes["grant_dialog"], fill=(250, 250, 250))
    x1, y1, _, _ = boxes["permission_message"]
    pen.text((x1 + 40, y1 + 40), message(app), fill=(20, 20, 20),
             font=font_for(message(app), size))
    for label, rid in BUTTONS:
        bx1, by1, bx2, by2 = boxes[rid]
        pen.rectangle((bx1 + 30, by1 + 10, bx2 - 30, by2 - 10), fill=(210, 227, 252))
        pen.text((bx1 + 60, by1 + 30), label, fill=(10, 60, 140), font=font)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()
