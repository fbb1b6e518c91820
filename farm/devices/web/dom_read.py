"""The rendered DOM as a UITree, the page's visible text, and XPath matches as rects: each one
page.evaluate, after any navigation a step started (`farm.devices.web.page_wait`)."""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import BaseModel

from farm.devices.base import Rect, UINode, UITree
from farm.devices.web import frames
from farm.devices.web.page_wait import PageWait
from farm.devices.web.scripts import MAX_NODES, REACH_JS, TEXT_JS, TREE_JS, XPATH_JS, read_js
from farm.errors import StepFailed
from farm.text import clean, clean_json, needs_cleaning

log = logging.getLogger("farm.devices.browser")

# what a tap on a node of the last read would hit, and the page's change token as it did
HIT_JS = ("(args) => { const out = (" + read_js("hit.js") + ")(args, " + REACH_JS + ");\n"
          "  const s = window.__farm;\n"
          "  return [...out, s ? performance.timeOrigin + ':' + s.gen : null]; }")
# whether the tap still reaches it once the mouse is there (a hover may move or cover it)
AIM_JS = "(args) => (" + read_js("aim.js") + ")(args, " + REACH_JS + ")"


class DomReader:
    """Reads one device's page; the last tree is kept and returned again while the page's
    change token (page_state.js) says nothing changed."""

    def __init__(self, wait: PageWait, device: str) -> None:
        self.wait = wait
        self.device = device
        self.seconds: float | None = None             # how long the last read took
        self._tree: tuple[str, UITree] | None = None  # (change token, tree) of the last walk
        self._focus: int | None = None                # the node of the last walk with the focus
        # (change token, the page's text, a canvas shown) last read
        self._text: tuple[str, str, bool] | None = None
        # whether the last `text` read saw a canvas that can hold text in the viewport (of the
        # page or of a frame it read): text drawn there is in no text read, OCR can read it
        self.canvas = False
        # why each element the last XPath matched in the page is not shown ("display:none")
        self.xpath_hidden: list[str] = []
        # the last tree read, until an action may change the page (`acted`): what `reached`
        # answers from
        self._fresh: UITree | None = None
        # the change token of the page as the last read (tree or text) saw it, until an action
        # (`acted`): a step that only read the page needs no new image while it is the last's
        self.seen: str | None = None
        # the nodes of the last tree that are in frames of another origin (frames.py)
        self._routes: dict[int, frames.FrameRoute] = {}
        # the change tokens of those frames as the last tree saw them, by frame (frames.watch)
        self.frames_seen: dict[Any, str | None] = {}
        # the page's change token as the last check before a tap (`tap_point`) saw it: a
        # wait for a cover to go counts from there (None: checked in a frame of another origin)
        self.checked: str | None = None
        # the elements of the page's frames of another origin, kept across reads
        self._elements = frames.FrameElements()

    def forget(self) -> None:
        """A new page: the last tree is not of it."""
        self._tree = None
        self._focus = None
        self._text = None
        self.canvas = False
        self._fresh = None
        self.seen = None
        self._routes = {}
        self.frames_seen = {}
        self._elements.forget()

    def acted(self) -> None:
        """An action (or a navigation) is about to change the page: the last tree may be old."""
        self._fresh = None
        self.seen = None

    def reached(self, node: int, x: int, y: int) -> bool:
        """Whether the last tree, read with no action since, found a tap at (x, y) on ``node``
        reaching it (dom.js's ``reached``, for that node's middle): no need to check again."""
        tree = self._fresh
        if tree is None or not 0 <= node < len(tree.nodes):
            return False
        found = tree.nodes[node]
        return found.id == node and bool(found.reached) and found.rect.center == (x, y)

    def field_reached(self, node: int, x: int, y: int) -> bool:
        """Whether ``node`` is a text field (editable) that the last tree, read with no action
        since, found a tap at (x, y) reaching (`reached`)."""
        return self.reached(node, x, y) and bool(self._fresh and self._fresh.nodes[node].editable)

    def has_focus(self, node: int) -> bool:
        """Whether the last tree, read with no action since, found the keyboard focus on
        ``node``, an element of the page's own document (or of a frame of its origin)."""
        return self._fresh is not None and node not in self._routes and self._focus == node

    def tree(self, page: Any) -> UITree:
        """The rendered DOM as a UITree (not walked again while unchanged)."""
        started = time.monotonic()
        # (a frame of another origin changes without the page's change token)
        others = frames.other_origin(page.main_frame)
        self.frames_seen = {}
        last = self._tree[0] if self._tree and not others and not self._routes else None
        raw = self.wait.evaluate(page, TREE_JS, [MAX_NODES, last], what="read the DOM")
        if raw == "same" and self._tree is not None:
            self.seconds = time.monotonic() - started
            self._fresh, self.seen = self._tree[1], self._tree[0]
            return self._fresh
        walk = _walk(raw)
        nodes, self._routes = walk.nodes, {}
        if others and not walk.truncated:
            nodes, self._routes = frames.read(page, nodes, MAX_NODES, _walk, self.frames_seen,
                                              self._elements)
        self.seconds = time.monotonic() - started
        if walk.truncated:
            log.info("%s: DOM has more than %d rendered elements; tree truncated", self.device,
                     MAX_NODES)
        tree = UITree(source="dom", nodes=nodes, truncated=walk.truncated)
        self._tree = (walk.token, tree) if walk.token else None
        self._focus = walk.focus
        self._fresh, self.seen = tree, walk.token
        return tree

    def route(self, node: int) -> frames.FrameRoute | None:
        """Where node ``node`` of the last tree is when it is in a frame of another origin
        (its scripts run there), else None (the page's own, or a frame of its origin)."""
        return self._routes.get(node)

    def text(self, page: Any) -> str:
        """The page's visible text (visible_text.js; not read again while unchanged): what a
        text check compares. The text of frames from another origin (a payment form, an
        embedded widget), which the page's own script cannot read, is read frame by frame and
        added, on every read: of those that show (`frames.texts`; not a 1x1 px tracker's).
        Whether the viewport shows a canvas that can hold text is read with it (`canvas`)."""
        started = time.monotonic()
        last = self._text[0] if self._text else None
        raw = self.wait.evaluate(page, TEXT_JS, last, what="read the page's text")
        if raw == "same" and self._text is not None:
            _, text, canvas = self._text
        else:
            raw = clean_json(raw)
            text, canvas = raw["text"], bool(raw.get("canvas"))
            self._text = (raw["token"], text, canvas) if raw.get("token") else None
        self.seen = self._text[0] if self._text else None
        found, drawn = frames.texts(page.main_frame, self._elements)
        self.canvas = canvas or drawn
        others = "\n".join(found)
        self.seconds = time.monotonic() - started
        return text + "\n" + others if others else text

    def xpath_rects(self, page: Any, xpath: str) -> list[Rect]:
        """Viewport rects of rendered elements matching ``xpath``; bad XPath -> StepFailed.
        The page's document and its frames of its origin (xpath.js), then its frames of
        another origin, each evaluated in its frame (`frames.xpath_rects`; Playwright's frame
        list is kept without a round trip: a page without such frames costs nothing more)."""
        res = clean(self.wait.evaluate(page, XPATH_JS, xpath, what="evaluate XPath"))
        if "error" in res:
            raise StepFailed(f"invalid XPath {xpath!r}: {res['error']}")
        self.xpath_hidden = [str(w) for w in res.get("hidden") or []]
        rects = res["rects"] + frames.xpath_rects(page.main_frame, xpath, self._elements)
        return [Rect(x=r[0], y=r[1], width=r[2], height=r[3]) for r in rects]

    def frame_url(self, node: int) -> str | None:
        """The URL of the frame of another origin node ``node`` (of the last `tree`) is in;
        None for a node of the page (or of a frame of its origin, which the page reads)."""
        route = self._routes.get(node)
        return None if route is None else str(getattr(route.frame, "url", "") or "") or None

    def tap_point(self, page: Any, node: int, x: int, y: int) -> tuple[int, int, str]:
        """Where a tap on ``node`` (an id of the last `tree`) at (x, y) reaches it, in one
        round trip (hit.js): (x, y, "") when nothing covers it there, the point it was scrolled
        to when something did, or that point and what covers it still."""
        route = self._routes.get(node)
        self.checked = None
        if route is None:
            nx, ny, cover, self.checked = self.wait.script(page, HIT_JS, [node, x, y])
            return int(nx), int(ny), clean(cover)
        # in its frame, at its point there; then what of the page a tap hits over the frame
        at = route.local(x, y)
        nx, ny, cover = route.run(HIT_JS, [route.index, *at], gone=[*at, ""])[:3]
        if (nx, ny) != at:
            x, y = route.page(nx, ny)
        return x, y, clean(cover or route.covered(x, y))

    def aim(self, page: Any, node: int, x: int, y: int) -> tuple[int, int] | str | None:
        """With the mouse at (x, y) over node ``node``, before its button goes down (aim.js):
        None when a tap there reaches it, the point it is reached at now when the hover
        moved it, else what a tap would hit instead."""
        route = self._routes.get(node)
        if route is None:
            res = self.wait.script(page, AIM_JS, [node, x, y])
        else:
            res = route.run(AIM_JS, [route.index, *route.local(x, y)])
        if isinstance(res, list):
            return route.page(*res) if route else (int(res[0]), int(res[1]))
        return clean(res) if isinstance(res, str) else None


class _Walk(BaseModel):
    """dom.js's answer (a JSON string), validated as it is parsed."""

    truncated: bool = False
    nodes: list[UINode] = []
    token: str | None = None
    focus: int | None = None                    # the node with the keyboard focus
    view: tuple[float, float] | None = None     # a frame's viewport (frames.FRAME_TREE_JS)


def _walk(text: str) -> _Walk:
    """dom.js's answer: parsed and validated in one pass by pydantic-core (half the time of
    json.loads and a model per node: 6 against 12 ms for 1,400 elements), or, where a page's
    text holds a lone surrogate, decoded and made valid Unicode first (`clean_json`)."""
    if needs_cleaning(text):
        return _Walk.model_validate(clean_json(text))
    return _Walk.model_validate_json(text)
