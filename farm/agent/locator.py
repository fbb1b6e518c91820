"""The locator chain: cheapest tier first, stop at the first hit, record which tier hit.

Tiers built so far are zero-token: an XPath given in the step, then a unique match of the
prompt against visible text / accessible name / label / placeholder / resource id in the UI
tree. Model tiers (plan bbox, AI locate, deepLocate) plug in after them.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Callable, Protocol

from farm.devices.base import Device, Rect, UINode, UITree
from farm.errors import LocateError, NeedsModel


@dataclass(frozen=True)
class LocateHit:
    rect: Rect
    tier: str
    description: str = ""


@dataclass
class LocateContext:
    """What a tier may look at. The tree is fetched once, on first use, and shared."""

    device: Device
    xpath: str | None = None
    _tree: UITree | None = None
    _fetched: bool = False
    near: list[str] = field(default_factory=list)   # candidates seen by tiers that missed
    # plan_rect, deep_locate, trust_plan (model tiers); resolve (on-device tiers)
    hints: dict = field(default_factory=dict)

    def tree(self) -> UITree | None:
        if not self._fetched:
            self._tree = self.device.hierarchy()
            self._fetched = True
        return self._tree


class LocatorTier(Protocol):
    name: str

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        """A hit, None for a miss; raise LocateError when the answer is known to be wrong
        (e.g. ambiguous), so cheaper tiers never guess."""


class XPathTier:
    name = "xpath"

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        if not ctx.xpath:
            return None
        rects = ctx.device.query_xpath(ctx.xpath)
        if len(rects) == 1:
            return LocateHit(rects[0], self.name, ctx.xpath)
        if len(rects) > 1:
            raise LocateError(f"XPath {ctx.xpath} matches {len(rects)} elements; "
                              "it must match exactly one")
        ctx.near.append(f"XPath {ctx.xpath} matched nothing")
        return None


_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _WS.sub(" ", text).strip().rstrip(":*").strip().casefold()


def _fields(node: UINode) -> list[str]:
    return [f for f in (node.text, node.name, node.label, node.placeholder, node.resource_id) if f]


def describe(node: UINode) -> str:
    shown = node.text or node.name or node.label or node.placeholder or node.resource_id
    return f'"{shown[:60]}" ({node.role})'


class TextMatchTier:
    """Unique exact match (case- and whitespace-insensitive) on the UI tree's strings."""

    name = "text"

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        tree = ctx.tree()
        if tree is None or not prompt.strip():
            return None
        want = normalise(prompt)
        by_id = {n.id: n for n in tree.nodes}
        matches = [n for n in tree.nodes if n.visible
                   and any(normalise(f) == want for f in _fields(n))]
        targets = _reduce(matches, by_id)
        if len(targets) == 1:
            return LocateHit(targets[0].rect, self.name, describe(targets[0]))
        if len(targets) > 1:
            raise LocateError(
                f'"{prompt}" is ambiguous: {len(targets)} elements match',
                [describe(t) + f" at {t.rect.as_list()}" for t in targets[:8]])
        ctx.near.extend(_near_candidates(want, tree))
        offscreen = [n for n in tree.nodes if not n.visible
                     and any(normalise(f) == want for f in _fields(n))]
        if offscreen:
            ctx.near.insert(0, describe(offscreen[0]) + " is off-screen (scroll first)")
        return None


def _reduce(matches: list[UINode], by_id: dict[int, UINode]) -> list[UINode]:
    """Collapse matches that mean the same control: text inside a button → the button;
    a <label> and the input it labels → the input."""
    targets: dict[int, UINode] = {}
    for node in matches:
        target = node
        if not (node.clickable or node.editable):
            cur, hops = node.parent, 0
            while cur is not None and hops < 3:
                anc = by_id.get(cur)
                if anc is None:
                    break
                if anc.clickable or anc.editable:
                    target = anc
                    break
                cur, hops = anc.parent, hops + 1
        targets[target.id] = target
    found = list(targets.values())
    if len(found) > 1:
        non_label = [t for t in found if t.role != "label"]
        if non_label:
            found = non_label
    if len(found) > 1:   # nested matches (<a><button>): keep the innermost
        above: set[int] = set()
        for t in found:
            cur = t.parent
            while cur is not None and cur in by_id:
                above.add(cur)
                cur = by_id[cur].parent
        found = [t for t in found if t.id not in above] or found
    return found


def _near_candidates(want: str, tree: UITree, limit: int = 8) -> list[str]:
    scored = []
    for node in tree.nodes:
        if not node.visible:
            continue
        for f in _fields(node):
            have = normalise(f)
            if not have or len(have) > 200:
                continue
            ratio = difflib.SequenceMatcher(None, want, have).ratio()
            if want in have or have in want and len(have) >= 3 or ratio >= 0.6:
                scored.append((ratio, describe(node)))
                break
    scored.sort(key=lambda s: -s[0])
    seen: list[str] = []
    for _, d in scored:
        if d not in seen:
            seen.append(d)
    return seen[:limit]


class LocatorChain:
    """Runs tiers in order. With no model tier configured, a miss is either a test failure
    (similar elements exist: the app changed) or a skip (nothing similar: only a model could
    find what the prompt describes)."""

    def __init__(self, tiers: list[LocatorTier], has_model_tier: bool = False,
                 on_attempt: Callable[[str, bool], None] | None = None,
                 on_hit: Callable[[str, LocateHit, LocateContext], None] | None = None) -> None:
        self.tiers = tiers
        self.has_model_tier = has_model_tier
        self.on_attempt = on_attempt
        self.on_hit = on_hit        # after any tier hits (the locate cache stores the hit)

    def locate(self, prompt: str, device: Device, xpath: str | None = None,
               **hints: object) -> LocateHit:
        ctx = LocateContext(device=device, xpath=xpath, hints=hints)
        for i, tier in enumerate(self.tiers):
            try:
                hit = tier.locate(prompt, ctx)
            except LocateError as exc:
                # With a model tier still to come, an ambiguous text match is no verdict:
                # the model can tell the candidates apart.
                if not self.has_model_tier or i == len(self.tiers) - 1:
                    raise
                ctx.near.extend([str(exc), *exc.candidates])
                hit = None
            if self.on_attempt:
                self.on_attempt(tier.name, hit is not None)
            if hit is not None:
                if self.on_hit:
                    self.on_hit(prompt, hit, ctx)
                return hit
        what = f'"{prompt}"' if prompt else f"XPath {xpath}"
        near = [n for n in ctx.near if not n.startswith("XPath")]
        if near or (xpath and not prompt) or self.has_model_tier:
            raise LocateError(f"no element matches {what}", ctx.near)
        raise NeedsModel(f"no zero-token match for {what} on screen")


def default_chain(on_attempt: Callable[[str, bool], None] | None = None) -> LocatorChain:
    return LocatorChain([XPathTier(), TextMatchTier()], on_attempt=on_attempt)
