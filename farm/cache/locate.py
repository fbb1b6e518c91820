"""The locate cache as a tier of the locator chain (after the step's own XPath, before the
UI-tree text match), and what is stored after any tier hits.

An entry holds the XPath generated for the node that was hit (ids and text anchors before
positions), the rect it had, the screen size and what the element was: its role and the
strings it showed (text / accessible name / label / placeholder, never a secret value).
Before it is trusted, the XPath must select exactly one element of the live tree, on screen,
and that element must still be the one the prompt means (`still_meant`): an id moved to
another button is no hit. Otherwise the entry is stale: the tier misses at once (a device
read already waits for a navigation under way), a later tier re-locates, and the new hit
replaces the entry (in a writing mode); a hit that is not stored (one of alike elements with
nothing to tell it apart) removes it, so the next run does not check it again.

An entry replays only what the tier that stored it would still decide. One the text or OCR
tier stored (zero-token matches of the target's words), or one that records no tier at all
(edited by hand: judged the stricter way), is trusted only while the text tier takes its
element for the target (`_means`); a model's find (`MODEL_TIERS`) keeps the description check.
Such an entry whose element never showed the target's words (an OCR near miss: the label
"Username" for "User name") is dropped, not just passed over: no run may pass on it, nor a
miss be told "an earlier run found it here".
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from farm.agent.images import images_key
from farm.agent.roles import (is_button, is_checkbox, is_field, is_link, is_menu_item, is_radio,
                              is_switch, is_tab, role_phrase)
from farm.agent.locator import (FOUND_BEFORE, WORD_TIERS, LocateContext, LocateHit, names,
                                normalise, shown_strings)
from farm.cache.case import CaseCache
from farm.cache.xpaths import candidates, node_for_rect, on_screen, pick, same_place
from farm.devices.base import Rect, UINode, UITree
from farm.errors import FarmError, LocateError, StepFailed

log = logging.getLogger("farm.cache")

TIER = "cache"
_KEY = "cache_key"          # LocateContext.hints: this locate's entry key, once allocated
_ENTRY = "cache_entry"      # ... and the entry stored under it, once looked up
_DROPPED = "cache_dropped"  # ... set once that entry was dropped as never the target
_STALE = "cache_stale"      # ... set once that entry was found stale (and said so)
_BEFORE = "cache_before"    # ... what the model had spent in the case before this locate
# tiers whose find is a model's judgement of the prompt (a description may name no text)
MODEL_TIERS = ("plan-bbox", "ai", "deep-locate")
# those that ask the model a question of their own (the planner's box came with its plan)
ASKED_TIERS = ("ai", "deep-locate")
MAX_SHOWN, MAX_SHOWN_CHARS = 8, 200     # what an entry keeps of the strings its element showed
MAX_AROUND_LEVELS = 3       # how far up `around` looks for the row that holds an element


class RoleChanged(LocateError):
    """A replayed plan's target, found again by a later tier, is of another role than the
    element its locate entry recorded (`LocateCacheTier._check_role`)."""


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
        """Only a lookup is an attempt (farm_locate_attempts_total); one that found an entry
        the text tier made left it to that tier: no attempt either (every replayed step
        of a fully cached run counted a cache miss)."""
        entry = ctx.hints.get(_ENTRY)
        if isinstance(entry, dict) and entry.get("tier") == "text":
            return False
        return bool(prompt) and self.cache.active and self.cache.reading

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        ctx.hints.setdefault(_BEFORE, self.cache.spent_so_far())   # (what a model tier adds)
        if not prompt or not self.cache.usable() or not self.cache.reading:
            return None                             # write-only: `remember` takes the key
        if ctx.hints.get(_DROPPED):
            return None             # (looked at again while the chain waits for the page)
        key = self._key(prompt, ctx)
        entry = self.cache.lookup(key)
        if entry is None:
            self.cache.missed(key)      # unless the text tier finds it (`remember`)
            return None
        ctx.hints[_ENTRY] = entry
        if entry.get("tier") in WORD_TIERS:     # its words found it: without them now, the
            ctx.hints[FOUND_BEFORE] = _was(entry)   # screen changed (a model's find may not)
        if entry.get("tier") == "text":
            # found by the UI-tree text match: telling whether its XPath still selects the
            # element the prompt means takes that same tree, and then the text tier finds
            # the element itself, as cheaply and knowing the page changed. Kept for export.
            return None
        words = _words(prompt, ctx)
        again = bool(ctx.hints.get(_STALE))     # looked at again while the chain waits
        found = self._validate(entry, prompt, ctx, words, say=not again)
        if found is not None:
            self.cache.count("locate", "hit")
            self.cache.note_used(key)           # dropped if the case fails
            if entry.get("tier") in ASKED_TIERS:    # a model call this hit did not make
                self.cache.saved_locate(found_with(entry.get("found_with")))
            return found
        if again:
            return None                         # (counted and said the first time)
        ctx.hints.setdefault(_STALE, True)
        self.cache.count("locate", "stale")
        if self._never_meant(entry, words, ctx):
            self._drop(key, entry, prompt, ctx)
            return None
        if ctx.hints.get(_STALE) is True:       # (not said already, with what changed)
            log.info("cached XPath for %r is stale (%s): locating again", prompt,
                     ", ".join(_xpaths(entry)) or "none")
        return None

    def _drop(self, key: str, entry: dict[str, Any], prompt: str, ctx: LocateContext) -> None:
        """Drop an entry that was wrong when stored (`never_meant`): the tiers decide as if it
        had never been written, and a miss is not told an earlier run found the target."""
        ctx.hints[_DROPPED] = True
        ctx.hints.pop(FOUND_BEFORE, None)
        self.cache.forget(key)
        done = "dropped" if self.cache.writing else "not used (kept: the cache is read-only)"
        tier = f"the {entry['tier']} tier" if entry.get("tier") else "an unrecorded tier"
        log.warning("locate cache entry for %r %s: %s stored %s for it, and the text tier "
                    "does not take that for %r (none of its text, name, label or placeholder "
                    "matches); locating again", prompt, done, tier, _was(entry), prompt)

    def _never_meant(self, entry: dict[str, Any], words: str, ctx: LocateContext) -> bool:
        """`never_meant`, where the entry can tell: what it kept leaves out a secret's value,
        so a target that holds one is not judged by it."""
        return never_meant(entry, words, _pictured(ctx)) and self.cache.safe(words)

    def _validate(self, entry: dict[str, Any], prompt: str, ctx: LocateContext,
                  words: str, say: bool = True) -> LocateHit | None:
        """The first cached XPath that selects exactly one element, on screen, that is still
        the element the prompt means (``words``: the prompt as the text tier matches it,
        ``${NAME}`` resolved; nothing of it is stored or logged). No waiting: a read on a page
        that is navigating waits for the new document (the device's own PageWait), and a
        target that is not there yet is no more found by the next tiers than by this one."""
        screen = ctx.device.size()
        for xpath in _xpaths(entry):
            try:
                rects = ctx.device.query_xpath(xpath)
            except StepFailed:
                continue
            if len(rects) == 1 and on_screen(rects[0], screen):
                if self._same_element(entry, words, rects[0], ctx, positional(xpath)):
                    # the node the check read (no read of its own): a tap checks what covers
                    # it, or a phone's edge cutting it, and a disabled one fails, as for the
                    # step's XPath (`farm.agent.locator._node_of`)
                    tree = ctx.tree()
                    node = node_for_rect(tree, rects[0]) if tree is not None else None
                    node = node if node is not None and node.rect == rects[0] else None
                    # what the find said (a model's find under another label), said again
                    notes = tuple(n for n in entry.get("notes") or () if isinstance(n, str))
                    return LocateHit(rects[0], self.name, xpath,
                                     node is None or node.enabled,
                                     None if node is None else node.id, notes=notes)
                if say and not self._never_meant(entry, words, ctx):  # (said as dropped)
                    self._say_changed(entry, xpath, prompt, rects[0], ctx)
        return None

    def _say_changed(self, entry: dict[str, Any], xpath: str, prompt: str, rect: Rect,
                     ctx: LocateContext) -> None:
        """farm.log: the entry's XPath selects an element that is not the one it was made
        for, and what changed (a warning when that is plain: it shows text it did not show,
        or has another size: an id the app moved to another button)."""
        tree = ctx.tree()
        node = node_for_rect(tree, rect) if tree is not None else None
        how = changed(entry, node, tree, ctx.device.size(), self.cache.safe) \
            if node is not None and tree is not None else None
        if how is None:
            log.info("cached XPath %s for %r selects an element that is no longer what the "
                     "prompt means", xpath, prompt)
            return
        ctx.hints[_STALE] = "said"
        log.warning("locate cache entry for %r is stale: its XPath %s now selects %s, where "
                    "the %s stored %s; locating again", prompt, xpath, how[1],
                    f"{entry['tier']} tier" if entry.get("tier") else "entry", how[0])

    def _same_element(self, entry: dict[str, Any], prompt: str, rect: Rect,
                      ctx: LocateContext, by_place: bool = False) -> bool:
        """Whether the element at ``rect`` is still the one the entry was made for; one an
        XPath of positions selected (``by_place``) must also sit among what it sat among."""
        tree = ctx.tree()
        if tree is None:
            return True          # nothing to compare with (a screen with no UI tree)
        node = node_for_rect(tree, rect)
        if node is None or not same_place(node.rect, rect):
            return not checkable(entry, _pictured(ctx)) and not by_place
        if not still_meant(entry, prompt, node, tree, _pictured(ctx), self.cache.safe):
            return False
        if icon(entry, _pictured(ctx)) and resized(entry, node.rect, ctx.device.size(),
                                                   _cut(tree)):
            return False        # 32×32 then, 120×21 now: another element
        # one of alike elements (every row's "Add to cart", each with an id by its row's
        # place: add-0 is the Green Mug's after a reorder) is told apart by its row alone
        twins = has_twins(node, tree)
        if twins and not entry.get("around"):
            return False        # nothing kept (or nothing there) to tell which row it was
        return not (by_place or twins or isinstance(entry.get("around"), list)) or \
            same_surroundings(entry, node, tree)

    def remember(self, prompt: str, hit: LocateHit, ctx: LocateContext) -> None:
        """After any tier hit: store the hit node's XPath (not for the step's own XPath, nor
        for an entry that was just used) with what the node was. An entry found stale that
        this hit does not replace is forgotten: kept, every run would check it again, find
        it stale again and pay for the tier after it (`farm cache ls` listing it all along)."""
        if hit.tier == "text":      # left to that tier: no cache miss (`CaseCache.not_missed`)
            self.cache.not_missed(ctx.hints.get(_KEY))
        if not prompt or hit.tier == TIER or not self.cache.usable():
            return
        if self.cache.replaying:
            self._check_role(prompt, hit, ctx)
        if not self._write(prompt, hit, ctx) and ctx.hints.get(_STALE) and \
                not ctx.hints.get(_DROPPED) and self.cache.writing:
            self.cache.forget(self._key(prompt, ctx))
            ctx.hints[_DROPPED] = True
            log.info("stale locate cache entry for %r removed: the %s tier found the target "
                     "and nothing replaces the entry (the next run does not check it again)",
                     prompt, hit.tier)

    def _check_role(self, prompt: str, hit: LocateHit, ctx: LocateContext) -> None:
        """A replayed plan's target found by a later tier (its entry's XPath selected nothing,
        or the text tier decides an entry it wrote) must be an element of the role the entry
        recorded, or of its kind (`same_kind`: a restyled button is still one): a stale
        `Tap "Log in"` whose button now says "Sign in" must not tap the paragraph "Log in
        to continue shopping." (`RoleChanged`: the replay did not fit)."""
        entry = ctx.hints.get(_ENTRY)
        was = entry.get("element") if isinstance(entry, dict) else None
        role = was.get("role") if isinstance(was, dict) else None
        tree = ctx.tree() if isinstance(role, str) and role else None
        node = node_for_rect(tree, hit.rect) if tree is not None else None
        if node is None or not node.role or tree is None or same_kind(role, node, tree):
            return
        now = _was({"element": {"role": node.role,
                                "shown": _shown(node, tree, self.cache.safe)}})
        raise RoleChanged(f"the {hit.tier} tier found {now}, where the locate cache recorded "
                          f"{_was(entry)}: another kind of element, not replayed")

    def _write(self, prompt: str, hit: LocateHit, ctx: LocateContext) -> bool:
        """Store ``hit`` as the entry for ``prompt``; whether it was stored (or the entry
        already says it: the text tier's unchanged find)."""
        if hit.tier == "xpath":
            return False
        key = self._key(prompt, ctx)
        if not self.cache.writing:
            return False
        tree = ctx.tree()
        node = node_for_rect(tree, hit.rect) if tree is not None else None
        if tree is None or node is None or not same_place(node.rect, hit.rect):
            return False    # e.g. an OCR hit on a canvas: no element is what was found
        if hit.tier == "text" and self._unchanged(
                ctx.hints.get(_ENTRY) or self.cache.lookup(key), node, hit.rect, tree):
            return True     # the text tier found what the entry says: nothing to write
        xpath = pick(candidates(tree, node, self.cache.package), ctx.device.query_xpath,
                     node.rect, safe=self.cache.safe)
        if xpath is None:
            log.debug("no unique XPath for %r; not cached", prompt)
            return False
        entry = {"xpaths": [xpath], "rect": hit.rect.as_list(),
                 "screen": list(ctx.device.size()), "tier": hit.tier,
                 "element": self._element(node, tree)}
        cost = self.cache.spent_since(ctx.hints.get(_BEFORE)) \
            if hit.tier in ASKED_TIERS else None
        if cost:                # what a hit on it saves (`farm cache ls`, a run's last line)
            entry["found_with"] = cost
        if hit.notes and hit.tier in ASKED_TIERS:   # (a rename the model saw: said each run)
            entry["notes"] = [n for n in hit.notes if self.cache.safe(n)]
        twins = has_twins(node, tree)
        if positional(xpath) or twins:     # its place tells it from the others (an XPath
            # of positions, ids by row): keep what was around it
            entry["around"] = [s for s in around(node, tree, self.cache.safe)
                               if self.cache.safe(s)][:MAX_SHOWN]
            if twins and not entry["around"]:
                log.info("%r is one of alike elements with nothing around it to tell it "
                         "from the others: not cached (a replay could tap another)", prompt)
                return False
        return self.cache.save(key, "locate", prompt, entry)

    def _unchanged(self, entry: dict[str, Any] | None, node: UINode, found: Rect,
                   tree: UITree) -> bool:
        """Whether a text-tier ``entry`` still says what the text tier just found at
        ``found``: the same element, in the same place, and its XPath one that this element's
        attributes give (an id that moved to another element gives another): no device call,
        no write."""
        if entry is None or entry.get("tier") != "text":
            return False
        rect, xpaths = entry.get("rect"), _xpaths(entry)
        return (bool(xpaths) and isinstance(rect, list) and len(rect) == 4
                and all(isinstance(v, int) for v in rect)
                and same_place(Rect(x=rect[0], y=rect[1], width=rect[2], height=rect[3]),
                               found)
                and entry.get("element") == self._element(node, tree)
                and xpaths[0] in candidates(tree, node, self.cache.package))

    def _element(self, node: UINode, tree: UITree) -> dict[str, Any]:
        """What the hit element was, for `still_meant` (strings holding a secret left out)."""
        shown = [s for s in _shown(node, tree, self.cache.safe) if self.cache.safe(s)]
        return {"role": node.role, "shown": shown[:MAX_SHOWN],
                "size": [node.rect.width, node.rect.height]}


def found_with(value: Any) -> dict[str, Any]:
    """What a model-tier entry's ``found_with`` says finding it cost (calls, tokens, cost_usd:
    None when unknown), or one model call of unknown tokens (None) when it is not farm's
    figure (an entry from before farm kept it, or edited by hand): its hit saved the call."""
    if isinstance(value, dict):
        calls, tokens, cost = value.get("calls"), value.get("tokens"), value.get("cost_usd")
        if all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
               for n in (calls, tokens)):
            known = isinstance(cost, (int, float)) and not isinstance(cost, bool)
            return {"calls": calls, "tokens": tokens, "cost_usd": cost if known else None}
    return {"calls": 1, "tokens": None, "cost_usd": None}


def inside_plans(entries: list[tuple[str, dict[str, Any]]]) -> set[str]:
    """The keys of the model-found locate entries among ``entries`` whose saving is already
    inside a plan's (`farm cache ls`): a target a cached plan of the same case (platform,
    app version) taps or types into, whose plan says what solving it cost. Replaying that
    plan finds the target from the locate entry; without the plan the model plans the step
    anew, boxes and all: the plan's calls are what the run saves, the find's not on top."""
    from farm.cache.keys import split_key
    targets: dict[tuple, set[str]] = {}
    for key, entry in entries:
        part = split_key(key)
        if part.get("kind") == "plan" and isinstance(entry.get("solved_with"), dict):
            prompts = targets.setdefault(_scope(part), set())
            for action in entry.get("actions") or []:
                locate = (action.get("params") or {}).get("locate") \
                    if isinstance(action, dict) else None
                if isinstance(locate, dict) and isinstance(locate.get("prompt"), str):
                    prompts.add(locate["prompt"].strip())
    return {key for key, entry in entries
            if split_key(key).get("kind") == "locate" and entry.get("tier") in ASKED_TIERS
            and str(entry.get("prompt", "")).strip() in targets.get(_scope(split_key(key)), ())}


def _scope(part: dict[str, Any]) -> tuple:
    """A key's case, platform and app version: the entries one case's run reads."""
    return part.get("case"), part.get("platform"), part.get("version")


def _xpaths(entry: dict[str, Any]) -> list[str]:
    """An entry's XPaths; those that are no XPath left out (an entry edited by hand in a
    shared store: ``xpaths: [5]`` ended the case in an internal AttributeError, one string
    was tried a character at a time)."""
    xpaths = entry.get("xpaths")
    return [x for x in xpaths if isinstance(x, str) and x] if isinstance(xpaths, list) else []


def _pictured(ctx: LocateContext) -> bool:
    """Whether the locate's prompt has reference images (the word tiers skip it)."""
    return bool(ctx.hints.get("images"))


def _words(prompt: str, ctx: LocateContext) -> str:
    """``prompt`` as the text tier matches it: ``${NAME}`` resolved as the on-device tiers
    resolve it (`farm.agent.api.OnDeviceTier`), as written when it cannot be."""
    resolve = ctx.hints.get("resolve")
    if not callable(resolve):
        return prompt
    try:
        return str(resolve(prompt))
    except FarmError:
        return prompt


# What a control is for, by its role (`farm.agent.roles`): what a restyle keeps. A button
# and a link are pressed alike (a `<button>` made an `<a class="btn">`, an Android Button a
# MaterialButton or an ImageButton, a tab, a menu item); a field is typed into; a checkbox,
# radio or switch is set.
_KINDS: tuple[tuple[str, tuple[Callable[[UINode, UITree], bool], ...]], ...] = (
    ("choice", (is_checkbox, is_radio, is_switch)),
    ("field", (is_field,)),
    ("press", (is_button, is_link, is_tab, is_menu_item)),
)


def _kind_of(node: UINode, tree: UITree) -> str | None:
    """A control's `_KINDS` name; None: not a control by its role (text, an image, a box)."""
    for kind, tests in _KINDS:
        if any(test(node, tree) for test in tests):
            return kind
    return None


def same_kind(role: str, node: UINode, tree: UITree) -> bool:
    """Whether ``node`` may be the element a locate entry recorded as of ``role``: the same
    role, or a control of the same kind (`_KINDS`; one pressed may now be any element a tap
    works on: a clickable `<div>`, an Android TextView). One that was not a control by its
    role may now be any element. A control now plain text (the paragraph "Log in to
    continue shopping." where the button "Log in" was) is not it, nor one of another kind
    (a field where a button was)."""
    if node.role == role:
        return True
    was = UINode(id=-1, role=role, rect=node.rect)
    before = _kind_of(was, UITree(source=tree.source, nodes=[was]))
    if before is None:
        return True
    now = _kind_of(node, tree)
    return now == before or (now is None and before == "press" and node.clickable)


def _was(entry: dict[str, Any]) -> str:
    """What a cached element was, in words: 'a button "Sign in"'."""
    was = entry.get("element") if isinstance(entry.get("element"), dict) else {}
    role = str(was.get("role") or "an element").rsplit(".", 1)[-1]
    shown = [str(s) for s in was.get("shown") or []][:1]
    return (f"a {role}" if role != "an element" else role) + "".join(f' "{s}"' for s in shown)


def _kept(text: str) -> bool:
    """Every string may be kept (comparisons with what an entry kept)."""
    return True


def _shown(node: UINode, tree: UITree, safe: Callable[[str], bool] = _kept) -> list[str]:
    """The strings ``node`` shows, as compared (`normalise`: case-folded, cut short); only
    those ``safe`` takes as shown: a secret is told apart before it is case-folded or cut."""
    return list(dict.fromkeys(normalise(s)[:MAX_SHOWN_CHARS]
                              for s in shown_strings(node, tree) if normalise(s) and safe(s)))


def positional(xpath: str) -> bool:
    """An XPath of element positions from the root (`farm.cache.xpaths` makes one only when
    no id or text selects the element alone: a list whose rows look alike): it selects
    whatever element is at that place now."""
    return xpath.startswith("/") and not xpath.startswith("//")


def around(node: UINode, tree: UITree, safe: Callable[[str], bool] = _kept) -> list[str]:
    """What the element sits among: the strings shown in the nearest element holding it
    that shows any besides the element's own (a list row's "Blue Mug" and "$12.50" for its
    "Add to cart" button); [] when none within `MAX_AROUND_LEVELS`. Only strings ``safe``
    takes (none holding a secret, for an entry)."""
    by_id = {n.id: n for n in tree.nodes}
    own = set(_shown(node, tree))
    up = by_id.get(node.parent) if node.parent is not None else None
    for _ in range(MAX_AROUND_LEVELS):
        if up is None:
            break
        inside = [s for n in tree.nodes if n.id != node.id and _holds(up, n, by_id)
                  for s in _fields(n, safe) if s not in own]
        if inside:
            return list(dict.fromkeys(inside))
        up = by_id.get(up.parent) if up.parent is not None else None
    return []


def _holds(up: UINode, node: UINode, by_id: dict[int, UINode]) -> bool:
    cur = by_id.get(node.parent) if node.parent is not None else None
    while cur is not None:
        if cur.id == up.id:
            return True
        cur = by_id.get(cur.parent) if cur.parent is not None else None
    return False


def _fields(node: UINode, safe: Callable[[str], bool] = _kept) -> list[str]:
    return [normalise(s)[:MAX_SHOWN_CHARS] for s in (node.text, node.name, node.label,
                                                      node.placeholder)
            if normalise(s) and safe(s)]


def has_twins(node: UINode, tree: UITree) -> bool:
    """Whether another element on screen has ``node``'s role and shows what it shows (every
    row's "Add to cart"): which of them is meant rests on the row it sits in, whatever
    XPath selects it (an id numbered by row is a position too)."""
    mine, own = _fields(node), None
    for other in tree.nodes:
        if other.id == node.id or not other.visible or other.role != node.role:
            continue
        if _fields(other) != mine:      # (its own strings first: cheap)
            continue
        own = set(_shown(node, tree)) if own is None else own
        if set(_shown(other, tree)) == own:
            return True
    return False


def same_surroundings(entry: dict[str, Any], node: UINode, tree: UITree) -> bool:
    """Whether ``node`` still sits among most of what the entry's element sat among (the
    same row of a list, not the row that moved to its place). An entry that did not keep
    it cannot tell: not trusted."""
    was = entry.get("around")
    if not isinstance(was, list):
        return False
    kept = {s for s in was if isinstance(s, str)}
    return not kept or 2 * len(kept & set(around(node, tree))) > len(kept)


def checkable(entry: dict[str, Any], pictured: bool = False) -> bool:
    """Whether the entry says enough about its element to tell a different one."""
    was = entry.get("element")
    if not isinstance(was, dict):
        return by_words(entry, pictured)
    return bool(was.get("role") or was.get("shown"))


def by_words(entry: dict[str, Any], pictured: bool = False) -> bool:
    """Whether ``entry`` is judged by the text tier's rule: the text or OCR tier stored it
    (words found it), or it records no tier a model is (an entry edited by hand: the
    stricter check; every entry farm writes records its tier). Never for a ``pictured``
    prompt (one with reference images): its words alone do not say what it means."""
    return not pictured and entry.get("tier") not in MODEL_TIERS


def never_meant(entry: dict[str, Any], prompt: str, pictured: bool = False) -> bool:
    """Whether a `by_words` entry was wrong when stored: its element showed strings and none
    is what the text tier takes for ``prompt`` ("Username" for "User name", an OCR near
    miss). An entry the text tier stored is that tier's to decide (it matches ids too)."""
    was = entry.get("element")
    if entry.get("tier") == "text" or not by_words(entry, pictured) or \
            not isinstance(was, dict):
        return False
    shown = [s for s in was.get("shown") or [] if isinstance(s, str)]
    return bool(shown) and not names(prompt, shown)


def still_meant(entry: dict[str, Any], prompt: str, node: UINode, tree: UITree,
                pictured: bool = False, safe: Callable[[str], bool] = _kept) -> bool:
    """Whether ``node``, selected by the entry's XPath, is still the element ``prompt`` means.

    An entry words found (`by_words`: the text or OCR tier) is what the text tier would
    still take for ``prompt``: its matcher must take the element (a "Cart (1)" link still is
    "Cart"; the label "Username" is not "User name"), unless the tree holds no text for the
    element now or then (a canvas, an image: only the pixels OCR read say what it shows).
    A model's find, when the prompt is text the element showed, is checked the same way; a
    description ("the blue cart icon") cannot be checked against text: the element must be
    of the same role and still show one of the strings it showed; one that showed none (an
    icon) must show none now, besides what is typed in a field (an id the app moved from the
    grey gear icon to a "Delete everything" button is not the gear; strings ``safe`` does not
    take, a secret's, were not kept and do not count). An entry stored before farm kept its
    element: checked like a literal prompt unless a model found it, then trusted as before."""
    was = entry.get("element")
    words = by_words(entry, pictured)
    if not isinstance(was, dict):
        return not words or _means(prompt, node, tree)
    if was.get("role") and was["role"] != node.role:
        return False
    shown = [s for s in was.get("shown") or [] if isinstance(s, str)]
    if names(prompt, shown) or (words and (shown or shown_strings(node, tree))):
        return _means(prompt, node, tree)   # text, not "the blue cart icon"
    if not shown:
        return not shows_now(node, tree, safe)
    return bool(set(shown) & set(_shown(node, tree)))


def shows_now(node: UINode, tree: UITree, safe: Callable[[str], bool] = _kept) -> list[str]:
    """The strings ``node`` shows (`_shown`) but what is typed in it: a field's content (a
    phone's EditText holds it as its text) says nothing about which field it is."""
    typed = normalise(node.text)[:MAX_SHOWN_CHARS] if node.editable and node.text else None
    return [s for s in _shown(node, tree, safe) if s != typed]


RESIZED = 1.5   # an icon this much wider or taller (or narrower, shorter) is another element


def icon(entry: dict[str, Any], pictured: bool = False) -> bool:
    """Whether ``entry`` is a model's find of an element that showed no text (an icon): only
    its role and size say what it was (`resized`; one that showed text is told by it)."""
    was = entry.get("element")
    return not by_words(entry, pictured) and isinstance(was, dict) and not was.get("shown")


def resized(entry: dict[str, Any], now: Rect, screen: tuple[int, int],
            cut: bool = False) -> bool:
    """Whether the element at ``now`` is too unlike in size to be the one ``entry`` was made
    for: its width or height more than `RESIZED` times what it was, or less than its inverse
    (an icon 32×32 then, a button 120×21 now), which a screen of another width does not
    explain by scaling alike (a phone of another density). Where rects are ``cut`` to what
    shows (a uiautomator tree: a row half scrolled out of its list is shorter), only a larger
    element is another one. The size the element had (``element.size``), else the entry's
    rect (an entry from before farm kept its size: the box the tier hit). An entry that
    recorded neither cannot tell: not resized."""
    was = _size(entry)
    if was is None or now.width <= 0 or now.height <= 0:
        return False
    then = entry.get("screen")
    scales = {1.0}
    if isinstance(then, list) and len(then) == 2 and isinstance(then[0], int) and then[0] > 0:
        scales.add(screen[0] / then[0])

    def unlike(scale: float) -> bool:
        return any(n > w * scale * RESIZED or (not cut and n * RESIZED < w * scale)
                   for n, w in ((now.width, was[0]), (now.height, was[1])))
    return all(unlike(scale) for scale in scales)


def _cut(tree: UITree) -> bool:
    """Whether ``tree``'s rects are cut to what shows (`resized`)."""
    return tree.source == "uiautomator"


def _size(entry: dict[str, Any]) -> tuple[int, int] | None:
    """The [width, height] an entry's element had (see `resized`), None when not recorded."""
    was = entry.get("element")
    size = was.get("size") if isinstance(was, dict) else None
    if size is None and isinstance(entry.get("rect"), list) and len(entry["rect"]) == 4:
        size = entry["rect"][2:]
    if not (isinstance(size, list) and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
        return None
    return size[0], size[1]


def changed(entry: dict[str, Any], node: UINode, tree: UITree, screen: tuple[int, int],
            safe: Callable[[str], bool] = _kept) -> tuple[str, str] | None:
    """What a model's find was and what ``node`` is now, in words, when it plainly is another
    element: it shows text where it showed none, or `resized`; None otherwise."""
    was = entry.get("element") if isinstance(entry.get("element"), dict) else {}
    if not icon(entry):
        return None
    now = shows_now(node, tree, safe)
    if not now and not resized(entry, node.rect, screen, _cut(tree)):
        return None
    size = _size(entry)
    role = str(was.get("role") or "element").rsplit(".", 1)[-1]
    then = f"a {role} showing no text" + (f" ({size[0]}×{size[1]})" if size else "")
    shown = _was({"element": {"role": node.role, "shown": now}})
    return then, f"{shown} ({node.rect.width}×{node.rect.height})"


def _means(prompt: str, node: UINode, tree: UITree) -> bool:
    """The text tier's verdict on one element: its shown strings match, or its id exactly;
    or, for text plus a role noun ("Sign in button": `farm.agent.roles`), its role fits and
    the text matches so."""
    if names(prompt, shown_strings(node, tree)) or (
            bool(node.resource_id) and normalise(node.resource_id) == normalise(prompt)):
        return True
    phrase = role_phrase(prompt)
    return phrase is not None and phrase.fits(node, tree) and \
        names(phrase.text, shown_strings(node, tree))


def element_seen(tree: UITree, rect: Rect,
                 safe: Callable[[str], bool] = _kept) -> dict[str, Any] | None:
    """What a box-only target hit at ``rect`` (the plan cache keeps it with the action): its
    role, the strings it showed and those around it (only strings ``safe`` takes: none holding
    a secret) and its size (`resized`: an icon's is all that says what it was). None when no
    element holds the box."""
    node = node_for_rect(tree, rect)
    if node is None:
        return None
    return {"role": node.role, "shown": _shown(node, tree, safe)[:MAX_SHOWN],
            "around": around(node, tree, safe)[:MAX_SHOWN],
            "size": [node.rect.width, node.rect.height]}


def seen_again(was: dict[str, Any], tree: UITree, rect: Rect) -> str | None:
    """None when the element at ``rect`` (found by its place: a box, an XPath of positions) is
    still the one ``was`` (`element_seen`) describes: the same role, showing one of the
    strings it showed, among most of what it sat among (a row of a list, not the row that
    moved to its place); else what is there now, in words."""
    node = node_for_rect(tree, rect)
    if node is None:
        return "no element"
    shown = [s for s in was.get("shown") or [] if isinstance(s, str)]
    now = element_seen(tree, rect) or {}
    if ((was.get("role") and was["role"] != node.role)
            or (shown and not set(shown) & set(now.get("shown") or []))
            or not same_surroundings({"around": was.get("around") or []}, node, tree)):
        return seen_text(now)
    return None


def seen_text(seen: dict[str, Any]) -> str:
    """An `element_seen` in words: 'a button "add to cart" among 'red mug''."""
    near = [str(s) for s in seen.get("around") or []][:2]
    return _was({"element": seen}) + (f" among {', '.join(map(repr, near))}" if near else "")


def seen_from(value: Any) -> dict[str, Any] | None:
    """An `element_seen` as a plan entry keeps it, or None when it is not one (an entry edited
    by hand in a shared store): the replay then has nothing to check, as before it was kept.
    A size that is not two positive whole numbers is left out (not checked, as before)."""
    if not isinstance(value, dict):
        return None
    role, shown, near = value.get("role"), value.get("shown") or [], value.get("around") or []
    if not (role is None or isinstance(role, str)) or not (
            isinstance(shown, list) and isinstance(near, list)):
        return None
    size = _size({"element": value})
    return {"role": role, "shown": [s for s in shown if isinstance(s, str)],
            "around": [s for s in near if isinstance(s, str)],
            **({"size": list(size)} if size else {})}
