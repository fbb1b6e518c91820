"""The locate cache as a tier of the locator chain (after the step's own XPath, before the
UI-tree text match), and what is stored after any tier hits.

An entry holds the XPath generated for the node that was hit (ids and text anchors before
positions), the rect it had and the screen size. Before it is trusted, the XPath must select
exactly one element of the live tree, on screen; otherwise the entry is stale: the tier
misses, a later tier re-locates, and the new hit replaces the entry (in a writing mode).
"""

from __future__ import annotations

import logging
import time

from farm.agent.images import images_key
from farm.agent.locator import LocateContext, LocateHit
from farm.cache.case import CaseCache
from farm.cache.xpaths import candidates, node_for_rect, on_screen, pick, same_place
from farm.errors import StepFailed

log = logging.getLogger("farm.cache")

TIER = "cache"
SETTLE_S = 2.0              # how long a cached XPath that matches nothing is looked for again
SETTLE_POLL_S = 0.15
_KEY = "cache_key"          # LocateContext.hints: this locate's entry key, once allocated


class LocateCacheTier:
    """A `farm.agent.locator.LocatorTier`; `remember` is the chain's ``on_hit``."""

    name = TIER

    def __init__(self, cache: CaseCache) -> None:
        self.cache = cache

    def _key(self, prompt: str, ctx: LocateContext) -> str:
        if _KEY not in ctx.hints:
            ctx.hints[_KEY] = self.cache.slot("locate",
                                              prompt + images_key(ctx.hints.get("images")))
        return ctx.hints[_KEY]

    def applies(self, prompt: str, ctx: LocateContext) -> bool:
        """Only a lookup is an attempt (farm_locate_attempts_total)."""
        return bool(prompt) and self.cache.active and self.cache.reading

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        if not prompt or not self.cache.reading:   # write-only: `remember` takes the key
            return None
        entry = self.cache.lookup(self._key(prompt, ctx))
        if entry is None:
            self.cache.count("locate", "miss")
            return None
        found = self._validate(entry.get("xpaths") or [], ctx)
        if found is not None:
            self.cache.count("locate", "hit")
            return found
        self.cache.count("locate", "stale")
        log.info("cached XPath for %r is stale (%s): locating again", prompt,
                 ", ".join(entry.get("xpaths") or []) or "none")
        return None

    def _validate(self, xpaths: list[str], ctx: LocateContext) -> LocateHit | None:
        """The first cached XPath that selects exactly one element, on screen. A replay runs
        actions back to back, so the screen may still be changing (a tap that navigates):
        when nothing matches yet, look again for up to SETTLE_S before calling it stale."""
        screen = ctx.device.size()
        give_up = time.monotonic() + SETTLE_S
        while True:
            seen_nothing = True
            for xpath in xpaths:
                try:
                    rects = ctx.device.query_xpath(xpath)
                except StepFailed:
                    continue
                seen_nothing = seen_nothing and not rects
                if len(rects) == 1 and on_screen(rects[0], screen):
                    return LocateHit(rects[0], self.name, xpath)
            if not seen_nothing or time.monotonic() >= give_up:
                return None
            time.sleep(SETTLE_POLL_S)

    def remember(self, prompt: str, hit: LocateHit, ctx: LocateContext) -> None:
        """After any tier hit: store the hit node's XPath (not for the step's own XPath, nor
        for an entry that was just used)."""
        if not prompt or hit.tier in (TIER, "xpath") or not self.cache.active:
            return
        key = self._key(prompt, ctx)
        if not self.cache.writing:
            return
        tree = ctx.tree()
        node = node_for_rect(tree, hit.rect) if tree is not None else None
        if node is None or not same_place(node.rect, hit.rect):
            return      # e.g. an OCR hit on a canvas: no element is what was found
        xpath = pick(candidates(tree, node, self.cache.package), ctx.device.query_xpath,
                     node.rect, safe=self.cache.safe)
        if xpath is None:
            log.debug("no unique XPath for %r; not cached", prompt)
            return
        self.cache.save(key, "locate", prompt, {
            "xpaths": [xpath], "rect": hit.rect.as_list(), "screen": list(ctx.device.size()),
            "tier": hit.tier})
