"""The system alert of a simulated iPhone: what an app that asks for a permission as it starts
(notifications) puts in front of itself. SpringBoard shows it, not the app: WebDriverAgent's
``/alert/*`` endpoints answer it, and only with its ``respectSystemAlerts`` setting on does
``/wda/activeAppInfo`` name SpringBoard and ``/source`` show SpringBoard's tree holding the
alert (off, its default, they say the app and the app's own tree, which holds no alert).
Its layout in points of a ``width`` x ``height`` screen, its source, its pixels over the app's.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import quoteattr

BUTTONS = ("Don’t Allow", "Allow")      # as iOS lays them out: the accepting one last
Box = tuple[int, int, int, int]


def title(app: str) -> str:
    return f"“{app.rsplit('.', 1)[-1].capitalize()}” Would Like to Send You Notifications"


MESSAGE = ("Notifications may include alerts, sounds, and icon badges. These can be "
           "configured in Settings.")


def text(app: str) -> str:
    """What ``GET /alert/text`` answers: the title and the message, a line each."""
    return f"{title(app)}\n{MESSAGE}"


def layout(width: int, height: int) -> dict[str, Box]:
    """(x, y, width, height) in points of the alert, its title, its message and each button
    (by label), the buttons side by side at its bottom."""
    w = min(270, width - 40)
    x, h = (width - w) // 2, 170
    y = (height - h) // 2
    boxes = {"alert": (x, y, w, h), "title": (x + 16, y + 20, w - 32, 44),
             "message": (x + 16, y + 66, w - 32, 56)}
    half = w // 2
    for i, label in enumerate(BUTTONS):
        boxes[label] = (x + i * half, y + h - 44, half, 44)
    return boxes


def button_at(x: float, y: float, width: int, height: int) -> str | None:
    """The label of the button at (x, y) points, or None (a touch beside them does nothing)."""
    for label in BUTTONS:
        bx, by, bw, bh = layout(width, height)[label]
        if bx <= x < bx + bw and by <= y < by + bh:
            return label
    return None


def _element(kind: str, box: Box, name: str, index: int, inner: str = "") -> str:
    x, y, w, h = box
    attrs = (f'type="XCUIElementType{kind}" name={quoteattr(name)} label={quoteattr(name)} '
             f'enabled="true" visible="true" accessible="{str(kind != "Alert").lower()}" '
             f'x="{x}" y="{y}" width="{w}" height="{h}" index="{index}"')
    return (f"<XCUIElementType{kind} {attrs}>{inner}</XCUIElementType{kind}>" if inner
            else f"<XCUIElementType{kind} {attrs}/>")


def source(app: str, springboard: str, width: int, height: int) -> str:
    """SpringBoard's ``/source`` while the alert is up (what WDA with respectSystemAlerts on
    gives): its window holding the alert, its texts and buttons."""
    boxes = layout(width, height)
    inner = (_element("StaticText", boxes["title"], title(app), 0)
             + _element("StaticText", boxes["message"], MESSAGE, 1)
             + "".join(_element("Button", boxes[label], label, 2 + i)
                       for i, label in enumerate(BUTTONS)))
    alert = _element("Alert", boxes["alert"], title(app), 0, inner)
    window = _element("Window", (0, 0, width, height), "", 0, alert)
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            + _element("Application", (0, 0, width, height), springboard, 0, window))


def draw(png: bytes, app: str, scale: float) -> bytes:
    """``png`` (the app's screen, pixels at ``scale``) dimmed, with the alert drawn over it."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.open(io.BytesIO(png)).convert("RGB")
    img = Image.blend(img, Image.new("RGB", img.size, (0, 0, 0)), 0.4)
    boxes = layout(round(img.size[0] / scale), round(img.size[1] / scale))
    pen = ImageDraw.Draw(img)

    def px(box: Box) -> tuple[float, float, float, float]:
        x, y, w, h = box
        return x * scale, y * scale, (x + w) * scale, (y + h) * scale
    pen.rounded_rectangle(px(boxes["alert"]), radius=14 * scale, fill=(242, 242, 247))
    big = ImageFont.load_default(size=round(13 * scale))
    small = ImageFont.load_default(size=round(11 * scale))
    x1, y1, _, _ = px(boxes["title"])
    pen.text((x1, y1), title(app).replace(" Send", "\nSend"), fill=(0, 0, 0), font=big)
    x1, y1, _, _ = px(boxes["message"])
    pen.text((x1, y1), "Notifications may include alerts,\nsounds, and icon badges.",
             fill=(60, 60, 60), font=small)
    for label in BUTTONS:
        bx1, by1, bx2, by2 = px(boxes[label])
        pen.line((bx1, by1, bx2, by1), fill=(200, 200, 205), width=max(1, round(scale)))
        pen.text((bx1 + 24 * scale, by1 + 12 * scale), label, fill=(0, 122, 255), font=big)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()
