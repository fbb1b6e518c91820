"""Frames of another origin than their parent's (a payment form, an embedded sign-in widget)
in the DOM read, and farm's scripts sent to the frame their target is in.

The page's script cannot read such a frame (dom.js walks frames of its origin itself): each is
read on its own through Playwright's frame (`FRAME_TREE_JS`), its elements' rects moved to
where the frame shows in the page (`FRAME_BOX_JS`, on the frame's element: nested frames too,
clipped to each frame's box), and appended to the page's nodes. A node read so keeps a
`FrameRoute`: the hit, aim, fill, focus and scroll scripts for it run in its frame, with its
index and point there. Playwright keeps its frame list without a round trip: a page without
such frames costs nothing. One with them asks, in one round trip for all of them
(`FrameElements.shown`), which of them show: a frame not rendered, hidden, or under 2x2 px (an
analytics or ad pixel) is left out of the read, and of text checks. Each frame that shows is
walked on every read (its changes do not move the page's change token): two round trips (its
walk, its box). Each frame's element is kept across reads (`FrameElements`): asking Playwright
for it is a round trip. A frame that goes away or navigates under the read is left out of it.

An XPath (a step's own, the locate cache's) is evaluated in each such frame too, after the
page's (`xpath_rects`), its rects moved as a read moves its nodes: the same XPath that
selects an element of the page or of a frame of its origin selects one here, so what a model
found in such a frame is cached, and checked against the live frame, as anywhere else.

Each frame has its own change counter and count of requests in flight (page_state.js runs in
every frame): a read keeps each frame's change token, and a wait for the page to change after
a locate missed (BrowserDevice.await_change) asks each frame for its own (`watch`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from farm.devices.base import Rect, UINode
from farm.devices.web.scripts import (FRAME_BOX_JS, FRAME_SHOWN_JS, FRAME_STATE_JS,
                                      FRAME_TREE_JS, VISIBLE_TEXT_JS, XPATH_JS)
from farm.text import clean

log = logging.getLogger("farm.devices.browser")

HAS_FOCUS_JS = "() => document.hasFocus()"


def origin(url: str) -> str:
    """scheme://host:port of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def other_origin(frame: Any) -> list[Any]:
    """The frames below ``frame`` whose parent's script cannot read them (another origin
    than their parent's), through frames it can read (dom.js walks those); no round trip."""
    found = []
    for child in frame.child_frames:
        if child.is_detached():
            continue
        if child.url.startswith("http") and origin(child.url) != origin(frame.url):
            found.append(child)
        else:
            found.extend(other_origin(child))
    return found


class FrameElements:
    """The elements of the frames of another origin (ElementHandles in their parents'
    documents), kept by Playwright frame (the same object until it detaches) across reads:
    `frame_element()` is a round trip a frame. A page's reader keeps one; a new page, a new
    one (`forget`)."""

    def __init__(self) -> None:
        self._kept: dict[Any, tuple[Any, Any]] = {}     # frame: (its element, its parent)

    def forget(self) -> None:
        """A new page (or context): its frames are not these."""
        self._kept = {}

    def element(self, frame: Any) -> Any:
        """``frame``'s element in its parent's document (asked once a frame)."""
        kept = self._kept.get(frame)
        if kept is None:
            kept = self._kept[frame] = (frame.frame_element(), frame.parent_frame)
        return kept[0]

    def drop(self, frame: Any) -> None:
        """``frame``'s element is let go of (the frame detached, or its element failed): the
        page may free it; the next `element` asks for it again."""
        kept = self._kept.pop(frame, None)
        if kept is None or kept[1] is None or kept[1].is_detached():
            return                  # (its document gone: so is the handle)
        try:
            kept[0].dispose()
        except Exception as exc:    # its parent navigated meanwhile: nothing left to free
            log.debug("frame element not disposed: %s", exc)

    def prune(self) -> None:
        """The elements of frames that detached since are let go of."""
        for frame in [f for f in self._kept if f.is_detached()]:
            self.drop(frame)

    def shown(self, frame: Any) -> list[tuple[Any, Any]]:
        """(frame, element) of each of ``frame``'s frames of another origin (`other_origin`)
        that shows (FRAME_SHOWN_JS), in their order there: one round trip for their parent
        (two or more only where some are in frames of its origin), none without such frames.
        A frame gone meanwhile is left out."""
        children = other_origin(frame)
        by_parent: dict[Any, list[Any]] = {}
        for child in children:
            by_parent.setdefault(child.parent_frame, []).append(child)
        shows: dict[Any, Any] = {}
        for parent, group in by_parent.items():
            shows.update(self._ask(parent, group))
        return [(child, shows[child]) for child in children if child in shows]

    def _ask(self, parent: Any, group: list[Any]) -> dict[Any, Any]:
        """{frame: element} of those of ``group`` (frames in ``parent``) that show; once more
        with their elements asked again when a kept one failed (its document changed)."""
        from playwright.sync_api import Error as PlaywrightError

        for attempt in (1, 2):
            try:
                pairs = []
                for child in group:
                    if not child.is_detached():
                        pairs.append((child, self.element(child)))
                if parent is None or not pairs:
                    return {}
                flags = parent.evaluate(FRAME_SHOWN_JS, [el for _, el in pairs])
                return {child: el for (child, el), shown in zip(pairs, flags) if shown}
            except PlaywrightError as exc:
                log.debug("frames of %s not asked (%d): %s", parent and parent.url, attempt, exc)
                for child in group:
                    self.drop(child)
        return {}


@dataclass
class Level:
    """A frame's viewport in its parent's page: (x, y) there is (x k + dx, y k + dy)."""

    element: Any            # the frame's element (an ElementHandle in its parent's document)
    dx: float
    dy: float
    k: float


@dataclass
class FrameRoute:
    """Where node ``index`` of ``frame``'s last read is: ``levels`` innermost first, from
    its frame's viewport up to the page's."""

    frame: Any
    index: int
    levels: list[Level] = field(default_factory=list)

    def local(self, x: float, y: float) -> tuple[int, int]:
        """The page's point (x, y) in the frame's viewport."""
        for level in reversed(self.levels):
            x, y = (x - level.dx) / level.k, (y - level.dy) / level.k
        return round(x), round(y)

    def page(self, x: float, y: float) -> tuple[int, int]:
        """The frame's point (x, y) in the page's viewport."""
        for level in self.levels:
            x, y = x * level.k + level.dx, y * level.k + level.dy
        return round(x), round(y)

    def covered(self, x: int, y: int) -> str:
        """What a tap at the page's point (x, y) hits instead of the frame (an element of a
        page between: the frame's parent, its parent's...); "" when it goes into the frame,
        or there is no telling (a frame gone meanwhile). A round trip a level."""
        from playwright.sync_api import Error as PlaywrightError

        px, py = self.local(x, y)
        for level in self.levels:
            try:
                box = level.element.evaluate(FRAME_BOX_JS, [[[px, py, 1, 1]], [0], 1e9, 1e9])
            except PlaywrightError as exc:
                log.debug("frame %s not checked: %s", self.frame.url, exc)
                return ""
            if box is None:         # its element gone: no telling
                return ""
            if box["hits"][0] is not True:
                return str(box["hits"][0])
            px, py = box["rects"][0][0], box["rects"][0][1]
        return ""

    def run(self, js: str, arg: Any, gone: Any = None) -> Any:
        """``js`` called with ``arg`` in the frame; ``gone`` when the frame went away or
        navigated meanwhile (its element is not there any more: the caller does as without
        the read's node, a tap at the point)."""
        from playwright.sync_api import Error as PlaywrightError

        from farm.devices.web.failures import raced_navigation
        try:
            return self.frame.evaluate(js, arg)
        except PlaywrightError as exc:
            if not raced_navigation(exc):
                raise
            log.debug("frame %s went away: %s", self.frame.url, exc)
            return gone

    def reveal(self) -> None:
        """Each frame's element scrolled to the middle of its parent's viewport, outermost
        last (the target itself is scrolled in its frame by the caller)."""
        for level in self.levels:
            level.element.evaluate("(el) => el.scrollIntoView({block: 'center', "
                                   "inline: 'center', behavior: 'instant'})")


@dataclass
class _Found:
    """A node of a frame's read, in the coordinates of the page being read."""

    node: UINode
    route: FrameRoute
    parent: tuple[Any, int] | None      # (frame, index there) of its parent element


def read(page: Any, nodes: list[UINode], max_nodes: int, walk: Any, seen: dict[Any, Any],
         elements: FrameElements) -> tuple[list[UINode], dict[int, FrameRoute]]:
    """``nodes`` (the page's read) and, after them, the rendered elements of its frames of
    another origin that show (`FrameElements.shown`), up to ``max_nodes`` in all; the routes
    of those, by node id. ``walk`` parses a read (dom_read's); ``seen`` gets each frame
    read's change token, by frame (what `watch` compares)."""
    main = page.main_frame
    elements.prune()
    found = _read_below(main, max_nodes - len(nodes), walk, seen, elements)
    if not found:
        return nodes, {}
    ids = {(id(f.route.frame), f.route.index): len(nodes) + i for i, f in enumerate(found)}
    out, routes = list(nodes), {}
    for i, f in enumerate(found):
        parent = None
        if f.parent is not None:
            frame, index = f.parent
            parent = index if frame is main else ids.get((id(frame), index))
        node_id = len(nodes) + i
        out.append(f.node.model_copy(update={"id": node_id, "parent": parent}))
        routes[node_id] = f.route
    return out, routes


def _read_below(frame: Any, budget: int, walk: Any, seen: dict[Any, Any],
                elements: FrameElements) -> list[_Found]:
    """The nodes of the frames of another origin below ``frame`` that show, in its page's
    coordinates; a frame gone or navigating under the read is left out."""
    from playwright.sync_api import Error as PlaywrightError

    found: list[_Found] = []
    if budget <= 0:
        return found
    for child, element in elements.shown(frame):
        if budget - len(found) <= 0:
            break
        try:
            found.extend(_read_frame(frame, child, element, budget - len(found), walk, seen,
                                     elements))
        except PlaywrightError as exc:   # (a browser gone fails the page's next call)
            log.debug("frame %s not read: %s", child.url, exc)
    return found


def _read_frame(frame: Any, child: Any, element: Any, budget: int, walk: Any,
                seen: dict[Any, Any], elements: FrameElements) -> list[_Found]:
    """``child``'s nodes (and its own frames'), moved into ``frame``'s page."""
    read = walk(child.evaluate(FRAME_TREE_JS, budget))
    seen[child] = read.token
    own = [_Found(n, FrameRoute(child, n.id), None if n.parent is None else (child, n.parent))
           for n in read.nodes]
    inner = _read_below(child, budget - len(own), walk, seen, elements)
    found = own + inner
    vw, vh = read.view or (0, 0)
    box = element.evaluate(FRAME_BOX_JS, [
        [[f.node.rect.x, f.node.rect.y, f.node.rect.width, f.node.rect.height] for f in found],
        [i for i, f in enumerate(found) if f.node.reached], vw, vh])
    if box is None:             # its element gone, or not rendered (display: none)
        return []
    level = Level(element, *box["at"])
    hits = dict(zip([i for i, f in enumerate(found) if f.node.reached], box["hits"]))
    for i, (f, (x, y, w, h, shown)) in enumerate(zip(found, box["rects"])):
        f.node = f.node.model_copy(update={
            "rect": Rect(x=x, y=y, width=w, height=h), "visible": f.node.visible and shown,
            "reached": hits[i] is True if i in hits else f.node.reached})
        f.route.levels.append(level)
        if f.parent is None and box["parent"] >= 0:
            f.parent = (frame, box["parent"])
    return found


def xpath_rects(frame: Any, xpath: str, elements: FrameElements) -> list[list[int]]:
    """[x, y, w, h] in ``frame``'s page of the rendered elements ``xpath`` selects in the
    frames of another origin below it that show (`FrameElements.shown`), in the order a read
    appends their nodes, and moved as it moves them: the rect a node of the read has (what a
    locate checks a hit against). xpath.js in each (its own frames of its origin too): a
    round trip a frame, one more for one where it selects something (its box), one for all
    to tell which show. A frame gone or navigating meanwhile is left out; no round trip
    without such frames."""
    from playwright.sync_api import Error as PlaywrightError

    found: list[list[int]] = []
    for child, element in elements.shown(frame):
        try:
            found.extend(_xpath_in(child, element, xpath, elements))
        except PlaywrightError as exc:   # (a browser gone fails the page's next call)
            log.debug("frame %s not searched: %s", child.url, exc)
    return found


def _xpath_in(child: Any, element: Any, xpath: str, elements: FrameElements
              ) -> list[list[int]]:
    """The rects ``xpath`` selects in ``child`` (and its own frames of another origin),
    moved into its parent's page."""
    res = child.evaluate(XPATH_JS, xpath)
    # (an XPath the page's document evaluated: an error here is the frame's, e.g. navigating)
    rects = [list(r) for r in res.get("rects") or []] if isinstance(res, dict) else []
    rects += xpath_rects(child, xpath, elements)
    if not rects:
        return []
    # (where it shows only: whether the frame clips a rect away is the read's to tell)
    box = element.evaluate(FRAME_BOX_JS, [rects, [], 1e9, 1e9])
    return [] if box is None else [r[:4] for r in box["rects"]]


def texts(frame: Any, elements: FrameElements) -> tuple[list[str], bool]:
    """The visible text (visible_text.js) of each frame of another origin below ``frame``
    that shows (`FrameElements.shown`: the same frames a read walks), and of theirs: one
    round trip for all to tell which show, one a frame that does. A frame gone or
    navigating meanwhile adds nothing. With it, whether one of them shows a canvas that can
    hold text in its viewport (visible_text.js), read in the same round trip."""
    from playwright.sync_api import Error as PlaywrightError

    found: list[str] = []
    canvas = False
    for child, _ in elements.shown(frame):
        try:
            read = child.evaluate(VISIBLE_TEXT_JS, True)
        except PlaywrightError as exc:   # detached or navigating: its text is not there
            log.debug("frame %s not read: %s", child.url, exc)
            continue
        if read and read.get("text"):
            found.append(clean(read["text"]))
        canvas = canvas or bool(read and read.get("canvas"))
        theirs, drawn = texts(child, elements)
        found.extend(theirs)
        canvas = canvas or drawn
    return found, canvas


def watch(seen: dict[Any, Any]) -> int | None:
    """How many requests the frames the last read saw (``seen``: their change tokens then, by
    frame) have in flight, a round trip a frame; None once one of them changed since, or
    navigated, or went away (the next read sees it as it is; a frame that cannot be read is
    left out of that read, and so of the next wait)."""
    from playwright.sync_api import Error as PlaywrightError

    inflight = 0
    for frame, token in seen.items():
        try:
            if frame.is_detached():
                return None
            now, busy = frame.evaluate(FRAME_STATE_JS)
        except PlaywrightError as exc:
            log.debug("frame %s changed under the wait: %s", frame.url, exc)
            return None
        if now != token:
            return None
        inflight += int(busy or 0)
    return inflight


def focused(page: Any) -> Any | None:
    """The frame of another origin that holds the keyboard focus (the innermost), found
    when the page's script says the focus is in one; None when none does (any more)."""
    from playwright.sync_api import Error as PlaywrightError

    holder, below = None, page.main_frame
    while True:
        inner = None
        for frame in other_origin(below):
            try:
                if frame.evaluate(HAS_FOCUS_JS):
                    inner = frame
                    break
            except PlaywrightError as exc:
                log.debug("frame %s not asked: %s", frame.url, exc)
        if inner is None:
            return holder
        holder, below = inner, inner
