"""Locator tiers that use a model: plan bbox, AI locate and deepLocate.

Plan bbox comes first in the chain (the planner's own box, trusted only when the planner is
also the locate model and deepLocate is off). AI locate and deepLocate come after the
zero-token tiers; deepLocate asks for the section first, crops it with a margin, upscales ×2
and asks again, then maps the answer back to the screen.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from typing import Any, Callable

from farm.agent.images import (crop_upscale, data_url, inline_image, padded, png_size,
                               scale_rect)
from farm.agent.locator import LocateContext, LocateHit, describe, normalise, shown_strings
from farm.agent.prompts import locate_prompt, reference_parts, section_prompt
from farm.cache.xpaths import node_for_rect, same_place
from farm.devices.base import Rect, UINode, UITree
from farm.errors import ModelUnavailable
from farm.llm.client import cut_note
from farm.llm.families import Family, OffImage, to_rect
from farm.llm.plan import ReplyParseError, echo_back, loads_lenient, numbers
from farm.text import CJK

Ask = Callable[[str, list[dict[str, Any]]], str]    # (purpose, messages) -> reply text


def image_to_screen(rect: Rect, image: tuple[int, int], screen: tuple[int, int]) -> Rect:
    """A rect in screenshot pixels → device units (CSS px, points), clamped to the screen."""
    sx, sy = screen[0] / image[0], screen[1] / image[1]
    r = scale_rect(rect, sx, sy)
    x = min(max(r.x, 0), screen[0] - 1)
    y = min(max(r.y, 0), screen[1] - 1)
    return Rect(x=x, y=y, width=max(min(r.width, screen[0] - x), 1),
                height=max(min(r.height, screen[1] - y), 1))


class PlanBboxTier:
    name = "plan-bbox"

    def applies(self, prompt: str, ctx: LocateContext) -> bool:
        return ctx.hints.get("plan_rect") is not None and not ctx.hints.get("deep_locate")

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        rect = ctx.hints.get("plan_rect")
        if rect is None or ctx.hints.get("deep_locate"):
            return None
        # No prompt means the grammar has boxes only (AutoGLM, UI-TARS): the box is the answer.
        if ctx.hints.get("trust_plan", True) or not prompt:
            return LocateHit(rect, self.name, f"planner box for {prompt or 'target'}")
        return None


# A box in the marks models write it in out of habit when asked for JSON: doubao's
# <bbox>x1 y1 x2 y2</bbox>, UI-TARS's click(start_box='(x,y)'), <|box_start|>…, <point>x y</point>,
# AutoGLM's do(action="Tap", element=[x,y])
_MARKED = re.compile(r"<bbox>([^<]*)</bbox>|<point>([^<]*)</point>|<\|box_start\|>([^<]*)"
                     r"<\|box_end\|>|\b(?:start_box|point)\s*=\s*['\"]([^'\"]*)['\"]"
                     r"|\belement\s*=\s*(\[[^\[\]]*\])")


def _marked_box(text: str) -> list[float] | None:
    """The one box or point written in such marks, else None (none, several, or not 2 or 4
    numbers: nothing is guessed)."""
    found = [next(g for g in m.groups() if g is not None) for m in _MARKED.finditer(text)]
    if len(found) != 1:
        return None
    nums = numbers(found[0])
    return nums if len(nums) in (2, 4) else None


def _bbox_reply(text: str) -> list[float] | str:
    """``{"bbox": [...]}`` (or one box in a model's own marks, `_marked_box`) → numbers; for
    an explicit "not found" (``{"bbox": [], "error": "..."}``) the model's reason (maybe "");
    ReplyParseError for anything else, a box with a value that is no number included."""
    try:
        data = loads_lenient(text)
    except ReplyParseError:
        marked = _marked_box(text)
        if marked is None:
            raise
        return marked
    if isinstance(data, list):
        data = {"bbox": data}
    if not isinstance(data, dict) or "bbox" not in data:
        raise ReplyParseError(f"expected {{\"bbox\": [...]}}, got {text.strip()[:160]!r}")
    bbox = data["bbox"]
    if isinstance(bbox, str):          # "400,300,600,400": doubao's numbers in a string
        bbox = numbers(bbox)
    if not bbox:
        return str(data.get("error") or "")[:300]
    if not isinstance(bbox, list) or len(bbox) not in (2, 4):
        raise ReplyParseError(f"bbox must be 2 or 4 numbers, got {json.dumps(bbox)[:160]}")
    nums = [numbers(v) if isinstance(v, str) else [v] for v in bbox]     # "400" → 400
    if not all(len(n) == 1 and isinstance(n[0], (int, float)) and not isinstance(n[0], bool)
               and math.isfinite(n[0]) for n in nums):
        raise ReplyParseError(f"bbox must be 2 or 4 numbers, got {json.dumps(bbox)[:160]}")
    return [n[0] for n in nums]


def _missed(found: list[float] | str) -> str | None:
    """The model's "not found" as the end of a miss ("" or ": why"), None for a box."""
    if isinstance(found, str):
        return f": {found}" if found else ""
    return None


class AILocateTier:
    """Ask the locate model for the element's box on the current screenshot. The ``deep``
    one (tier "deep-locate") answers only steps asking for deepLocate, the plain one ("ai")
    every other step, and deepLocate steps too when the deep tier is switched off."""

    def __init__(self, ask: Ask, family: Family, screenshot: Callable[[], bytes],
                 deep: bool = False, model: str = "?") -> None:
        self.ask, self.family, self.screenshot = ask, family, screenshot
        self.model = model      # the locate model's name, for its errors
        self.deep = deep
        self.name = "deep-locate" if deep else "ai"

    def _query(self, prompt_text: str, png: bytes,
               images: list[dict[str, str]] | None = None) -> list[float] | str:
        """One box request: the prompt, the screenshot, then any reference images. The box,
        or the model's reason it found none (`_bbox_reply`)."""
        messages = [{"role": "user", "content": [
            {"type": "text", "text": prompt_text},
            {"type": "image_url", "image_url": {"url": data_url(padded(png, self.family.pad))}},
            *reference_parts([inline_image(i) for i in images or []])]}]
        reply = self.ask("locate", messages)
        try:
            return _bbox_reply(reply)
        except ReplyParseError as exc:   # one retry with the error appended
            messages += [{"role": "assistant", "content": echo_back(reply)},
                         {"role": "user", "content": f"{exc}. Answer only the JSON."}]
        try:
            return _bbox_reply(self.ask("locate", messages))
        except ReplyParseError as exc:   # the model's fault, not the app's
            raise ModelUnavailable(f"model {self.model}: its locate reply could not be "
                                   f"parsed twice: {exc}{cut_note(self.ask)}") from None

    def applies(self, prompt: str, ctx: LocateContext) -> bool:
        """Whether this tier asks the model for ``prompt`` (only a question asked is an
        attempt, farm_locate_attempts_total): there is a prompt, and the step asks for
        deepLocate when this is the deep tier, or not when the deep tier answers it."""
        deep = bool(ctx.hints.get("deep_locate"))
        if not prompt.strip():
            return False
        if self.deep:
            return deep
        return not (deep and "deep-locate" in ctx.tiers)   # the deep tier after this answers

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        if not self.applies(prompt, ctx):
            return None
        deep = bool(ctx.hints.get("deep_locate"))
        png = self.screenshot()
        image = png_size(png)
        screen = ctx.device.size()
        if deep and self.deep:
            return self._deep(prompt, ctx, png, image, screen)
        bbox = self._query(locate_prompt(prompt, self.family), png, ctx.hints.get("images"))
        why = _missed(bbox)
        if why is not None:
            ctx.near.append(f"the model did not find {prompt!r}{why}")
            return None
        assert not isinstance(bbox, str)
        try:
            rect = to_rect(bbox, self.family, image)
        except OffImage as exc:      # no location: a miss that says why, never a corner tap
            ctx.near.append(str(exc))
            return None
        return _checked(LocateHit(image_to_screen(rect, image, screen), self.name, prompt), ctx)

    def _deep(self, prompt: str, ctx: LocateContext, png: bytes, image: tuple[int, int],
              screen: tuple[int, int]) -> LocateHit | None:
        hint = ctx.hints.get("plan_rect")   # with deepLocate the plan box is a search area
        if hint is not None:
            sx, sy = image[0] / screen[0], image[1] / screen[1]
            section = scale_rect(hint, sx, sy)
        else:
            box = self._query(section_prompt(prompt, self.family), png,
                              ctx.hints.get("images"))
            why = _missed(box)
            if why is not None:
                ctx.near.append(f"the model found no section holding {prompt!r}{why}")
                return None
            assert not isinstance(box, str)
            try:
                section = to_rect(box, self.family, image)
            except OffImage as exc:
                ctx.near.append(f"{exc} (the section holding {prompt!r})")
                return None
        crop, area = crop_upscale(png, section)
        cropped = png_size(crop)
        bbox = self._query(locate_prompt(prompt, self.family, search_area=True), crop,
                           ctx.hints.get("images"))
        why = _missed(bbox)
        if why is not None:
            ctx.near.append(f"the model did not find {prompt!r} in the zoomed section{why}")
            return None
        assert not isinstance(bbox, str)
        try:
            inner = to_rect(bbox, self.family, cropped)
        except OffImage as exc:
            ctx.near.append(f"the model's box {exc.box} is outside the zoomed section")
            return None
        f = area.width / cropped[0]
        in_image = scale_rect(inner, f, area.height / cropped[1], area.x, area.y)
        return _checked(LocateHit(image_to_screen(in_image, image, screen), "deep-locate",
                                  prompt), ctx)


def _checked(hit: LocateHit, ctx: LocateContext) -> LocateHit:
    """``hit`` (a model's box) with the node of the page's tree in its place (each one's
    centre inside the other, as the locate cache takes a hit's element), on a device that
    checks what a tap would hit (the web's ``tap_point``; phones as before): a tap there is
    then checked as the text tier's find is, and fails the step naming the cover (a modal's
    backdrop) where the model saw the button behind it. No such node (a canvas, a picture
    of text): unchecked, as before."""
    device = ctx.device
    if getattr(device, "tap_point", None) is None or \
            getattr(device, "platform", "") in ("android", "ios"):
        return hit
    tree = ctx.tree()
    node = node_for_rect(tree, hit.rect) if tree is not None else None
    if node is None or not same_place(node.rect, hit.rect):
        return hit
    renamed = _renamed(hit.description, node, tree) if tree is not None else None
    return replace(hit, node=node.id, notes=(*hit.notes, renamed) if renamed else hit.notes)


# Words that describe an element rather than spell its label ("the blue buy button"): a
# target holding one is no literal label, and what the model found for it is not checked
_DESCRIBING = frozenset(
    "the a an this that these its button buttons icon link field input box tab menu checkbox "
    "radio image picture photo logo text label row column list item dropdown select toggle "
    "switch card banner dialog modal popup header footer arrow symbol blue red green yellow "
    "orange purple pink grey gray black white dark light colored coloured top bottom left "
    "right upper lower middle center centre first second third last next previous near "
    "below above beside under inside behind with big small large round square".split())
# Words two labels may share without meaning the same thing ("Log in", "Sign in")
_FUNCTION = frozenset("in on to of and or for at by the a an & with my your".split())
LABEL_WORDS, LABEL_CHARS = 4, 32        # what a literal label is at most


def _words(text: str) -> set[str]:
    """Its words; in Chinese, Japanese or Korean, which write no spaces, each character."""
    words = set()
    for word in re.findall(r"\w+", normalise(text)):
        cjk = CJK.findall(word)
        words.update(cjk or (word,))
        rest = CJK.sub(" ", word).split() if cjk else ()
        words.update(rest)
    return words


def _renamed(prompt: str, node: UINode, tree: UITree) -> str | None:
    """A note when a target that reads as a literal label (``Buy now``: at most LABEL_WORDS
    words, no describing word) was found by the model on a control whose shown text shares
    no word with it (``Purchase``): the step passes, and says the label may have changed
    (a rename the text tier would have failed on). Fields (their labels and placeholders
    vary in wording) and elements showing no text are not checked."""
    words = _words(prompt)
    if not words or len(prompt) > LABEL_CHARS or len(prompt.split()) > LABEL_WORDS or \
            words & _DESCRIBING or node.editable:
        return None
    shown = shown_strings(node, tree)
    content = words - _FUNCTION
    if not shown or not content or any(_words(s) & content for s in shown):
        return None
    return (f"the model found {describe(node)} for \"{prompt}\", which shares no word with "
            "it: if the app renamed it, change the step")
