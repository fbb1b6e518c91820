"""The OCR tier: the prompt matched against text read from the screenshot's pixels, for
screens with no usable tree (canvas, games, black-box WebViews).

RapidOCR (`rapidocr-onnxruntime`) ships its ONNX models inside the wheel, so nothing is
downloaded. It is imported on first use only (startup stays fast), and when it cannot be
imported or started the tier just misses (logged once): farm still works without it.

The recogniser often drops the spaces between words ("Clearcompleted(3)"), so OCR text is
compared after Unicode NFKC normalisation (a full-width "，" is a ",") with all whitespace
removed: exact first, then a unique line containing the target
(OCR cannot see word boundaries). Several candidates are a miss naming them, never a guess.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
import time
import unicodedata
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from farm.agent.locator import LocateContext, LocateHit, ambiguous
from farm.cache.xpaths import node_for_rect
from farm.devices.base import Rect, UITree
from farm.text import QUOTES, word_match

log = logging.getLogger(__name__)

_lock = threading.Lock()
_engine: Any = None
_broken: str | None = None
_warm_lock = threading.Lock()
_loading: threading.Thread | None = None        # `warm`'s engine start, in the background
_said_runs: "weakref.WeakSet[Any]" = weakref.WeakSet()     # runs told of an OCR fallback
_PROCESS = threading.Event()        # (the run key of an agent with no run's stop event)


@dataclass(frozen=True)
class OcrLine:
    text: str
    rect: Rect          # in screenshot pixels
    score: float


def engine() -> Any:
    """The shared RapidOCR engine, started on first use (once a process); None when it cannot
    be. Its start (2-4 s: the import and the models' load, then one small read: the first
    read of a fresh engine takes seconds more) is said once in farm.log, at INFO: a step that
    pays it is slow for that reason. Begun by `warm`, it is waited for here."""
    loading = _loading
    if loading is not None and loading is not threading.current_thread():
        loading.join()
    with _lock:
        if _engine is None and _broken is None:
            _start()
        return _engine


def warm() -> None:
    """Start the engine in the background (once a process; nothing when started): a text
    check that is to read the screen by OCR takes its screenshot meanwhile, then `engine`
    waits for what is left of the start."""
    global _loading
    if _loading is not None or _engine is not None or _broken is not None:
        return
    import numpy  # noqa: F401  (imported here, not by two threads at once)
    from PIL import Image  # noqa: F401
    with _warm_lock:
        if _loading is not None:
            return
        _loading = threading.Thread(target=_started, name="farm-ocr-engine", daemon=True)
        _loading.start()


def _started() -> None:
    engine()        # (the module's, looked up now: a test's stand-in is what is started)


def _start() -> None:
    """Start the engine (under `_lock`): import, load, one small read."""
    global _engine, _broken
    try:
        began = time.monotonic()
        from rapidocr_onnxruntime import RapidOCR
        reader = RapidOCR()
        _first_read(reader)
        _engine = reader
        log.info("loading the OCR engine (first use): %.1f s", time.monotonic() - began)
    except Exception as exc:   # missing wheel, onnxruntime or libGL: OCR is optional
        _broken = f"{type(exc).__name__}: {exc}"
        log.warning("OCR tier unavailable (%s): locating by screen text is off", _broken)


def _first_read(reader: Any) -> None:
    """One read of a small drawn word: a fresh engine's first read pays for its models'
    first run (seconds), paid here, in the background when `warm` began the start."""
    import numpy as np
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (160, 48), "white")
    ImageDraw.Draw(image).text((10, 16), "Farm 0", fill="black")
    try:
        reader(np.array(image), use_cls=False)
    except Exception as exc:    # (only a head start: the real reads say what fails)
        log.debug("OCR engine's first read: %s", exc)


def say_fallback(run: Any, device: str, why: str) -> None:
    """Say in farm.log, once a run (``run``: its stop event; None: once a process), that a
    text check reads the screen by OCR (``why``): it takes seconds where a tree takes
    milliseconds."""
    key = _PROCESS if run is None else run
    with _warm_lock:
        if key in _said_runs:
            return
        _said_runs.add(key)
    log.warning("[%s] a text check reads the screen by OCR (%s): each such check takes "
                "seconds", device, why)


_read: "OrderedDict[tuple[bytes, float], tuple[OcrLine, ...]]" = OrderedDict()
_READ_KEPT = 16         # the last readings, by image: a phone screen takes OCR ~1-2 s


def read_lines(png: bytes, min_score: float = 0.5) -> list[OcrLine]:
    """Text lines of a PNG with their boxes (image pixels); [] when OCR is unavailable. The
    same image is read once: the text checks of a step or of several steps on an unchanged
    screen (assertNoText after assertNoText) reuse the reading."""
    reader = engine()
    if reader is None:
        return []
    key = (hashlib.blake2b(png, digest_size=16).digest(), min_score)
    with _lock:
        if key in _read:
            _read.move_to_end(key)
            return list(_read[key])
    lines = _recognise(reader, png, min_score)
    with _lock:
        _read[key] = tuple(lines)
        while len(_read) > _READ_KEPT:
            _read.popitem(last=False)
    return lines


def _recognise(reader: Any, png: bytes, min_score: float) -> list[OcrLine]:
    import numpy as np
    from PIL import Image

    image = np.array(Image.open(io.BytesIO(png)).convert("RGB"))
    result, _ = reader(image, use_cls=False)   # UI text is upright: skip the angle model
    lines = []
    for box, text, score in result or []:
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        x, y = int(min(xs)), int(min(ys))
        rect = Rect(x=x, y=y, width=max(1, int(max(xs)) - x), height=max(1, int(max(ys)) - y))
        if float(score) >= min_score and text.strip():
            lines.append(OcrLine(text, rect, float(score)))
    return lines


_SPACE = re.compile(r"\s+")


def squash(text: str) -> str:
    """``text`` as OCR text is compared: Unicode NFKC first (the recogniser reads a small
    screenshot's "," as the full-width "，" at random), typographic quotes as ASCII ones (as
    `farm.agent.locator.normalise`: `farm.text.QUOTES`), then no whitespace, case-folded."""
    text = unicodedata.normalize("NFKC", text).translate(QUOTES)
    return _SPACE.sub("", text).rstrip(":*").casefold()


def read_has(text: str, read: str) -> re.Match[str] | None:
    """Where ``text`` is in OCR's ``read`` (its lines), as a text check compares: `squash`ed,
    whitespace no difference (OCR reads "Sign in" as "Signin" and back), its ends at word ends
    of the read (`farm.text.word_match`: "Count 1" is not in "Count 10")."""
    read = unicodedata.normalize("NFKC", read).translate(QUOTES).casefold()
    return word_match(squash(text), read, spaced=True)


def match_lines(prompt: str, lines: list[OcrLine]) -> tuple[list[Rect], str]:
    """Rects (image pixels) of what ``prompt`` names among ``lines``, and how it matched:
    exact lines first, else lines containing it (the rect narrowed to the matched part)."""
    want = squash(prompt)
    if not want:
        return [], ""
    exact = [line.rect for line in lines if squash(line.text) == want]
    if exact:
        return exact, "exact"
    parts = []
    for line in lines:
        have = squash(line.text)
        start = have.find(want)
        if start >= 0:
            parts.append(_part(line.rect, len(have), start, len(want)))
    return parts, "words"


def _part(rect: Rect, total: int, start: int, length: int) -> Rect:
    """The slice of a line's box holding characters [start, start+length), assuming even
    character widths."""
    per = rect.width / total
    return Rect(x=rect.x + round(start * per), y=rect.y, width=max(1, round(length * per)),
                height=rect.height)


# Roles whose pixels a UI tree cannot read: a canvas, an embedded document or video, a
# WebView or surface the tree shows as one opaque box (web tags, Android classes, WDA types).
_OPAQUE = frozenset({"canvas", "iframe", "embed", "object", "video", "webview",
                     "surfaceview", "textureview", "glsurfaceview",
                     "xcuielementtypewebview", "xcuielementtypemap"})


def _opaque(role: str) -> bool:
    return role.rsplit(".", 1)[-1].casefold() in _OPAQUE


def unread_areas(tree: UITree | None) -> list[Rect] | None:
    """Where only the pixels say what the screen shows: None for all of it (no tree, or a tree
    with no text at all: a black-box app), else the rects of the visible canvases / WebViews /
    embedded frames / surfaces the tree holds no text inside ([] when there are none). A frame
    the tree read into (a page's iframe, a WebView whose page the dump lists) is no such area:
    its text is the text tier's to match, or to call a near miss."""
    if tree is None:
        return None
    nodes = [n for n in tree.nodes if n.visible]
    texts = [n for n in nodes if n.text or n.name or n.label]
    if not texts:
        return None
    opaque = {n.id: n for n in nodes if _opaque(n.role)}
    if not opaque:
        return []
    parent = {n.id: n.parent for n in tree.nodes}
    read: set[int] = set()
    for n in texts:
        cur, seen = n.parent, 0
        while cur is not None and seen < len(parent):    # (a cycle in a plugin's tree)
            if cur in opaque:
                read.add(cur)
            cur, seen = parent.get(cur), seen + 1
    return [n.rect for i, n in opaque.items() if i not in read]


def needs_pixels(tree: UITree | None) -> bool:
    """Is there something on this screen only OCR can read (`unread_areas`)? A screen whose
    tree reads it all has nothing more to give: OCR there would cost seconds and find what the
    text tier already ruled out ("Username" for "User name", which OCR reads with no spaces)."""
    areas = unread_areas(tree)
    return areas is None or bool(areas)


def _scaled(r: Rect, sx: float, sy: float) -> Rect:
    """An image's rect in screen coordinates."""
    return Rect(x=round(r.x * sx), y=round(r.y * sy), width=max(1, round(r.width * sx)),
                height=max(1, round(r.height * sy)))


def _inside(rect: Rect, areas: list[Rect]) -> bool:
    """Whether ``rect``'s middle is in one of ``areas``."""
    cx, cy = rect.x + rect.width / 2, rect.y + rect.height / 2
    return any(a.x <= cx <= a.x + a.width and a.y <= cy <= a.y + a.height for a in areas)


class OcrTier:
    """Find the prompt's text on the screenshot, where the tree cannot (``needs_pixels``).
    ``screenshot`` is the agent's grabber (one capture serves every tier); without it the
    device is asked."""

    name = "ocr"

    def __init__(self, screenshot: Callable[[], bytes] | None = None) -> None:
        self.screenshot = screenshot

    def applies(self, prompt: str, ctx: LocateContext) -> bool:
        return bool(prompt.strip()) and needs_pixels(ctx.tree())

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        if not self.applies(prompt, ctx) or engine() is None:
            return None
        from farm.agent.images import png_size

        png = self.screenshot() if self.screenshot else ctx.device.screenshot()
        image, screen = png_size(png), ctx.device.size()
        sx, sy = screen[0] / image[0], screen[1] / image[1]
        lines = [OcrLine(line.text, _scaled(line.rect, sx, sy), line.score)
                 for line in read_lines(png)]
        areas = unread_areas(ctx.tree())
        if areas is not None:       # the rest of the screen is the tree's (the text tier's)
            lines = [line for line in lines if _inside(line.rect, areas)]
        found, how = match_lines(prompt, lines)
        if len(found) > 1:
            raise ambiguous(prompt, how, [f"text on screen at {r.as_list()}" for r in found])
        if found:
            return LocateHit(found[0], self.name, f'"{prompt}" read on screen',
                             node=_node(found[0], ctx))
        return None


def _node(rect: Rect, ctx: LocateContext) -> int | None:
    """On a phone, the element of the tree already read (`applies`) that holds the text read
    at ``rect``: the tap's check (`farm.devices.phone_edges.tap_point`) then swipes it in when
    the screen's edge cuts it, where the tap landed on the home-gesture bar. Not on the web:
    its check moves a covered target's tap to the element's middle (a canvas's, not the
    text's)."""
    if getattr(ctx.device, "platform", "") not in ("android", "ios"):
        return None
    tree = ctx.tree()
    found = node_for_rect(tree, rect) if tree is not None else None
    return None if found is None else found.id
