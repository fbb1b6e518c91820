"""A phone's target cut by the screen's edge: a button mostly below the fold shows a strip a
few pixels high above the home-gesture bar (or under the status bar), and a tap on that strip
reaches the system's bar, not it. Phones' trees clip bounds to what shows (Android's dump;
iOS's WDA frames, `farm.devices.native_tree`), so a strip thinner than a touch target on the
screen's very edge is taken for the cut part of something larger and swiped in first.

`tap_point` is the phones' `Device.tap_point`: the check the tap of any located target goes
through (XPath, cache, text, OCR), as the web's checks what covers its target. It is the one
place this is done: the text tier leaves it to the tap (it swiped such a target in too, and
the tap's check swiped it again). A target under the soft keyboard has the keyboard hidden
first (`clear_of_keyboard`).

`screen_moved` is how a phone's scroll tells whether anything moved (`Device.scroll`'s False):
a phone swipes and gets no answer, so the screens before and after the swipe are compared.
"""

from __future__ import annotations

import io
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from farm.devices.base import Rect, UINode, UITree
from farm.errors import DeviceError, StepFailed
from farm.text import first_line, unmasked

log = logging.getLogger(__name__)

# How long the swipe that brings a target cut by the screen's edge in lasts: slow, so that it
# moves the content about as far as the finger went (a quick one flings it further)
BRING_IN_MS = 600
# A target on the screen's edge showing less than this part of the screen's height (about the
# 48 dp / 44 pt touch target phones ask for) is taken for a cut strip of something larger
STRIP = 1 / 20
# The part of the screen at each edge a scroll's swipe keeps off: the status bar, the
# home-gesture strip, the sides' back gesture
SCROLL_EDGE = 0.15


def shown_height(r: Rect, height: int) -> int:
    """How many of ``r``'s rows a screen ``height`` high shows."""
    return max(0, min(r.y + r.height, height) - max(r.y, 0))


def edge_cut(r: Rect, size: tuple[int, int]) -> int:
    """Whether ``r`` (on a screen of ``size``) shows mostly beyond its bottom edge (1), its
    top edge (-1) or not (0): a whole frame past the edge (a tree that does not clip) with its
    middle off the screen; clipped bounds, a strip thinner than a touch target on the
    screen's edge."""
    h = size[1]
    if r.y < 0 or r.y + r.height > h:
        middle = r.y + r.height // 2
        return 1 if middle >= h else -1 if middle < 0 else 0
    if shown_height(r, h) >= h * STRIP:
        return 0
    return 1 if r.y + r.height >= h else -1 if r.y <= 0 else 0


def bring_in_swipe(r: Rect, size: tuple[int, int], way: int) -> tuple[int, int, int, int]:
    """The finger's (x1, y1, x2, y2) for one swipe bringing the edge of ``r`` that is cut
    (``way``: 1 the bottom, -1 the top) to the screen's middle, kept off the screen's side
    edges (a side swipe is the system's back gesture)."""
    w, h = size
    dy = r.y - h // 2 if way > 0 else r.y + r.height - h // 2
    x = min(max(r.x + r.width // 2, w // 10), w * 9 // 10)
    y = h // 2 + dy // 2               # (the finger goes dy, about the middle)
    return x, y, x, y - dy


def _same(a: UINode, b: UINode) -> bool:
    return (a.role, a.resource_id, a.text, a.name, a.placeholder) == \
        (b.role, b.resource_id, b.text, b.name, b.placeholder)


def _again(tree: UITree | None, was: UINode, expected_y: int) -> UINode | None:
    """``was`` in a tree read after a swipe: the visible node like it (role, id and strings)
    nearest to where the swipe should have taken it."""
    like = [n for n in (tree.nodes if tree is not None else ()) if n.visible and _same(n, was)]
    return min(like, key=lambda n: abs(n.rect.y - expected_y), default=None)


def tap_point(device: Any, tree: UITree | None, node: int, x: int,
              y: int) -> tuple[int, int, str]:
    """Before a tap at (x, y) on node ``node`` of ``tree`` (the device's last read): (x, y,
    "") when the node is not cut by the screen's edge (no round trip), else it is swiped in
    once and read again: its middle then (a point elsewhere in it, an OCR hit's text: that
    point, moved with it), or what a tap would hit instead when it does not come in (its
    frame still past the edge, or gone from the screen). A node the last read does not hold
    at (x, y) is not checked."""
    found = next((n for n in (tree.nodes if tree is not None else ()) if n.id == node), None)
    if found is None or not _holds(found.rect, x, y):
        return x, y, ""
    size = device.size()
    way = edge_cut(found.rect, size)
    if not way:
        return x, y, ""
    finger = bring_in_swipe(found.rect, size, way)
    log.info("%s: the target shows %d px at the screen's edge: swiping it in", device.name,
             shown_height(found.rect, size[1]))
    device.swipe(*finger, BRING_IN_MS)
    now = _again(device.hierarchy(), found, found.rect.y + finger[3] - finger[1])
    edge = ("top", "bottom")[way > 0]
    if now is None:
        return x, y, f"nothing: it went from the screen when swiped in from its {edge} edge"
    r, h = now.rect, size[1]
    if edge_cut(r, size) and (r.y < 0 or r.y + r.height > h):
        unit = "pt" if device.platform == "ios" else "px"
        return x, y, (f"the system's bar: it shows {shown_height(r, h)} of its {r.height} "
                      f"{unit} at the {edge} edge of the screen, and a swipe does not bring "
                      "it in")
    if (x, y) == found.rect.center:
        return (*r.center, "")
    was = found.rect          # (its uncut edge is where it really is: the point keeps to it)
    dy = r.y - was.y if way > 0 else r.y + r.height - was.y - was.height
    return (min(max(x + r.x - was.x, r.x), r.x + r.width - 1),
            min(max(y + dy, r.y), r.y + r.height - 1), "")


def clear_of_keyboard(device: Any, tree: UITree | None, node: int, x: int,
                      y: int) -> tuple[int, int, int]:
    """Before a tap at (x, y) on node ``node`` of ``tree`` (the device's last read): the point
    and node as they are, unless the soft keyboard shows over the point (the app's tree keeps
    the views under it, with their bounds, and a tap there hits a key). Then the keyboard is
    hidden first, as a person would, and the node found again in the tree read then (the app
    pans back where the keyboard was): its point and id there. StepFailed when the keyboard
    stays up over it, or it has gone from the screen."""
    found = next((n for n in (tree.nodes if tree is not None else ()) if n.id == node), None)
    if found is None or not _holds(found.rect, x, y):
        return x, y, node
    top = device.keyboard_top()
    if top is None or y < top:
        return x, y, node
    log.info("%s: the target is under the soft keyboard: hiding the keyboard first",
             device.name)
    device.hide_keyboard()
    now = _again(device.hierarchy(), found, found.rect.y)
    named = found.text or found.name or found.resource_id or found.role.rsplit(".", 1)[-1]
    if now is None:
        raise StepFailed(f'"{named}" went from the screen when the keyboard over it was '
                         "hidden")
    nx, ny = _moved(x, y, found.rect, now.rect)
    top = device.keyboard_top()
    if top is not None and ny >= top:       # it stays: the content goes up above it
        now, nx, ny = _swipe_above(device, now, nx, ny, top)
        top = device.keyboard_top() if now is not None else None
        if now is None or top is not None and ny >= top:
            raise StepFailed(f'"{named}" is under the soft keyboard, which stayed up when '
                             "farm hid it, and a swipe does not bring it above: a tap there "
                             "would hit a key (hide it with a step of the app's own, e.g. "
                             "a tap on a title above it)")
    return nx, ny, now.id


def _moved(x: int, y: int, was: Rect, now: Rect) -> tuple[int, int]:
    """(x, y) in ``was`` moved with it to ``now``, kept inside it."""
    return (min(max(x + now.x - was.x, now.x), now.x + now.width - 1),
            min(max(y + now.y - was.y, now.y), now.y + now.height - 1))


def _swipe_above(device: Any, node: UINode, x: int, y: int,
                 top: int) -> tuple[UINode | None, int, int]:
    """One slow swipe up, begun just above the keyboard (whose top is at ``top``), taking
    the point (x, y) of ``node`` a tenth of the screen above it, as a person scrolls a form
    whose keyboard stays; the node read again then (None when gone) and the point in it."""
    h = device.size()[1]
    start = max(top - h // 40, h // 10)
    end = max(start - (y - top + h // 10), h // 20)
    log.info("%s: the soft keyboard stays over the target: swiping the content up",
             device.name)
    device.swipe(x, start, x, end, BRING_IN_MS)
    now = _again(device.hierarchy(), node, node.rect.y - (start - end))
    if now is None:
        return None, x, y
    return (now, *_moved(x, y, node.rect, now.rect))


def scroll_swipes(x: int, y: int, dx: int, dy: int,
                  size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """The finger's swipes (x1, y1, x2, y2) that scroll content by (dx, dy) on a screen of
    ``size``: the finger moves the other way, kept SCROLL_EDGE of the screen off each edge
    (the status bar, the home-gesture strip, the sides' back gesture). Each begins at (x, y)
    when its move fits from there, else as near it as fits (toward the edge it moves away
    from: a scroll down begins low); a distance longer than that span is split into equal
    swipes. One swipe from the middle, cut at the screen's edge, moved half of what it
    claimed (a 3000 px scroll moved 1200)."""
    w, h = size
    spans = [(round(n * SCROLL_EDGE), round(n * (1 - SCROLL_EDGE))) for n in (w, h)]
    count = max([1] + [-(-abs(d) // max(1, hi - lo)) for d, (lo, hi) in zip((dx, dy), spans)])
    out = []
    for i in range(count):
        piece = [dx * (i + 1) // count - dx * i // count, dy * (i + 1) // count - dy * i // count]
        start = [_fit(at, d, lo, hi) for at, d, (lo, hi) in zip((x, y), piece, spans)]
        out.append((start[0], start[1], start[0] - piece[0], start[1] - piece[1]))
    return out


def _fit(at: int, move: int, lo: int, hi: int) -> int:
    """Where a finger moving ``-move`` begins, nearest ``at``, staying in [lo, hi]."""
    return min(max(at, lo + max(move, 0)), hi + min(move, 0))


def _holds(r: Rect, x: int, y: int) -> bool:
    return r.x <= x < r.x + r.width and r.y <= y < r.y + r.height


# Grey levels a pixel may move between two screenshots of one screen (encoder noise)
_LEVELS = 24


def screen_moved(before: bytes, after: bytes) -> bool:
    """Whether the screen changed between two PNG screenshots taken around a swipe by more
    than what changes by itself: a few pixels of the status bar's clock (a change inside an
    area under a 400th of the screen) or a text caret blinking (a bar at least three times
    taller than wide). A screenshot takes ~100 ms on the simulators, 300-800 ms on a real
    phone, where a swipe that moves nothing costs an `input` round trip and its 300 ms: a
    scroll to an end stops at the first swipe that moved nothing, where it made ten."""
    from PIL import Image, ImageChops

    a, b = (Image.open(io.BytesIO(png)).convert("L") for png in (before, after))
    if a.size != b.size:
        return True                 # (the screen turned)
    diff = ImageChops.difference(a, b)
    box = diff.point([0] * (_LEVELS + 1) + [255] * (255 - _LEVELS)).getbbox()
    if box is None:
        return False
    width, height = box[2] - box[0], box[3] - box[1]
    if width * height * 400 <= a.width * a.height:
        return False
    return not (width * 3 <= height <= a.height // 8)


def blank_band(png: bytes, y1: int, y2: int) -> bool:
    """Whether the rows a swipe went over (``y1``..``y2``, the screen's full width) show one
    flat colour in a PNG screenshot: a tall blank spacer, an empty stretch of a page. A swipe
    there moves the content with no pixel changing, so an unchanged screen says nothing of
    whether it reached the end (`AndroidDevice.scroll` swipes on)."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("L")
    top, bottom = sorted((max(0, min(y1, img.height)), max(0, min(y2, img.height))))
    if bottom - top < 2:
        return False
    lo, hi = img.crop((0, top, img.width, bottom)).getextrema()
    return hi - lo <= _LEVELS


def not_installed(app: str, device: str, starting: bool, said: str = "",
                  installed: tuple[str, ...] = (), listing: str = "") -> StepFailed:
    """The case's mistake of an app the phone does not have: naming what names it (the
    case's ``launch:``, when ``starting``, else the launch step the error is of) and the
    nearest of the ``installed`` ids when one is close (a typo), ``listing`` how to list
    them all."""
    import difflib
    lowered = {i.lower(): i for i in installed}
    near = [lowered[n] for n in difflib.get_close_matches(app.lower(), list(lowered), n=1,
                                                          cutoff=0.6)]
    where = "the case's launch: value" if starting else "this launch step's app id"
    guess = f" (did you mean {near[0]}?)" if near else ""
    return StepFailed(f"{app} is not installed on {device}{f' ({said})' if said else ''}"
                      f"{guess}; check {where}{listing}")


# -- secrets the screen shows, blacked out of its images -------------------------------------
# How long after a tree was read (its read's end) a screenshot begun may still be blacked out
# by it: the grabber's frame time-to-live (`ScreenshotGrabber.ttl`). A tree read before a wait
# (a sleep, the pause between aiWaitFor's looks, aiAct's Sleep) is not the screen's after it,
# though no command was sent: the app may have shown a secret meanwhile.
TREE_KEPT_S = 0.3


def now() -> float:
    """The clock a phone's tree reads and screenshots are timed by (monotonic seconds)."""
    return time.monotonic()


@dataclass(frozen=True)
class Shown:
    """A phone's UI tree as read (its xml and tree), ``at`` when the read ended; ``spare``:
    read for a screenshot's secrets (`without_secrets`), not yet a step's tree (the step's
    next `hierarchy` takes it while it is fresh, rather than read the same screen again)."""

    tree: UITree
    xml: str
    # (looked up at each read: `now` is the one clock of reads and screenshots, a test's too)
    at: float = field(default_factory=lambda: now())
    spare: bool = False


def fresh(shown: Shown | None, at: float) -> bool:
    """Whether ``shown`` (None: no tree since the last command) is the screen's tree at
    ``at`` (a screenshot's start): read at most TREE_KEPT_S before it."""
    return shown is not None and at - shown.at <= TREE_KEPT_S


def spare(shown: Shown | None) -> Shown | None:
    """``shown`` when it is a tree read for a screenshot just now (fresh, no command since),
    for a step's `hierarchy` to take rather than read the screen again; else None."""
    return shown if shown is not None and shown.spare and fresh(shown, now()) else None


def without_secrets(device: Any, png: bytes, tree_now: Callable[[], UITree]) -> bytes:
    """``png`` (a phone's screenshot, for the report or a model: `ScreenshotGrabber.grab`)
    with the box of each node of the screen's UI tree whose text, label or value holds a
    secret blacked out (`secret_boxes`: the case's mask, ``device.hide``, finds it in any of
    the forms the text masking knows), scaled from the tree's units to the image's pixels: a
    secret typed into a field that draws it, or shown by the app, stays out of the report
    and the model's prompt. ``tree_now`` gives the tree of the screen as the screenshot has
    it (one read within TREE_KEPT_S before the screenshot began, else read now, retried as a
    step's read is). A case that refers to no secret (``hide`` is `unmasked`) reads no tree.
    A screen whose tree cannot be read has its image dropped (DeviceError: a report image
    then says "no image: not taken: ...", a model's look ends the attempt as the device's
    error, retried elsewhere — not the app's failure): it may show a secret. Text drawn in an image or a canvas is not in a tree."""
    hide = getattr(device, "hide", unmasked)
    if hide is unmasked or getattr(device, "screenshot_black", False):
        return png      # (a black frame, FLAG_SECURE's, shows nothing)
    try:
        tree = tree_now()
    except (DeviceError, ValueError) as exc:   # (not a lost phone: that ends the case)
        log.warning("%s: the screen's UI tree was not read (%s): its screenshot is dropped, "
                    "as a secret it may show could not be blacked out", device.name,
                    first_line(exc))
        raise DeviceError(f"the screen's UI tree could not be read ({first_line(exc)}): a "
                         "secret it may show could not be blacked out of its screenshot, "
                         "which is neither kept nor sent to a model") from None
    from farm.devices.native_tree import secret_boxes
    boxes = secret_boxes(tree, hide)
    if not boxes:
        return png
    from farm.agent.images import blacked_out_at
    log.info("%s: %d region(s) of the screen's text holding a secret blacked out of a "
             "screenshot", device.name, len(boxes))
    return blacked_out_at(png, boxes, device.size())


class _NoTree(Exception):
    """A plugin device gave no UI tree to black a screenshot's secrets out of."""


# Plugins (`PluginDevice.origin`) said to give no UI tree to black secrets out of
_UNHIDDEN: set[str] = set()


def plugin_without_secrets(device: Any, png: bytes) -> bytes:
    """`without_secrets` for a device plugin's device (`farm.devices.base.PluginDevice`),
    its tree from hierarchy() (`PluginDevice.screen_tree`): the same rules as a phone's. One
    whose hierarchy() gives no tree (None) keeps its images as they are, said once per plugin
    (a warning in farm.log): they may show a secret."""
    if getattr(device, "hide", unmasked) is unmasked:
        return png

    def tree_now() -> UITree:
        tree = device.screen_tree(TREE_KEPT_S)
        if tree is None:
            raise _NoTree
        return tree
    try:
        return without_secrets(device, png, tree_now)
    except _NoTree:
        if device.origin not in _UNHIDDEN:
            _UNHIDDEN.add(device.origin)
            log.warning("%s: hierarchy() of %s gives no UI tree: secrets its screen shows are "
                        "not blacked out of its screenshots (the report's and those sent to a "
                        "model); a hierarchy() giving the screen's text nodes lets farm black "
                        "them out", device.name, device.origin)
        return png
