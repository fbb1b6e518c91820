"""Annotated screenshots: where a step acted, drawn on the screenshot taken before it.

The located element's box (with the locate tier that found it), a dot per tap (ring for a
long press, two rings for a double tap), an arrow for a swipe, drag or scroll, a box for the
field typed into, and for ai steps the model's thought and log line in a caption band.
Coordinates are device coordinates; ``screen`` is their space, so the image may be scaled.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from farm.results import Mark

RED = (230, 30, 60)
BLUE = (20, 110, 230)
WHITE = (255, 255, 255)


@lru_cache(maxsize=8)
def _font(size: int) -> Any:
    """Pillow's default font at ``size`` (built once per size: it is decoded from an embedded
    TrueType file each time it is loaded)."""
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except TypeError:          # Pillow < 10.1: one fixed size
        return ImageFont.load_default()


def _arrow(draw: Any, a: tuple[float, float], b: tuple[float, float], width: int) -> None:
    import math
    draw.line([a, b], fill=RED, width=width)
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    size = width * 4
    left = (b[0] - size * math.cos(angle - 0.5), b[1] - size * math.sin(angle - 0.5))
    right = (b[0] - size * math.cos(angle + 0.5), b[1] - size * math.sin(angle + 0.5))
    draw.polygon([b, left, right], fill=RED)


def _label(draw: Any, xy: tuple[float, float], text: str, size: int, colour: tuple) -> None:
    font = _font(size)
    box = draw.textbbox(xy, text, font=font)
    draw.rectangle((box[0] - 3, box[1] - 2, box[2] + 3, box[3] + 2), fill=colour)
    draw.text(xy, text, fill=WHITE, font=font)


def draw_marks(img: Any, marks: list[Mark], rect: list[int] | None, tier: str | None,
               screen: list[int] | None) -> Any:
    """``img`` with the marks drawn on it: drawn in place on an RGB image (the artifact store
    hands over a freshly decoded one), on an RGB copy otherwise."""
    from PIL import ImageDraw
    if img.mode != "RGB":
        img = img.convert("RGB")
    scale = img.width / screen[0] if screen and screen[0] else 1.0
    unit = max(2, round(max(img.width, img.height) / 400))
    draw = ImageDraw.Draw(img)

    def at(p: list[int]) -> tuple[float, float]:
        return (p[0] * scale, p[1] * scale)

    if rect:
        x, y, w, h = (v * scale for v in rect)
        draw.rectangle((x, y, x + w, y + h), outline=BLUE, width=unit)
        if tier:
            _label(draw, (x, max(0, y - 6 * unit)), tier, 5 * unit, BLUE)
    for mark in marks:
        points = [at(p) for p in mark.points]
        if mark.kind in ("swipe", "scroll") and len(points) >= 2:
            _arrow(draw, points[0], points[-1], unit * 2)
        elif points:
            _dot(draw, points[0], mark.kind, unit)
    notes = [m.note for m in marks if m.note]
    if notes:
        _caption(img, draw, " | ".join(notes), unit)
    return img


def _dot(draw: Any, p: tuple[float, float], kind: str, unit: int) -> None:
    r = unit * 4
    x, y = p
    if kind == "type":
        draw.rectangle((x - r, y - r, x + r, y + r), outline=RED, width=unit)
        return
    draw.ellipse((x - r, y - r, x + r, y + r), fill=RED, outline=WHITE, width=max(1, unit // 2))
    for ring in range({"double_tap": 2, "long_press": 1}.get(kind, 0)):
        rr = r + unit * (3 + 3 * ring)
        draw.ellipse((x - rr, y - rr, x + rr, y + rr), outline=RED, width=unit)


def _caption(img: Any, draw: Any, text: str, unit: int) -> None:
    """The model's thought / log line in a band along the bottom edge."""
    size = 5 * unit
    per_line = max(20, int(img.width / (size * 0.55)))
    lines = [text[i:i + per_line] for i in range(0, min(len(text), per_line * 3), per_line)]
    height = (size + unit) * len(lines) + 2 * unit
    draw.rectangle((0, img.height - height, img.width, img.height), fill=(30, 30, 30))
    font = _font(size)
    for i, line in enumerate(lines):
        draw.text((unit * 2, img.height - height + unit + i * (size + unit)), line,
                  fill=WHITE, font=font)
