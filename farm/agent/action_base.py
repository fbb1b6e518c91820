"""What every action is made of: the `Action` base, the `ActionContext` it runs with, and
`Locate`, the marker of a locator field (`farm.agent.actions` declares the action space on
these; `farm.agent.phone_actions` adds the actions only phones have).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, ClassVar, Optional, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from farm.devices.base import Device, Rect
from farm.errors import StepFailed


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
        device that can tell (the web's ``tap_point``, for a target found in its tree: a
        model's box, too, where it lies on an element of the tree), a
        target under something else (a sticky header, a cookie banner, a modal's backdrop)
        is scrolled once to the viewport's middle, then checked again as the page changes
        for as long as a disabled or missing target is waited for (a spinner over it goes:
        `_uncovered`), and fails the step if still covered (the tap went to the cover and the
        step passed). A phone's check (`phone_edges`) swipes in
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
        nx, ny, cover = self._uncovered(device, check, nx, ny, cover)
        if not cover:
            return nx, ny
        w, h = device.size() if hasattr(device, "size") else (x + 1, y + 1)
        if not (0 <= x < w and 0 <= y < h):        # (an XPath's element, off-screen)
            raise StepFailed(f"{self.describe()} is outside the page's {w}x{h} viewport, and "
                             f"scrolling the page does not bring it in where {act} reaches "
                             f"it: it would hit {cover}")
        raise StepFailed(f"{self.describe()} is covered by {cover}: {act} there would hit "
                         "that")


    def _uncovered(self, device: Any, check: Callable[..., tuple[int, int, str]], x: int,
                   y: int, cover: str) -> tuple[int, int, str]:
        """A target ``cover`` covers at (x, y) checked again each time the page changes (a
        spinner, a loading overlay goes: the device's ``await_page_change``), for as long as
        a disabled or missing target is waited for (`LOCATE_WAIT_S`): where it is reached,
        or where it is and what still covers it. Each wait counts from the check (a cover
        gone before the wait began, as a spinner's timer may on a slow machine, is a change)."""
        from farm.agent.locator import LOCATE_WAIT_S
        wait = getattr(device, "await_page_change", None)
        until = time.monotonic() + LOCATE_WAIT_S
        while cover and wait is not None and (left := until - time.monotonic()) > 0:
            if not wait(left, since_check=True):
                break
            x, y, cover = check(self.node, x, y)
        return x, y, cover


class ActionContext:
    """What an action may use: the device, the secret resolver (values typed on the device are
    resolved here and nowhere else), the mask that hides the secrets' values (an output the
    driver cuts is masked before: `farm.devices.base.masking`) and the seconds left before
    the case's deadline."""

    def __init__(self, device: Device, resolve: Callable[[str], str],
                 remaining: Callable[[], float] = lambda: float("inf"),
                 acted: list[dict[str, Any]] | None = None,
                 cancel: "threading.Event | None" = None,
                 idle: Callable[[], None] = lambda: None,
                 mask: Callable[[str], str] = lambda text: text) -> None:
        self.device = device if acted is None else _Acting(device, acted)
        self.resolve = resolve
        self.mask = mask
        self.remaining = remaining
        self.cancel = cancel or threading.Event()    # set: the run stopped (Ctrl-C, SIGTERM)
        self.idle = idle    # a wait with nothing to do begins (`ScreenshotGrabber.idle`)

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
        if name in ("swipe", "drag"):       # (a phone's drag: a long press, then the move)
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
