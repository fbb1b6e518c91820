"""The alerts of a simulated iPhone. The system alert an app that asks for a permission as it
starts (notifications) puts in front of itself: SpringBoard shows it, not the app, so only with
WebDriverAgent's ``respectSystemAlerts`` setting on does ``/wda/activeAppInfo`` name SpringBoard
and ``/source`` show SpringBoard's tree holding the alert (off, its default, they say the app and
the app's own tree, which holds no alert). And a page's JavaScript alert(), confirm() or
prompt(): the app's own alert, in its own tree. WDA's ``/alert/*`` endpoints answer both.
Their layout in points of a ``width`` x ``height`` screen, their source, their pixels over the
app's.
"""

from __future__ import annotations

import io
from typing import NamedTuple
from xml.sax.saxutils import quoteattr

BUTTONS = ("Don’t Allow", "Allow")      # as iOS lays them out: the accepting one last
Box = tuple[int, int, int, int]


class Alert(NamedTuple):
    """What an alert says and its buttons, the accepting one last."""
    title: str
    message: str
    buttons: tuple[str, ...]


MESSAGE = ("Notifications may include alerts, sounds, and icon badges. These can be "
           "configured in Settings.")


def permission(app: str) -> Alert:
    """The notifications permission ``app`` asks for."""
    name = app.rsplit('.', 1)[-1].capitalize()
    return Alert(f"“{name}” Would Like to Send You Notifications", MESSAGE, BUTTONS)


def page_dialog(kind: str, message: str) -> Alert:
    """A page's alert() (OK), confirm() or prompt() (Cancel, OK), its message as its title,
    as a web view shows it."""
    return Alert(message, "", ("OK",) if kind == "alert" else ("Cancel", "OK"))


def text(alert: Alert) -> str:
    """What ``GET /alert/text`` answers: the title and the message, a line each."""
    return "\n".join(part for part in (alert.title, alert.message) if part)


def layout(width: int, height: int, buttons: tuple[str, ...] = BUTTONS) -> dict[str, Box]:
    """(x, y, width, height) in points of the alert, its title, its message and each button
    (by label), the buttons side by side at its bottom."""
    w = min(270, width - 40)
    x, h = (width - w) // 2, 170
    y = (height - h) // 2
    boxes = {"alert": (x, y, w, h), "title": (x + 16, y + 20, w - 32, 44),
             "message": (x + 16, y + 66, w - 32, 56)}
    each = w // len(buttons)
    for i, label in enumerate(buttons):
        boxes[label] = (x + i * each, y + h - 44, each, 44)
    return boxes


def button_at(x: float, y: float, width: int, height: int,
              buttons: tuple[str, ...] = BUTTONS) -> str | None:
    """The label of the button at (x, y) points, or None (a touch beside them does nothing)."""
    for label in buttons:
        bx, by, bw, bh = layout(width, height, buttons)[label]
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


def source(alert: Alert, root: str, width: int, height: int) -> str:
    """The ``/source`` of ``root`` (SpringBoard's, with respectSystemAlerts on; the app's for
    its page's dialog) while the alert is up: its window holding the alert, its texts and
    buttons."""
    boxes = layout(width, height, alert.buttons)
    texts = [(alert.title, boxes["title"])] + ([(alert.message, boxes["message"])]
                                                if alert.message else [])
    inner = ("".join(_element("StaticText", box, words, i)
                     for i, (words, box) in enumerate(texts))
             + "".join(_element("Button", boxes[label], label, len(texts) + i)
                       for i, label in enumerate(alert.buttons)))
    shown = _element("Alert", boxes["alert"], alert.title, 0, inner)
    window = _element("Window", (0, 0, width, height), "", 0, shown)
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            + _element("Application", (0, 0, width, height), root, 0, window))


def draw(png: bytes, alert: Alert, scale: float) -> bytes:
    """``png`` (the app's screen, pixels at ``scale``) dimmed, with the alert drawn over it."""
    import textwrap

    from PIL import Image, ImageDraw

    from farm.devices.sim.fonts import font_for

    img = Image.open(io.BytesIO(png)).convert("RGB")
    img = Image.blend(img, Image.new("RGB", img.size, (0, 0, 0)), 0.4)
    boxes = layout(round(img.size[0] / scale), round(img.size[1] / scale), alert.buttons)
    pen = ImageDraw.Draw(img)

    def px(box: Box) -> tuple[float, float, float, float]:
        x, y, w, h = box
        return x * scale, y * scale, (x + w) * scale, (y + h) * scale
    pen.rounded_rectangle(px(boxes["alert"]), radius=14 * scale, fill=(242, 242, 247))
    big, small = round(13 * scale), round(11 * scale)       # (a CJK font where needed)
    x1, y1, _, _ = px(boxes["title"])
    title = "\n".join(textwrap.wrap(alert.title, 34)[:3])
    pen.text((x1, y1), title, fill=(0, 0, 0), font=font_for(title, big))
    x1, y1, _, _ = px(boxes["message"])
    said = "\n".join(textwrap.wrap(alert.message, 36)[:2])
    pen.text((x1, y1), said, fill=(60, 60, 60), font=font_for(said, small))
    for label in alert.buttons:
        bx1, by1, bx2, by2 = px(boxes[label])
        pen.line((bx1, by1, bx2, by1), fill=(200, 200, 205), width=max(1, round(scale)))
        pen.text((bx1 + 24 * scale, by1 + 12 * scale), label, fill=(0, 122, 255),
                 font=font_for(label, big))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()
