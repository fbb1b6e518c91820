"""The action space: every action, declared as a pydantic model, registered per platform.

The planner chooses from it, and deterministic suite steps run through it too (`aiTap: Sign in`
builds ``Tap(locate=Locate(prompt="Sign in"))``, as Midscene's aiTap calls the Tap action), so
each action's device logic exists once. A field typed `Locate` is a locator field: the
TaskBuilder finds it by scanning the schema and puts a Locate task before the action
(Tap → [locate], DragAndDrop → [from, to], Back → []). Adding an action is adding a class
here, or in `farm.agent.phone_actions` for one only phones have (a browser run never imports
those); nothing else changes. What every action is made of (`Action`, `ActionContext`,
`Locate`) is in `farm.agent.action_base`, and importable from here as before.
"""

from __future__ import annotations

import time
from typing import Any, Literal, Optional

from pydantic import Field, field_validator, model_validator

# (BoxAt and as_planned: their users import them from here)
from farm.agent.action_base import (Action, ActionContext, BoxAt, Locate,  # noqa: F401
                                    as_planned, locator_fields)
from farm.devices.base import Rect
from farm.devices.phone_edges import bring_in_swipe, edge_cut
from farm.errors import CaseTimeout, Interrupted, StepFailed
from farm.suite.steps import SCROLL_ALIASES, SCROLL_TYPES


# ---- common ---------------------------------------------------------------------------------
class Tap(Action):
    name, doc, moves_pointer = "Tap", "tap / click an element", True
    locate: Locate
    # files for the chooser the tap opens (aiTap fileChooserAccept, web); not for the planner
    fileChooserAccept: Optional[list[str]] = Field(default=None, json_schema_extra={"hidden": 1})

    def run(self, ctx: ActionContext) -> None:
        if self.fileChooserAccept and type(self) is Tap:
            # within the case's time; the device waits at most its own limit (the web's 10 s:
            # a page opens one within 5 s of a tap, the rest is for a busy machine)
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
        # (a target under a fixed header: the pointer would rest on the header, as a tap's)
        ctx.device.hover(*self.locate.reachable(ctx.device, "a hover"))


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
        """A phone drags (`drag`: a long press, then the move), where a swipe is a scroll or
        a fling that no app takes for a drag; the web's swipe is the mouse's drag."""
        if getattr(ctx.device, "platform", "") == "web":
            start, end = _web_drag_ends(ctx.device, self.from_, self.to)
        else:
            start = self.from_.gesture_start(ctx.device, "a drag")
            start, end = _gesture_ends(ctx.device, self.from_, start, self.to, "a drag")
        drag = getattr(ctx.device, "drag", None) or ctx.device.swipe
        drag(*start, *end, 600)


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
# A scroll to an end wheels 10 viewports at a time, at most this many times
SCROLLS_TO_END = 10
# How long the page must stay the same (none of its requests in flight) once a scroll to an
# end reached it, before the end is taken for the end: a list that loads more as it is
# scrolled to its end adds its rows meanwhile (`_grew`)
END_QUIET_S = 0.5
# what a scroll that moved nothing adds in its step's note
CANNOT_SCROLL = "the page, or the element, is already at its end or cannot scroll"


class StepNote(str):
    """An action's output that its step also shows as a note, ``note`` (results.json's
    ``notes``, the report's step row, the passed case's reason: the runner's ``_note``): what
    a tester should read though the step passed, as a scroll that moved nothing."""

    note: str

    def __new__(cls, text: str, note: str | None = None) -> "StepNote":
        said = super().__new__(cls, text)
        said.note = note or text
        return said


def _grew(ctx: ActionContext) -> bool:
    """Whether the page changed within END_QUIET_S of a scroll reaching an end (more rows
    came, or began to: its requests in flight keep the wait going, up to the locate wait or
    the case's time left), where the device can tell (the web's ``await_page_change``): since
    the scroll ended, not since now (rows that came meanwhile are more rows)."""
    from farm.agent.locator import LOCATE_WAIT_S
    wait = getattr(ctx.device, "await_page_change", None)
    cap = min(LOCATE_WAIT_S, ctx.remaining())
    return wait is not None and cap > 0 and wait(cap, END_QUIET_S, since_scroll=True) is True


def _unmoved(said: str) -> StepNote:
    """A scroll's "nothing scrolled: …" output; its note says why that may be."""
    return StepNote(said, f"{said} ({CANNOT_SCROLL})")


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

    def run(self, ctx: ActionContext) -> str | None:
        """Scroll; as Midscene, the step passes when nothing moved (the end was reached
        already), and then says so (its output, and a note of its step: `StepNote`), where
        the device can tell (the web: no scroll came; a phone: its screen looked the same
        after the swipe); so does a scroll to an end that stopped before reaching it."""
        w, h = ctx.device.size()
        x, y = self._start(ctx) if self.locate is not None else (w // 2, h // 2)
        way = SCROLL_TO.get(self.scrollType, self.direction)
        dx, dy = DIRECTIONS.get(way, (0, 1))
        if self.scrollType != "singleAction":   # (a phone: half a screen a swipe)
            reach = int(getattr(ctx.device, "end_scroll_screens", 10) * h)
            return self._to_end(ctx, x, y, dx * reach, dy * reach)
        step = self.distance or int((h if dy else w) * 0.7)
        if ctx.device.scroll(x, y, dx * step, dy * step) is False:
            return _unmoved(f"nothing scrolled: nothing at ({x}, {y}) scrolls {way} any further")
        return None

    def _to_end(self, ctx: ActionContext, x: int, y: int, dx: int, dy: int) -> str | None:
        """Wheel by (dx, dy) until nothing moves, or what moved is at its end where the
        device can tell (the web's ``scrolled_to_end``: one more wheel would scroll what
        holds it, the page under a carousel at its end), at most SCROLLS_TO_END times (an
        endless list grows at each: it ends all the same, and says it stopped)."""
        end = self.scrollType.removeprefix("scrollTo").lower()
        moved: bool | None = None
        went = 0            # how far the content went, as far as the device can tell
        scrolls = getattr(ctx.device, "scrolls_to_end", SCROLLS_TO_END)
        for n in range(scrolls):
            moved = ctx.device.scroll(x, y, dx, dy)
            went += getattr(ctx.device, "scrolled_px", None) or abs(dx or dy)
            at_end = moved is False or (
                moved and getattr(ctx.device, "scrolled_to_end", None) is True)
            if at_end and _grew(ctx):       # (more came as it reached the end: on)
                continue
            if moved is False:
                return None if n else _unmoved(f"nothing scrolled: nothing at ({x}, {y}) "
                                               f"scrolls any further toward the {end}")
            if at_end:
                return None
        if moved is not True:        # (a device that cannot tell)
            return None
        per = went // scrolls
        return StepNote(f"stopped after {scrolls} scrolls of {per} px without reaching "
                        f"the {end}: the content kept moving (an endless list?)")

    def _start(self, ctx: ActionContext) -> tuple[int, int]:
        """Where the wheel goes for the target: on a device that can tell (the web's
        ``wheel_point``), a point of the part of it that shows, so that what holds it
        scrolls (its middle may be outside its scroll box: a list's tall content, a
        carousel's wide strip); the step fails when no part of it can take the wheel."""
        loc = self.locate
        assert loc is not None
        x, y = loc.gesture_start(ctx.device, "a scroll")     # (fails when it has no rect)
        aim = getattr(ctx.device, "wheel_point", None)
        if aim is None or loc.rect is None:
            return x, y
        x, y, why = aim(loc.node, loc.rect, x, y)
        if why:
            raise StepFailed(f"{loc.describe()} cannot be scrolled: {why}, and a "
                             "scroll there would not reach it")
        return x, y


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

def _web_drag_ends(device: Any, start: Locate,
                   end: Locate) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where a drag on a page begins and ends: both ends go through a tap's check
    (`Locate.reachable`), so an element under a fixed header fails the step naming the header
    (the drag took the header before, and passed). The page scrolled under the start's check
    (its cover): the end, found in the same read, is taken to have moved with it; the end's
    check scrolling the page again leaves the start where it was only if it still reaches it."""
    begins = start.reachable(device, "a drag")
    ex, ey = end.point()
    moved = (begins[0] - start.point()[0], begins[1] - start.point()[1])
    check = getattr(device, "tap_point", None)
    if check is None or end.node is None:
        return begins, (ex + moved[0], ey + moved[1])
    nx, ny, cover = check(end.node, ex + moved[0], ey + moved[1])
    if cover:
        raise StepFailed(f"{end.describe()} is covered by {cover}: a drag ending there would "
                         "hit that")
    shift = (nx - ex - moved[0], ny - ey - moved[1])
    if shift != (0, 0) and start.node is not None:     # (the end's check scrolled the page)
        bx, by, cover = check(start.node, begins[0] + shift[0], begins[1] + shift[1])
        if cover:
            raise StepFailed(f"{start.describe()} and {end.describe()} do not fit on the "
                             f"page together: bringing {end.describe()} out from under its "
                             f"cover put {start.describe()} under {cover}")
        begins = (bx, by)
    return begins, (nx, ny)


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
        ctx.idle()          # and go to disk: a farm killed during the wait keeps them
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


COMMON: list[type[Action]] = [Tap, DoubleClick, RightClick, Hover, LongPress, DragAndDrop, Input,
                              ClearInput, KeyboardPress, Scroll, Swipe, Sleep]
PLATFORMS = ("web", "android", "ios")     # the platforms with actions of their own
# Grammar-neutral names some parsers emit (AutoGLM "Back", UI-TARS press_home).
ALIASES = {"web": {"Back": "GoBack"},
           "android": {"Back": "AndroidBackButton", "Home": "AndroidHomeButton"},
           "ios": {"Home": "IOSHomeButton"}}


def platform_actions(platform: str) -> list[type[Action]]:
    """The actions only ``platform`` has (none for a device plugin's platform); a phone's are
    imported on a phone's first use (`farm.agent.phone_actions`)."""
    if platform in ("android", "ios"):
        from farm.agent.phone_actions import PHONE
        return PHONE[platform]
    return [Navigate, Reload, GoBack] if platform == "web" else []


def registry(platform: str) -> dict[str, type[Action]]:
    """Every action usable on ``platform``, by name (aliases included)."""
    reg = {a.name: a for a in COMMON + platform_actions(platform)}
    for alias, real in ALIASES.get(platform, {}).items():
        reg[alias] = reg[real]
    return reg


def describe_actions(platform: str) -> str:
    """The action list for the planning prompt, generated from the schemas."""
    lines = []
    for cls in COMMON + platform_actions(platform):
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
