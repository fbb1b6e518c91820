"""The action space: every action, declared as a pydantic model, registered per platform.

The planner chooses from it, and deterministic suite steps run through it too (`aiTap: Sign in`
builds ``Tap(locate=Locate(prompt="Sign in"))``, as Midscene's aiTap calls the Tap action), so
each action's device logic exists once. A field typed `Locate` is a locator field: the
TaskBuilder finds it by scanning the schema and puts a Locate task before the action
(Tap → [locate], DragAndDrop → [from, to], Back → []). Adding an action is adding a class
here; nothing else changes.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, ClassVar, Literal, Optional, get_args, get_origin

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from farm.devices.base import Device, Rect
from farm.devices.phone_edges import bring_in_swipe, edge_cut
from farm.errors import CaseTimeout, Interrupted, StepFailed
from farm.suite.steps import SCROLL_ALIASES, SCROLL_TYPES
from farm.text import map_strings


class BoxAt(BaseModel):
    """A box-only target remembered by where it was: its rect (device units) on a screen of
    ``screen`` size. Replayed only on a screen of that size."""

    rect: list[int]
    screen: list[int]


class Locate(BaseModel):
    """The locator marker: a description (and maybe a box or an XPath) of one element, as the
    model planned it or a suite step wrote it (``${NAME}`` placeholders intact)."""

    model_config = ConfigDict(extra="ignore")
    prompt: str = ""
    bbox: Optional[list[float]] = None
    xpath: Optional[str] = None
    deepLocate: bool = False
    # reference images of a suite step's {prompt, images} target (never planned, never cached)
    images: Optional[list[dict[str, str]]] = Field(default=None, exclude=True)
    rect: Optional[Rect] = Field(default=None, exclude=True)   # filled by the Locate task
    tier: Optional[str] = Field(default=None, exclude=True)
    # A box-only target (AutoGLM, UI-TARS give no prompt) as the plan cache replays it: the
    # XPath of the element hit (`anchor`, stored as `xpath`), else where the box was (`at`).
    anchor: Optional[str] = Field(default=None, exclude=True)
    at: Optional[BoxAt] = None
    # ... and what it hit then (role, strings shown, strings around it): a replay that finds
    # another element there (a list reordered) is no replay of that tap
    was: Optional[dict[str, Any]] = Field(default=None, exclude=True)   # (kept as "seen")
    # the action types into it: among tied text matches, the one text field wins
    editable: bool = Field(default=False, exclude=True)
    disabled: bool = Field(default=False, exclude=True)    # the element found is disabled
    node: Optional[int] = Field(default=None, exclude=True)  # its tree node (text tier)

    @model_validator(mode="before")
    @classmethod
    def _described(cls, data: Any) -> Any:
        """``"locate": "the Go button"``: a description alone is a Locate of it."""
        return {"prompt": data} if isinstance(data, str) else data

    @field_validator("bbox", mode="before")
    @classmethod
    def _lenient_box(cls, value: Any) -> Any:
        """A box however the model wrote its numbers: "400,300,600,400", "[400 300 600 400]",
        [[400, 300], [600, 400]], ["400px", ...] (doubao); the count is checked where it is
        mapped (a box is 4 numbers, a point 2)."""
        from farm.llm.plan import numbers
        if isinstance(value, str):
            return numbers(value)
        if isinstance(value, (list, tuple)) and any(isinstance(v, (str, list, tuple))
                                                    for v in value):
            return numbers(" ".join(map(str, value)))
        return value

    @property
    def box_only(self) -> bool:
        """Nothing but the planner's box says what this target is."""
        return not (self.prompt or self.xpath)

    def describe(self) -> str:
        if self.prompt:
            return f'"{self.prompt}"'
        if self.xpath:
            return f"XPath {self.xpath}"
        if self.bbox:      # as the model wrote it: [50, 600, …], not [50.0, 600.0, …]
            return "box [" + ", ".join(f"{v:g}" if isinstance(v, float) else str(v)
                                       for v in self.bbox) + "]"
        if self.at is not None:
            return f"the remembered box {self.at.rect}"
        return "a target with no description"

    def point(self) -> tuple[int, int]:
        if self.rect is None:
            raise StepFailed(f"{self.describe()} was not located")
        return self.rect.center

    def usable(self, what: str, device: Any = None, act: str = "a tap") -> tuple[int, int]:
        """`point`, for an action on a control: a disabled one fails the step (a tap there
        does nothing, and the step would pass while the app ignored it); so does one that
        something else covers (`reachable`)."""
        if self.disabled:
            raise StepFailed(f"{self.describe()} is disabled: {what}")
        return self.reachable(device, act)

    def gesture_start(self, device: Any, act: str) -> tuple[int, int]:
        """`point`, where a gesture (a swipe, a scroll, a drag, a pinch) begins on the target:
        on a phone, one cut by the screen's edge is swiped in first, or the step fails saying
        the system's bar would take ``act`` (`reachable`), as for a tap: a swipe begun on a
        strip above the home-gesture bar is the system's. Elsewhere, the point found."""
        if getattr(device, "platform", "") not in ("android", "ios"):
            return self.point()
        return self.reachable(device, act)

    def reachable(self, device: Any, act: str) -> tuple[int, int]:
        """`point`, where ``act`` (a tap, a double-click...) would reach the target: on a
        device that can tell (the web's ``tap_point``, for a target found in its tree), a
        target under something else (a sticky header, a cookie banner, a modal's backdrop)
        is scrolled once to the viewport's middle, and fails the step if still covered (the
        tap went to the cover and the step passed). A phone's check (`phone_edges`) swipes in
        a target cut by the screen's edge, once, whichever tier found it."""
        x, y = self.point()
        check = getattr(device, "tap_point", None) if self.node is not None else None
        if check is None:
            return x, y
        nx, ny, cover = check(self.node, x, y)
        if not cover:
            return nx, ny
        if getattr(device, "platform", "") in ("android", "ios"):   # (`phone_edges`)
            raise StepFailed(f"{self.describe()} is cut by the screen's edge: {act} there "
                             f"would hit {cover}")
        w, h = device.size() if hasattr(device, "size") else (x + 1, y + 1)
        if not (0 <= x < w and 0 <= y < h):        # (an XPath's element, off-screen)
            raise StepFailed(f"{self.describe()} is outside the page's {w}x{h} viewport, and "
                             f"scrolling the page does not bring it in where {act} reaches "
                             f"it: it would hit {cover}")
        raise StepFailed(f"{self.describe()} is covered by {cover}: {act} there would hit "
                         "that")


class ActionContext:
    """What an action may use: the device, the secret resolver (values typed on the device are
    resolved here and nowhere else) and the seconds left before the case's deadline."""

    def __init__(self, device: Device, resolve: Callable[[str], str],
                 remaining: Callable[[], float] = lambda: float("inf"),
                 acted: list[dict[str, Any]] | None = None,
                 cancel: "threading.Event | None" = None) -> None:
        self.device = device if acted is None else _Acting(device, acted)
        self.resolve = resolve
        self.remaining = remaining
        self.cancel = cancel or threading.Event()    # set: the run stopped (Ctrl-C, SIGTERM)

    def optional(self, method: str) -> Callable[..., Any]:
        fn = getattr(self.device, method, None)
        if fn is None:
            kind = type(getattr(self.device, "_device", self.device)).__name__
            raise StepFailed(f"{kind} on {self.device.platform} cannot "
                             f"{method} (the driver has no {method}())")
        return fn


class _Acting:
    """The device, noting where each action touched it (for annotated screenshots):
    ``{"kind": "tap", "points": [[x, y]]}``, a swipe's or scroll's path, the field typed in."""

    _POINT = {"tap": "tap", "double_tap": "double_tap", "long_press": "long_press",
              "hover": "hover", "right_click": "tap", "tap_choosing_files": "tap"}

    def __init__(self, device: Device, acted: list[dict[str, Any]]) -> None:
        self._device, self._acted = device, acted

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._device, name)
        if name in self._POINT:
            return lambda x, y, *a: self._pointed(self._POINT[name], fn, x, y, *a)
        if name in ("fill_at", "focus_at"):     # a field typed into or focused, no tap
            kind = "type" if name == "fill_at" else "tap"
            return lambda x, y, *a: self._done_at(kind, fn, x, y, *a)
        if name == "swipe":
            return lambda x1, y1, x2, y2, *a: (
                self._note("swipe", [[x1, y1], [x2, y2]]), fn(x1, y1, x2, y2, *a))[1]
        if name == "scroll":
            return lambda x, y, dx, dy, *a: (
                self._note("scroll", [[x, y], [x + dx, y + dy]]), fn(x, y, dx, dy, *a))[1]
        if name == "type_text":
            return lambda *a: (self._typed(), fn(*a))[1]
        return fn

    def _pointed(self, kind: str, fn: Callable[..., Any], x: float, y: float, *a: Any) -> Any:
        """``fn(x, y, ...)``, noted at (x, y) before it runs (a tap that fails is marked
        where it was tried); a tap that says it went to another point (its target moved as
        the pointer reached it: `BrowserDevice.tap`) is marked there instead."""
        self._note(kind, [[x, y]])
        went = fn(x, y, *a)
        if kind == "tap" and isinstance(went, tuple) and len(went) == 2:
            self._acted[-1]["points"] = [[round(v) for v in went]]
            return None
        return went

    def _done_at(self, kind: str, fn: Callable[..., Any], x: float, y: float, *a: Any) -> Any:
        done = fn(x, y, *a)
        if done is not None:        # (None: nothing done there, the tap that follows is)
            self._note(kind, [[x, y]])
        return done

    def _note(self, kind: str, points: list[list[float]]) -> None:
        self._acted.append({"kind": kind, "points": [[round(v) for v in p] for p in points]})

    def _typed(self) -> None:
        last = self._acted[-1] if self._acted else None
        if last is not None and last["kind"] == "tap":   # the field it tapped, then typed into
            last["kind"] = "type"


class Action(BaseModel):
    """Base of every action. ``run`` performs it once its locator fields hold rects and
    returns its output (None for most; a shell command's stdout, a WDA answer)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    name: ClassVar[str] = ""
    doc: ClassVar[str] = ""
    moves_pointer: ClassVar[bool] = False

    def run(self, ctx: ActionContext) -> Any:
        raise NotImplementedError

    def detail(self) -> str:
        """What besides its target says what it did, for its label ("Steps done so far" the
        model reads, the ai step's output): the text typed, the key, the direction."""
        return ""

    def target(self) -> str:
        """What it acts on, for logs and loop detection."""
        locs = [getattr(self, f) for f in locator_fields(type(self))]
        return ", ".join(l.describe() + (f" at {l.rect.as_list()}" if l.rect else "")
                         for l in locs if l is not None)


def as_planned(action: Action) -> dict[str, Any]:
    """``{"type", "params"}`` of ``action`` as a plan would carry it, without the boxes of the
    moment (the plan cache replays it; `make_action` builds it again). A box-only target keeps
    what its Locate task found instead: the XPath of the element hit, else where the box was,
    and under ``seen`` what that element was (a replay checks it is still there).
    Text stays as written: ``${NAME}`` placeholders, never values."""
    params = action.model_dump(mode="json", by_alias=True, exclude_none=True)
    seen: dict[str, Any] = {}
    for name in locator_fields(type(action)):
        key = type(action).model_fields[name].alias or name
        loc, target = params.get(key), getattr(action, name)
        if isinstance(loc, dict):
            loc.pop("bbox", None)
            if not loc.get("deepLocate"):
                loc.pop("deepLocate", None)
            if not target.box_only or target.anchor:
                loc.pop("at", None)     # (only a box-only target is replayed by its box)
            if target.box_only and target.anchor:
                loc["xpath"] = target.anchor
            if target.was is not None and not target.prompt:
                seen[key] = target.was  # what the box hit (a described one is checked by that)
    return {"type": action.name, "params": params, **({"seen": seen} if seen else {})}


def locator_fields(cls: type[BaseModel]) -> list[str]:
    """Names of the fields whose type is `Locate` (or Optional[Locate]), in declaration order."""
    out = []
    for name, f in cls.model_fields.items():
        ann = f.annotation
        if ann is Locate or (get_origin(ann) is not None and Locate in get_args(ann)):
            out.append(name)
    return out


# ---- common ---------------------------------------------------------------------------------
class Tap(Action):
    name, doc, moves_pointer = "Tap", "tap / click an element", True
    locate: Locate
    # files for the chooser the tap opens (aiTap fileChooserAccept, web); not for the planner
    fileChooserAccept: Optional[list[str]] = Field(default=None, json_schema_extra={"hidden": 1})

    def run(self, ctx: ActionContext) -> None:
        if self.fileChooserAccept and type(self) is Tap:
            # the chooser may open late on a busy machine: up to 30 s, within the case's time
            wait_s = max(min(ctx.remaining(), 30.0), 0.1)
            ctx.optional("tap_choosing_files")(
                *self.locate.usable("a tap does nothing there", ctx.device),
                self.fileChooserAccept, wait_s)
            return
        ctx.device.tap(*self.locate.usable("a tap does nothing there", ctx.device))


class DoubleClick(Tap):
    name, doc = "DoubleClick", "double-click an element"

    def run(self, ctx: ActionContext) -> None:
        ctx.device.double_tap(*self.locate.usable("a double-click does nothing there",
                                                  ctx.device, "a double-click"))


class RightClick(Tap):
    name, doc = "RightClick", "right-click an element (web)"

    def run(self, ctx: ActionContext) -> None:
        right_click = ctx.optional("right_click")
        right_click(*self.locate.reachable(ctx.device, "a right-click"))


class Hover(Tap):
    name, doc = "Hover", "move the pointer over an element"

    def run(self, ctx: ActionContext) -> None:
        ctx.device.hover(*self.locate.point())


class LongPress(Tap):
    name, doc = "LongPress", "press and hold an element"
    duration: int = 800

    def run(self, ctx: ActionContext) -> None:
        ctx.device.long_press(*self.locate.usable("a long press does nothing there",
                                                  ctx.device, "a long press"), self.duration)


class DragAndDrop(Action):
    name, doc, moves_pointer = "DragAndDrop", "drag one element onto another", True
    from_: Locate = Field(alias="from")
    to: Locate

    def run(self, ctx: ActionContext) -> None:
        start = self.from_.gesture_start(ctx.device, "a drag")
        start, end = _gesture_ends(ctx.device, self.from_, start, self.to, "a drag")
        ctx.device.swipe(*start, *end, 600)


class Input(Action):
    name, doc = "Input", "type text into an element (mode replace | clear | typeOnly)"
    value: str = Field(default="", json_schema_extra={"planned": "required"})  # _value_given
    locate: Optional[Locate] = None
    mode: Literal["replace", "clear", "typeOnly"] = "replace"
    # the step's autoDismissKeyboard, else its case's (phones); not for the planner
    autoDismissKeyboard: Optional[bool] = Field(default=None, json_schema_extra={"hidden": True})

    def detail(self) -> str:     # as planned: a ${SECRET} is still its placeholder here
        shown = self.value if len(self.value) <= 40 else self.value[:40] + "…"
        return f'"{shown}"' + (" in" if self.locate is not None else "")

    @model_validator(mode="before")
    @classmethod
    def _value_given(cls, params: Any) -> Any:
        """A planned Input without "value" (a model that wrote "text") is a bad plan the model
        is told about, not a Clear that empties the field and reports success; only mode
        clear types nothing."""
        if isinstance(params, dict) and "value" not in params and params.get("mode") != "clear":
            raise ValueError('"value" is missing: the text to type ("" only with mode clear)')
        return params

    @field_validator("value", mode="before")
    @classmethod
    def _typed_number(cls, value: Any) -> Any:
        """{"value": 3} types "3" (a quantity, a code), where it was a bad parameter; 3.0 is
        "3.0" as written, true/false are not text."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return value

    def model_post_init(self, context: Any) -> None:
        if self.locate is not None:
            self.locate.editable = True

    def run(self, ctx: ActionContext) -> None:
        filled = None
        if self.locate is not None:
            point = self.locate.usable("no text can be typed there", ctx.device)
            filled = self._filled_at(ctx, point)
            if filled:
                self._hide_keyboard(ctx.device)
                return
            if filled is None:
                ctx.device.tap(*point)
                # a phone says whether a text field took the focus (the web's fill says it)
                check = getattr(ctx.device, "check_text_focus", None)
                if check is not None and self.mode != "typeOnly":
                    check()
        fill = getattr(ctx.device, "fill", None)   # one call where the platform has one
        if (self.mode == "replace" and fill is not None and filled is None
                and fill(ctx.resolve(self.value))):
            self._hide_keyboard(ctx.device)
            return
        if self.mode in ("replace", "clear"):
            ctx.device.clear_text()
        if self.mode != "clear" and self.value:   # typeOnly: key by key, real key events
            ctx.device.type_text(ctx.resolve(self.value))   # ${SECRET} becomes its value here
            self._hide_keyboard(ctx.device)

    def _filled_at(self, ctx: ActionContext, point: tuple[int, int]) -> bool | None:
        """The web's fast path (Playwright's fill): a text field the last read found reachable
        gets the focus and the text in one go, no tap (`BrowserDevice.fill_at`); None when
        not taken (another platform, another mode, a target not in the page's tree, or not a
        text field reached there): the field is tapped, then filled."""
        fill_at = getattr(ctx.device, "fill_at", None)
        if fill_at is None or self.mode != "replace" or self.locate is None \
                or self.locate.node is None:
            return None
        return fill_at(*point, self.locate.node, ctx.resolve(self.value))

    def _hide_keyboard(self, device: Any) -> None:
        """A phone's soft keyboard hidden once the text is in (autoDismissKeyboard: the step's,
        else its case's, true by default as in Midscene); the web has none."""
        hide = getattr(device, "hide_keyboard", None)
        wanted = self.autoDismissKeyboard
        if hide is not None and (getattr(device, "dismiss_keyboard", False) if wanted is None
                                 else wanted):
            hide()


class ClearInput(Action):
    name, doc = "ClearInput", "empty an input"
    locate: Optional[Locate] = None

    def model_post_init(self, context: Any) -> None:
        if self.locate is not None:
            self.locate.editable = True

    def run(self, ctx: ActionContext) -> None:
        if self.locate is not None:     # (a disabled or covered field fails, as for Input)
            ctx.device.tap(*self.locate.usable("nothing can be cleared there", ctx.device))
        ctx.device.clear_text()


class KeyboardPress(Action):
    name, doc = "KeyboardPress", "press a key (Enter, Tab, Escape, ...), optionally on an element"
    keyName: str
    locate: Optional[Locate] = None

    def detail(self) -> str:
        return self.keyName + (" on" if self.locate is not None else "")

    def run(self, ctx: ActionContext) -> None:
        """The key, on the element found first: a disabled or covered one fails the step (the
        tap went to the cover, the key with it, and the step passed); a text field the page's
        last read found reachable gets the focus without a tap, as Playwright's press gives it
        (`BrowserDevice.focus_at`), else the element is tapped."""
        if self.locate is not None:
            point = self.locate.usable("no key can be pressed there", ctx.device, "a key press")
            focus = getattr(ctx.device, "focus_at", None)
            if focus is None or self.locate.node is None or not focus(*point, self.locate.node):
                ctx.device.tap(*point)
        ctx.device.press(self.keyName)


# The one direction table: content moves this way (scroll) / the finger moves this way (swipe).
DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
# A scroll to an end implies its direction, whatever `direction` says.
SCROLL_TO = {"scrollToBottom": "down", "scrollToTop": "up", "scrollToLeft": "left",
             "scrollToRight": "right"}


def _direction(value: Any) -> Any:
    """A direction as a model writes it ("Up", " down ") is that direction; anything else is
    refused (a planning error the model is told about): "Up" scrolled down, as every unknown
    direction did."""
    if value is None:
        return None
    key = str(value).strip().lower()
    if key not in DIRECTIONS:
        raise ValueError(f"unknown direction {value!r}; use one of: {', '.join(DIRECTIONS)}")
    return key


class Scroll(Action):
    name, doc = "Scroll", ("scroll the page or an element (direction up/down/left/right; "
                           f"scrollType {' | '.join(SCROLL_TYPES)})")
    scrollType: str = "singleAction"
    direction: str = "down"
    distance: Optional[int] = None
    locate: Optional[Locate] = None

    @field_validator("scrollType")
    @classmethod
    def _known_type(cls, value: str) -> str:
        """Midscene's legacy names (``once``, ``untilBottom``, ...) read as the suite loader
        reads them; anything else is refused (a planning error the model is told about),
        never taken as "scroll to the end"."""
        value = SCROLL_ALIASES.get(value, value)
        if value not in SCROLL_TYPES:
            raise ValueError(f"unknown scrollType {value!r}; use one of: "
                             f"{', '.join(SCROLL_TYPES)}")
        return value

    _known_direction = field_validator("direction", mode="before")(_direction)

    def detail(self) -> str:
        return self.direction if self.scrollType == "singleAction" else self.scrollType

    def run(self, ctx: ActionContext) -> None:
        w, h = ctx.device.size()
        x, y = (self.locate.gesture_start(ctx.device, "a scroll") if self.locate is not None
                else (w // 2, h // 2))
        dx, dy = DIRECTIONS.get(SCROLL_TO.get(self.scrollType, self.direction), (0, 1))
        if self.scrollType != "singleAction":
            for _ in range(10):   # far enough to reach an end on any sane page
                if ctx.device.scroll(x, y, dx * 10 * h, dy * 10 * h) is False:
                    return        # the device saw nothing move: that end is reached
            return
        step = self.distance or int((h if dy else w) * 0.7)
        ctx.device.scroll(x, y, dx * step, dy * step)


class Swipe(Action):
    name, doc, moves_pointer = "Swipe", "swipe from start to end (or in a direction)", True
    start: Optional[Locate] = None
    end: Optional[Locate] = None
    direction: Optional[str] = None
    distance: Optional[int] = None
    duration: int = 300
    repeat: int = 1

    _known_direction = field_validator("direction", mode="before")(_direction)

    def detail(self) -> str:
        return self.direction or ""

    def run(self, ctx: ActionContext) -> None:
        w, h = ctx.device.size()
        x1, y1 = self.start.gesture_start(ctx.device, "a swipe") if self.start else (w // 2,
                                                                                   h // 2)
        if self.end is not None:
            (x1, y1), (x2, y2) = _gesture_ends(ctx.device, self.start, (x1, y1), self.end,
                                               "a swipe")
        else:
            dx, dy = DIRECTIONS.get(self.direction or "up", (0, -1))
            dist = self.distance or int((h if dy else w) * 0.5)
            x2, y2 = x1 + dx * dist, y1 + dy * dist
        for _ in range(max(1, min(self.repeat, 100))):
            ctx.device.swipe(x1, y1, x2, y2, self.duration)


def _moved_with(device: Any, start: Locate | None, begins: tuple[int, int],
                end: Locate) -> tuple[int, int]:
    """Where a gesture from ``start`` (begun at ``begins``) ends on ``end``: a start swiped in
    by its check (`Locate.gesture_start`) moved the content under it as far as that swipe's
    finger went, and ``end``, found in the same read, is taken to have moved with it (a row
    dragged onto another, a slider's knob to a mark; one fixed above the list did not)."""
    x, y = end.point()
    if start is None or start.rect is None or begins == start.point():
        return x, y
    size = device.size()
    _, y1, _, y2 = bring_in_swipe(start.rect, size, edge_cut(start.rect, size) or 1)
    return x, y + y2 - y1


def _gesture_ends(device: Any, start: Locate | None, begins: tuple[int, int], end: Locate,
                  act: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where a gesture from ``start`` (begun at ``begins``) to ``end`` begins and ends. On a
    phone, an ``end`` cut by the screen's edge (a drop target showing 4 px above the
    home-gesture bar, where the drag would end on the bar) goes through the check its start
    went through (`Locate.reachable`): swiped in once, or the step fails saying what the
    gesture would end on; the start moves with the list, and the step fails when that takes
    it off the screen (the two do not fit on it together)."""
    x, y = _moved_with(device, start, begins, end)
    if getattr(device, "platform", "") not in ("android", "ios") or end.rect is None:
        return begins, (x, y)
    size = device.size()
    moved = y - end.point()[1]             # (the start's swipe moved the list: end with it)
    way = edge_cut(_shifted(end.rect, moved), size)
    if not way:
        return begins, (x, y)
    if moved:       # still cut after the start came in: they are at opposite edges
        raise StepFailed(f"{end.describe()} is cut by the screen's edge: {act} ending there "
                         "would hit the system's bar, and swiping "
                         f"{start.describe() if start else 'its start'} in did not bring it in")
    nx, ny = end.reachable(device, f"{act} ending")     # ("… ending there would hit …")
    if start is None or start.rect is None or (nx, ny) == (x, y):
        return begins, (nx, ny)
    _, y1, _, y2 = bring_in_swipe(end.rect, size, way)
    if edge_cut(_shifted(start.rect, y2 - y1), size) or not 0 <= begins[1] + y2 - y1 < size[1]:
        raise StepFailed(f"{start.describe()} and {end.describe()} do not fit on the screen "
                         f"together: swiping {end.describe()} in from the "
                         f"{('top', 'bottom')[way > 0]} edge took {start.describe()} off it")
    return (begins[0], begins[1] + y2 - y1), (nx, ny)


def _shifted(r: Rect, dy: int) -> Rect:
    return Rect(x=r.x, y=r.y + dy, width=r.width, height=r.height)


class Pinch(Action):
    name, doc = "Pinch", ("two-finger pinch on an element or the screen's centre: direction "
                          "in (fingers together, zoom out) or out (apart, zoom in)")
    locate: Optional[Locate] = None
    direction: Literal["in", "out"] = "out"
    distance: Optional[int] = None
    duration: int = 500

    def run(self, ctx: ActionContext) -> None:
        w, h = ctx.device.size()
        x, y = (self.locate.gesture_start(ctx.device, "a pinch") if self.locate is not None
                else (w // 2, h // 2))
        reach = self.distance or min(w, h) // 4     # how far each finger moves
        ctx.optional("pinch")(x, y, reach, self.direction == "out", self.duration)


class Sleep(Action):
    name, doc = "Sleep", "wait (timeMs milliseconds)"
    timeMs: int = 1000

    def detail(self) -> str:
        return f"{self.timeMs} ms"

    def run(self, ctx: ActionContext) -> None:
        begun = time.monotonic()
        # report images under way come in first: this wait serves no page events, and held
        # their answers (and farm_screenshot_duration_seconds) until it ended
        getattr(ctx.device, "finish_captures", lambda: None)()
        seconds = max(max(self.timeMs, 0) / 1000 - (time.monotonic() - begun), 0)
        left = ctx.remaining()
        # the case's deadline may come first; a stopped run ends the wait at once
        if ctx.cancel.wait(max(min(seconds, left), 0)):
            raise Interrupted(f"interrupted during sleep {self.timeMs} ms")
        if seconds > left:
            raise CaseTimeout(f"case timed out during sleep {self.timeMs} ms")


# ---- web -----------------------------------------------------------------------------------
class Navigate(Action):
    name, doc = "Navigate", "open a URL"
    url: str

    def run(self, ctx: ActionContext) -> None:
        ctx.device.launch(ctx.resolve(self.url))


class Reload(Action):
    name, doc = "Reload", "reload the page"

    def run(self, ctx: ActionContext) -> None:
        ctx.device.run_script("location.reload()", timeout_s=10)


class GoBack(Action):
    name, doc = "GoBack", "go back in the browser history"

    def run(self, ctx: ActionContext) -> None:
        ctx.device.run_script("history.back()", timeout_s=10)


# ---- mobile --------------------------------------------------------------------------------
class AndroidBackButton(Action):
    name, doc = "AndroidBackButton", "press the Android Back button"

    def run(self, ctx: ActionContext) -> None:
        back = getattr(ctx.device, "back", None)
        back() if back else ctx.device.press("Back")


class AndroidHomeButton(Action):
    name, doc = "AndroidHomeButton", "press the Android Home button"

    def run(self, ctx: ActionContext) -> None:
        home = getattr(ctx.device, "home", None)
        home() if home else ctx.device.press("Home")


class IOSHomeButton(AndroidHomeButton):
    name, doc = "IOSHomeButton", "go to the iOS home screen"


class Launch(Action):
    name, doc = "Launch", "launch an app (package / bundle id / URL)"
    uri: str

    def run(self, ctx: ActionContext) -> None:
        ctx.device.launch(ctx.resolve(self.uri))    # ${NAME} in the app id or URL


class Terminate(Action):
    name, doc = "Terminate", "stop an app"
    uri: str

    def run(self, ctx: ActionContext) -> None:
        ctx.device.terminate(ctx.resolve(self.uri))


class RunAdbShell(Action):
    name, doc = "RunAdbShell", "run an adb shell command; its stdout is the result"
    command: str
    # the step's `timeout` (runAdbShell); not for the planner
    timeoutMs: Optional[int] = Field(default=None, json_schema_extra={"hidden": 1})

    def run(self, ctx: ActionContext) -> str:
        """The command's output; it is given the step's `timeout` (else the phone's limit on
        a silence, 30 s, holds: a `cat` waiting for input fails then), and no more than the
        case's time left: one that runs on (logcat without -d) is stopped at the case's end
        as the case's timeout, where the case's watchdog stopped the phone (and the case
        read "device stopped answering")."""
        shell = ctx.optional("shell_result")
        command = ctx.resolve(self.command)
        left = ctx.remaining()
        step = self.timeoutMs / 1000 if self.timeoutMs else None
        cut = left != float("inf") and (step is None or left < step)
        if not cut:
            given = {"timeout_s": step} if step else {}
        else:   # a step's timeout is the command's whole time; without one, the case's end
            # is an end besides the silence's limit, not instead of it
            given = {"timeout_s" if step else "within_s": max(left, 0.1)}
        try:
            out, err, code = shell(command, **given)
        except StepFailed:
            if cut and ctx.remaining() <= 0:
                raise CaseTimeout(f"case timed out during adb shell `{self.command}`") \
                    from None
            raise
        if code:
            said = (err.strip() or out.strip() or "no output")[:500]
            raise StepFailed(f"adb shell `{self.command}` exited {code}: {said}")
        return out


class RunWdaRequest(Action):
    name, doc = "RunWdaRequest", ("send a WebDriverAgent request (method, endpoint, data); "
                                  "its answer is the result")
    method: str = "GET"
    endpoint: str = Field(validation_alias=AliasChoices("endpoint", "url"))
    data: Optional[Any] = None

    def run(self, ctx: ActionContext) -> Any:
        return ctx.optional("wda_request")(self.method.upper(), ctx.resolve(self.endpoint),
                                           map_strings(self.data, ctx.resolve))


COMMON: list[type[Action]] = [Tap, DoubleClick, RightClick, Hover, LongPress, DragAndDrop, Input,
                              ClearInput, KeyboardPress, Scroll, Swipe, Sleep]
PLATFORM: dict[str, list[type[Action]]] = {
    "web": [Navigate, Reload, GoBack],
    "android": [AndroidBackButton, AndroidHomeButton, Launch, Terminate, RunAdbShell, Pinch],
    "ios": [IOSHomeButton, Launch, Terminate, RunWdaRequest, Pinch],
}
# Grammar-neutral names some parsers emit (AutoGLM "Back", UI-TARS press_home).
ALIASES = {"web": {"Back": "GoBack"},
           "android": {"Back": "AndroidBackButton", "Home": "AndroidHomeButton"},
           "ios": {"Home": "IOSHomeButton"}}


def registry(platform: str) -> dict[str, type[Action]]:
    """Every action usable on ``platform``, by name (aliases included)."""
    reg = {a.name: a for a in COMMON + PLATFORM.get(platform, [])}
    for alias, real in ALIASES.get(platform, {}).items():
        reg[alias] = reg[real]
    return reg


def describe_actions(platform: str) -> str:
    """The action list for the planning prompt, generated from the schemas."""
    lines = []
    for cls in COMMON + PLATFORM.get(platform, []):
        params = []
        for fname, f in cls.model_fields.items():
            if isinstance(f.json_schema_extra, dict) and f.json_schema_extra.get("hidden"):
                continue
            key = f.alias or fname
            kind = "Locate" if fname in locator_fields(cls) else getattr(
                f.annotation, "__name__", str(f.annotation).replace("typing.", ""))
            required = f.is_required() or (isinstance(f.json_schema_extra, dict)
                                           and f.json_schema_extra.get("planned") == "required")
            params.append(f"{key}{'' if required else '?'}: {kind}")
        lines.append(f"- {cls.name} {{{', '.join(params)}}}: {cls.doc}")
    return "\n".join(lines)
