"""Annotated screenshots: where a step acted, drawn over the screenshot taken before it.

The located element's box (with the locate tier that found it), a dot per tap (ring for a
long press, two rings for a double tap), an arrow for a swipe, drag or scroll, a box for the
field typed into, and for ai steps the model's thought and log line in a caption band.

The annotated copy is an SVG: the marks as vector shapes over the before screenshot, which
it names by a relative link to the JPEG beside it (never decoded, never copied: embedded as a
data: URL it made each step's before image a third larger again on disk). Drawing one costs
a few lines of text, where decoding, drawing on and re-encoding the JPEG cost ~8.5 ms of CPU
each. Opened as a document (a browser tab, a file viewer) it shows the whole picture; in an
``<img>`` a browser loads nothing an SVG links to, so the HTML report shows it over the JPEG,
and the Allure export, whose viewer shows an attachment alone, writes it with the image
embedded (`standalone`). An older run's copy, the image embedded, is shown the same way.

Coordinates are device coordinates; ``screen`` is their space and the SVG's viewBox, so the
image may be of another pixel size (a phone's 1080x2400 stored at 576x1280).
"""

from __future__ import annotations

import base64
import math
import re
import textwrap
from collections.abc import Callable
from html import escape
from urllib.parse import quote, unquote

from farm.report.junit import xml_safe
from farm.results import Mark, image_size

RED = "rgb(230,30,60)"
BLUE = "rgb(20,110,230)"
WHITE = "#fff"
BAND = "rgb(30,30,30)"
FONT = "DejaVu Sans Mono,Menlo,Consolas,monospace"
ADVANCE = 0.6          # a monospace character's width, in font sizes (sizes the label boxes)
ASCENT = 0.8           # baseline below the top of a line, in font sizes

def _x(text: str) -> str:
    """``text`` safe inside an XML element or a double-quoted attribute: a character XML 1.0
    does not allow (the model's and users' text may hold them, and one would make the whole SVG
    unreadable) shows as U+FFFD."""
    return escape(xml_safe(text, "\ufffd"), quote=True)


def _n(v: float) -> str:
    """A coordinate, short: 12, 12.5, 12.33."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def marks_svg(image: bytes, marks: list[Mark], rect: list[int] | None, tier: str | None,
              screen: list[int] | None, href: str | None = None) -> bytes:
    """The SVG of ``image`` (the before screenshot's JPEG or PNG bytes) with the marks drawn
    over it, as UTF-8 bytes; ``href``: where the image is, relative to the SVG (only its size
    is read), else it is embedded."""
    mime, size = image_size(image)
    sw, sh = (screen[0], screen[1]) if screen and screen[0] and screen[1] else (0, 0)
    iw, ih = size or (sw, sh)
    if not (iw and ih):
        raise ValueError("neither the image's size nor the screen's is known")
    sw = sw or iw
    k = sw / iw                       # screen units per image pixel
    vw, vh = sw, ih * k               # scaled by width, as the image is shown
    u = max(2, round(max(iw, ih) / 400)) * k       # line width: 2+ pixels of the image
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{iw}" height="{ih}" '
           f'viewBox="0 0 {_n(vw)} {_n(vh)}" font-family="{FONT}">',
           f'<image href="{_x(quote(href)) if href else _data_url(mime, image)}" x="0" y="0" '
           f'width="{_n(vw)}" height="{_n(vh)}" preserveAspectRatio="none"/>']
    if rect:
        x, y, w, h = rect
        out.append(f'<rect class="located" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" '
                   f'height="{_n(h)}" fill="none" stroke="{BLUE}" stroke-width="{_n(u)}"/>')
        if tier:
            out.append(_label(x, max(0.0, y - 6 * u), tier, 5 * u, BLUE, "tier"))
    for mark in marks:
        points = mark.points
        if mark.kind in ("swipe", "scroll", "drag") and len(points) >= 2:
            path = _clipped(points[0], points[-1], vw, vh)
            if path is not None:
                out.append(_arrow(*path, 2 * u, mark.kind))
        elif points:
            out.append(_dot(points[0], mark.kind, u))
    notes = [m.note for m in marks if m.note]
    if notes:
        out.append(_caption(" | ".join(notes), vw, vh, u))
    out.append("</svg>")
    return "\n".join(out).encode("utf-8")


def _data_url(mime: str, image: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(image).decode()}"


_LINK = re.compile(rb'<image href="(?!data:)([^"]*)"')


def standalone(svg: bytes, read: Callable[[str], bytes | None]) -> bytes:
    """``svg`` (a marked copy) with the image it links to embedded, for a viewer that shows it
    alone (Allure's): ``read(href)`` gives the linked image's bytes, or None (then the SVG
    is kept as it is: marks only). One already embedded (an older run's) is returned as is."""
    link = _LINK.search(svg)
    image = read(unquote(link.group(1).decode("utf-8", "replace"))) if link else None
    if link is None or image is None:
        return svg
    url = _data_url(image_size(image)[0], image).encode()
    return svg[:link.start(1)] + url + svg[link.end(1):]


def _label(x: float, y: float, text: str, size: float, colour: str, cls: str) -> str:
    """White ``text`` on a ``colour`` box whose top left corner is at (x, y)."""
    pad = size / 5
    width = len(text) * size * ADVANCE
    return (f'<g class="{cls}"><rect x="{_n(x - pad)}" y="{_n(y - pad)}" '
            f'width="{_n(width + 2 * pad)}" height="{_n(size + 2 * pad)}" fill="{colour}"/>'
            f'<text x="{_n(x)}" y="{_n(y + size * ASCENT)}" font-size="{_n(size)}" '
            f'fill="{WHITE}">{_x(text)}</text></g>')


def _clipped(a: list[int], b: list[int], vw: float,
             vh: float) -> tuple[list[float], list[float]] | None:
    """The part of the path from ``a`` to ``b`` inside the image (0..vw, 0..vh), or None when
    none of it is: a scroll to a list's end is recorded with its whole distance (tens of
    screens, `scrollType: untilBottom`), and its arrow stops, head and all, at the image's
    edge (Liang-Barsky clipping)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    lo, hi = 0.0, 1.0
    for p, q in ((-dx, a[0]), (dx, vw - a[0]), (-dy, a[1]), (dy, vh - a[1])):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
    if lo > hi:
        return None
    return ([a[0] + lo * dx, a[1] + lo * dy], [a[0] + hi * dx, a[1] + hi * dy])


def _arrow(a: list[float], b: list[float], width: float, kind: str) -> str:
    """A line from ``a`` to the tip of a head at ``b`` (the line stops inside the head)."""
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    head = width * 4
    left = (b[0] - head * math.cos(angle - 0.5), b[1] - head * math.sin(angle - 0.5))
    right = (b[0] - head * math.cos(angle + 0.5), b[1] - head * math.sin(angle + 0.5))
    back = min(head * 0.8, math.dist(a, b))
    end = (b[0] - back * math.cos(angle), b[1] - back * math.sin(angle))
    return (f'<g class="{_x(kind)}"><line x1="{_n(a[0])}" y1="{_n(a[1])}" x2="{_n(end[0])}" '
            f'y2="{_n(end[1])}" stroke="{RED}" stroke-width="{_n(width)}"/>'
            f'<polygon points="{_n(b[0])},{_n(b[1])} {_n(left[0])},{_n(left[1])} '
            f'{_n(right[0])},{_n(right[1])}" fill="{RED}"/></g>')


def _dot(p: list[int], kind: str, u: float) -> str:
    x, y = p
    r = u * 4
    if kind == "type":
        return (f'<rect class="type" x="{_n(x - r)}" y="{_n(y - r)}" width="{_n(2 * r)}" '
                f'height="{_n(2 * r)}" fill="none" stroke="{RED}" stroke-width="{_n(u)}"/>')
    shapes = [f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{RED}" stroke="{WHITE}" '
              f'stroke-width="{_n(max(u / 2, u / 4 + 0.5))}"/>']
    for ring in range({"double_tap": 2, "long_press": 1}.get(kind, 0)):
        shapes.append(f'<circle class="ring" cx="{_n(x)}" cy="{_n(y)}" '
                      f'r="{_n(r + u * (3 + 3 * ring))}" fill="none" stroke="{RED}" '
                      f'stroke-width="{_n(u)}"/>')
    return f'<g class="{_x(kind)}">{"".join(shapes)}</g>'


def _caption(text: str, vw: float, vh: float, u: float) -> str:
    """The model's thought / log line in a band along the bottom edge, up to three lines."""
    size = 5 * u
    per_line = max(20, int(vw / (size * ADVANCE)) - 1)
    lines = textwrap.wrap(" ".join(text.split()), per_line, max_lines=3, placeholder=" …",
                          break_on_hyphens=False) or [""]
    height = (size + u) * len(lines) + 2 * u
    top = vh - height
    rows = "".join(f'<text x="{_n(2 * u)}" y="{_n(top + u + i * (size + u) + size * ASCENT)}" '
                   f'font-size="{_n(size)}" fill="{WHITE}">{_x(line)}</text>'
                   for i, line in enumerate(lines))
    return (f'<g class="caption"><rect x="0" y="{_n(top)}" width="{_n(vw)}" '
            f'height="{_n(height)}" fill="{BAND}"/>{rows}</g>')
