"""The locator chain: cheapest tier first, stop at the first hit, record which tier hit.

    plan-bbox → xpath → cache → text → ocr → ai → deep-locate

The chain is a plain ordered list of tier objects; any tier is switched off by name
(``FARM_LOCATE_OFF=ocr,ai``). Zero-token tiers here: an XPath given in the step, then the
prompt matched against the UI tree's strings (`TextMatchTier`). The OCR tier (farm.agent.ocr)
reads the screenshot's pixels; model tiers (farm.agent.model_tiers) come first and last.

Text match semantics, on every platform (UI tree and OCR alike): an exact match (whitespace
normalised, case-insensitive) first; else a *unique* element whose text / accessible name /
label / placeholder / content-desc contains the target as whole words ("Clear completed"
finds "Clear completed (3)"); only then an element whose id (web ``id`` / ``data-testid``, a
phone's resource-id) is the target, and the step's note says so with what it shows
(``matched by its id "greet"; it reads "Forgot password?"``): a renamed target, or another
element holding that id, is seen in the report. More than one candidate is never a guess:
it is a miss that names them. A prompt that matches nothing as it is but reads as text plus a
role noun ("the Sign in button", "Username field": `farm.agent.roles`) is matched by its text
the same way, among elements of that role only, and the step's note says so
(``found by text "Sign in" (button)``). A unique match that is off-screen is scrolled into view
(`Device.scroll_into_view`, re-reading the tree after each step, at most ``max_scrolls``)
before it counts as not found.
No match at all on a tree that lists only what shows (Android's dump: a device with
``swipe_to_find``) is looked for by swiping through what scrolls, down then back up, reading
the tree after each swipe, at most ``max_scrolls`` swipes (`TextMatchTier._search`).
"""

from __future__ import annotations

import logging
import re
import threading
import time
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Collection, Iterable, Protocol

from farm import metrics
from farm.devices import phone_edges
from farm.devices.base import Device, Rect, UINode, UITree
from farm.agent import near as near_miss
from farm.agent.roles import QUOTED, RolePhrase, role_phrase
from farm.errors import LocateError, ModelRefused, ModelUnavailable, NeedsModel
from farm.text import CJK, CJK_CHARS, QUOTES, cjk_unspaced, cut

log = logging.getLogger(__name__)

# every tier's name, in chain order: what FARM_LOCATE_OFF may name
TIER_NAMES = ("plan-bbox", "xpath", "cache", "text", "ocr", "ai", "deep-locate")
# Tiers that match the prompt's words on the screen. A prompt with reference images
# ({prompt, images}) skips them: its meaning depends on what the images show, which words
# cannot check. The step's own XPath, the cache (keyed with the images' digests), the
# planner's box and the model tiers (shown the images) still answer it.
WORD_TIERS = ("text", "ocr")
# Tiers that read the live page, cheap enough to try again while waiting for a target that
# comes later (`LocatorChain._await_target`): a list a request fills, a button a timer adds.
WAITING_TIERS = ("xpath", "cache", "text")
# How long a miss of those tiers waits for the page to show the target: with no model to ask,
# as long as Playwright's expect waits; with one, only while the page keeps changing or waits
# for its requests (a page quiet for QUIET_S, none of its requests in flight, is the model's
# turn: it is not asked about a screen still coming).
LOCATE_WAIT_S = 5.0
QUIET_S = 0.3
# How much of the model's own answer to a locate it missed a miss's first line quotes
MODEL_SAID_CUT = 160


@dataclass(frozen=True)
class LocateHit:
    rect: Rect
    tier: str
    description: str = ""
    enabled: bool = True        # false: the element found is a disabled control (tree tiers)
    node: int | None = None     # the tree node found (text tier): a tap checks what covers it
    notes: tuple[str, ...] = ()  # what the step should say though it found its target


@dataclass
class LocateContext:
    """What a tier may look at. The tree is fetched once, on first use, and shared;
    `refresh` reads it again (after a scroll)."""

    device: Device
    xpath: str | None = None
    _tree: UITree | None = None
    _fetched: bool = False
    near: list[str] = field(default_factory=list)   # candidates seen by tiers that missed
    # plan_rect, deep_locate, trust_plan, images (model tiers); resolve (on-device tiers)
    hints: dict = field(default_factory=dict)
    tiers: tuple[str, ...] = ()                     # names of the chain's tiers that are on

    def tree(self) -> UITree | None:
        if not self._fetched:
            self._tree = self.device.hierarchy()
            self._fetched = True
        return self._tree

    def refresh(self) -> UITree | None:
        self._fetched = False
        return self.tree()


class LocatorTier(Protocol):
    name: str

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        """A hit, None for a miss; raise LocateError when the answer is known to be wrong
        (e.g. ambiguous), so cheaper tiers never guess."""


XPATH_UNUSABLE = "xpath_unusable"  # LocateContext.hints: why the step's XPath could not be used
XPATH_MISSED = "xpath_missed"      # LocateContext.hints: the step's XPath matched nothing
XPATH_HIDDEN = "xpath_hidden"      # LocateContext.hints: ... but elements that are not shown
SWIPED = "swiped"     # LocateContext.hints: swipes the text tier made looking for its target
# LocateContext.hints: elements a target only describes ("the price of the Desk Lamp"
# beside "Desk Lamp": `farm.agent.near`): no near miss, a hint of a skip for a model
DESCRIBED = "described"
OFF_SCREEN = " is off-screen and did not come into view"   # a near note: the text tier's find


class XPathTier:
    name = "xpath"

    def applies(self, prompt: str, ctx: LocateContext) -> bool:
        return bool(ctx.xpath)

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        if not ctx.xpath:
            return None
        rects = ctx.device.query_xpath(ctx.xpath)
        if not rects and getattr(ctx.device, "last_observation", None) == "empty-tree":
            why = getattr(ctx.device, "tree_problem", "") or "it came back empty"
            ctx.hints[XPATH_UNUSABLE] = (f"the UI tree could not be read ({why}), so XPath "
                                         f"{ctx.xpath} could not be used")
            ctx.near.append(ctx.hints[XPATH_UNUSABLE])
            return None
        if len(rects) == 1:
            found = _node_of(rects[0], ctx)
            return LocateHit(rects[0], self.name, ctx.xpath, found is None or found.enabled,
                             None if found is None else found.id)
        if len(rects) > 1:
            raise LocateError(f"XPath {ctx.xpath} matches {len(rects)} elements; "
                              "it must match exactly one")
        said = xpath_missed(ctx.device)
        ctx.hints[XPATH_HIDDEN] = said != "matched nothing"
        ctx.near.append(f"XPath {ctx.xpath} {said}")
        ctx.hints[XPATH_MISSED] = f"its xpath {ctx.xpath} {said}"
        return None


def xpath_missed(device: Any) -> str:
    """What the device's last XPath query that found no element shown says: "matched
    nothing", or, where it matched elements that are not shown (a web device's
    ``xpath_hidden``: a submenu's link while its menu is closed), "matched 1 element, not
    shown: display:none on its div.sub; hover or open its menu first?"."""
    hidden = getattr(device, "xpath_hidden", None)
    if not isinstance(hidden, list) or not hidden:
        return "matched nothing"
    n = len(hidden)
    whys = ", ".join(list(dict.fromkeys(map(str, hidden)))[:3])
    return (f"matched {n} element{'s' if n > 1 else ''}, not shown: {whys}; hover or open "
            "its menu first?")


def _unmatched(prompt: str, what: str, ctx: LocateContext) -> LocateError | NeedsModel:
    """What a miss of the zero-token tiers with no model tier raises: a failure when they
    found the target on the page but not shown (`_not_shown`), else a skip for a model."""
    unshown = _not_shown(prompt, ctx)
    if unshown:
        return LocateError(f"no element on screen matches {what}: {unshown}",
                           [n for n in ctx.near if not n.startswith("XPath")])
    hint = ctx.hints.get(DESCRIBED)
    return NeedsModel(f"no zero-token match for {what} on screen" +
                      (f"; it describes an element (a model's to find): the closest on "
                       f"screen is {hint[0]}" if hint else ""))


def _not_shown(prompt: str, ctx: LocateContext) -> str | None:
    """Why the target is on the page but not shown, when the zero-token tiers found it so (a
    web device's ``xpath_hidden``): the step's XPath matched only elements that are not shown,
    or, without one, elements whose whole text (or label, placeholder, value) is ``prompt``
    are all hidden ("its text matched 1 element, not shown: display:none on its div.sub;
    hover or open its menu first?"). A model cannot tap an element that is not shown either:
    the step fails saying so rather than being skipped as one only a model could find. None
    otherwise (a true miss)."""
    device = ctx.device
    if getattr(device, "xpath_hidden", None) is None:
        return None
    if ctx.xpath and "xpath" in ctx.tiers:
        return ctx.hints.get(XPATH_MISSED) if ctx.hints.get(XPATH_HIDDEN) else None
    want = " ".join(prompt.split())
    if not want or len(want) > 200:
        return None
    said = _quoted(want)
    named = " or ".join(f"normalize-space(@{a})={said}"
                        for a in ("aria-label", "placeholder", "value", "title", "alt"))
    xpath = (f"//body//*[not(self::script or self::style or self::template or "
             f"ancestor-or-self::noscript) and "
             f"((normalize-space(.)={said} and not(*[normalize-space(.)={said}])) or {named})]")
    try:
        if device.query_xpath(xpath):
            return None             # (one is shown: the tiers missed it for another reason)
    except Exception as exc:        # best effort: the skip stands
        log.debug("no look for a hidden %r: %s", prompt, exc)
        return None
    said = xpath_missed(device)
    return None if said == "matched nothing" else f"its text {said}"


def _quoted(text: str) -> str:
    """``text`` as an XPath string literal (concat() when it holds both kinds of quote)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{p}'" for p in text.split("'")) + ")"


def _node_of(rect: Rect, ctx: LocateContext) -> UINode | None:
    """The tree node the XPath's element is (the outermost one with its rect), on a device
    that checks what a tap would hit (the web's ``tap_point``): the tap then goes where it
    reaches the element (scrolled in from a scroll container that clips it), or the step
    fails when something covers it or it is disabled, as for the text tier's find; without
    it the click went to the cover (an overlay, a sticky header) and the step passed."""
    if getattr(ctx.device, "tap_point", None) is None:
        return None
    tree = ctx.tree()
    want = (rect.x, rect.y, rect.width, rect.height)
    return next((n for n in (tree.nodes if tree is not None else ())
                 if (n.rect.x, n.rect.y, n.rect.width, n.rect.height) == want), None)


def normalise(text: str) -> str:
    """``text`` as matched: Unicode NFKC (as OCR text is: `farm.agent.ocr.squash`),
    typographic quotes as ASCII ones (`farm.text.QUOTES`), whitespace collapsed and none
    beside a Chinese, Japanese or Korean character (`farm.text.cjk_unspaced`: ``共 3 件商品``
    is ``共3件商品``, as OCR text is compared), a trailing ":" or "*" dropped, case-folded."""
    if not text.isascii():       # (NFKC leaves ASCII as it is)
        text = unicodedata.normalize("NFKC", text).translate(QUOTES)
        text = cjk_unspaced(" ".join(text.split()))
    return " ".join(text.split()).rstrip(":*").strip().casefold()   # (split: what \s is)


def _fields(node: UINode) -> list[str]:
    return [f for f in (node.text, node.name, node.label, node.placeholder, node.resource_id) if f]


def _word_fields(node: UINode) -> list[str]:
    """What a containment match looks in: shown strings, never ids."""
    return [f for f in (node.text, node.name, node.label, node.placeholder) if f]


def contains_words(have: str, want: str) -> bool:
    """``want`` occurs in ``have`` as whole words (both normalised)."""
    if not want or len(have) <= len(want):
        return False
    return whole_words(want).search(have) is not None


def whole_words(want: str) -> re.Pattern[str]:
    """What finds ``want`` (normalised) as whole words. In Chinese, Japanese or Korean text
    each character is a word: `normalise` drops the spaces beside one, so ``登录`` is found
    in ``登录按钮`` (shown as ``登录 按钮``) and in ``立即登录`` alike."""
    head = "" if CJK.match(want) else rf"(?:(?<!\w)|(?<=[{CJK_CHARS}]))"
    tail = "" if CJK.match(want[-1:]) else rf"(?:(?!\w)|(?=[{CJK_CHARS}]))"
    return re.compile(head + re.escape(want) + tail)


def text_matches(want: str, texts: Iterable[str], how: str) -> bool:
    """Does one of ``texts`` match the normalised target ``want``: "exact" or "words"?"""
    if how == "exact":
        return any(normalise(t) == want for t in texts)
    return any(contains_words(normalise(t), want) for t in texts)


def names(prompt: str, texts: Iterable[str]) -> bool:
    """Whether ``prompt`` matches one of ``texts`` as the text tier matches: exactly or as
    whole words (the locate cache checks a cached element with this)."""
    want = normalise(prompt)
    texts = list(texts)
    return bool(want) and (text_matches(want, texts, "exact")
                           or text_matches(want, texts, "words"))


def shown_strings(node: UINode, tree: UITree) -> list[str]:
    """The strings the text tier matches a prompt against when it takes ``node``: its text /
    accessible name / label / placeholder and those of the text inside it that the tier
    reduces to it (a button's <span>)."""
    by_id = {n.id: n for n in tree.nodes}
    out: list[str] = []
    for n in tree.nodes:
        if n.id == node.id or (n.parent is not None and not (n.clickable or n.editable)
                               and _reduce([n], by_id)[0].id == node.id):
            out.extend(_word_fields(n))
    return list(dict.fromkeys(out))


def describe(node: UINode) -> str:
    shown = node.text or node.name or node.label or node.placeholder or node.resource_id
    return f'"{shown[:60]}" ({node.role})'


def find_target(prompt: str, tree: UITree, editable: bool = False
                ) -> tuple[list[UINode], str, RolePhrase | None]:
    """`find_text` for ``prompt``; when nothing matches it as it is and it reads as text plus
    a role noun ("the Sign in button": `farm.agent.roles`), the text's matches of that role,
    with the phrase (its ``note`` is what the step says). Ids are not matched so: a
    description ("the gear icon") is left to a model rather than taken for an id."""
    targets, how = find_text(prompt, tree, editable)
    phrase = None if targets else role_phrase(prompt)
    if phrase is not None:
        targets, how = find_text(phrase.text, tree, editable,
                                 fits=lambda node: phrase.fits(node, tree), ids=False)
    return targets, how, phrase if targets else None


def find_text(prompt: str, tree: UITree, editable: bool = False,
              fits: Callable[[UINode], bool] | None = None, ids: bool = True
              ) -> tuple[list[UINode], str]:
    """The targets ``prompt`` names in ``tree`` and how they matched ("exact" / "words" /
    "id"): exact on screen, exact off-screen, whole words on screen, whole words off-screen,
    then an id (web: ``id`` / ``data-testid``; a phone's resource-id) equal to it, on screen
    then off; the first kind that has any, so what an element shows always wins over an id.
    More than one target means ambiguous, except that for a step that types (``editable``)
    the one text field among them is taken: a phone shows a field's label as its own text
    node, where the web makes label and field one target (its field may carry the words only
    as its id: those count beside the label's exact match). Given ``fits``, only the targets
    it takes count (`find_target`: the role a role noun names); not ``ids``: what elements
    show only (a role phrase is text and a name: "the gear icon" is not a guess at an id)."""
    want = normalise(prompt)
    if not want:
        return [], ""
    by_id = {n.id: n for n in tree.nodes}
    strings = _normalised(tree)
    words = whole_words(want)
    for how in ("exact", "words", "id") if ids else ("exact", "words"):
        for on_screen in (True, False):
            matches = _matching(strings, want, words, how, on_screen)
            if editable and how == "exact" and matches:
                matches += _matching(strings, want, words, "id", on_screen)
            targets = _reduce(matches, by_id)
            if fits is not None:
                targets = [t for t in targets if fits(t)]
            fields = [t for t in targets if t.editable]
            if editable and len(targets) > 1 and len(fields) == 1:
                return fields, how
            if targets:
                return targets, how
    return [], ""


def _matching(strings: list[tuple[UINode, list[str], str]], want: str, words: re.Pattern[str],
              how: str, on_screen: bool) -> list[UINode]:
    """The nodes, on screen or off, whose strings match ``want`` the way ``how`` says."""
    if how == "exact":
        return [n for n, shown, _ in strings if n.visible == on_screen and want in shown]
    if how == "id":
        return [n for n, _, rid in strings if n.visible == on_screen and rid == want]
    return [n for n, shown, _ in strings if n.visible == on_screen and any(
        len(s) > len(want) and words.search(s) for s in shown)]


def found_notes(how: str, prompt: str, target: UINode, tree: UITree | None,
                phrase: RolePhrase | None) -> tuple[str, ...]:
    """What a step says of the text tier's find: by a role phrase's text (`farm.agent.roles`),
    by an id (`id_note`). A target wholly in quotes ("「加入购物车」", as the README writes
    Chinese targets) says nothing of them: its quotes are how it is written, no slip."""
    if phrase is None or phrase.noun == QUOTED:
        return id_note(how, prompt if phrase is None else phrase.text, target, tree)
    return (phrase.note(), *id_note(how, phrase.text, target, tree))


def id_note(how: str, prompt: str, target: UINode, tree: UITree | None
            ) -> tuple[str, ...]:
    """What a step says when the text tier found its target by the id alone: what the
    element shows does not hold the prompt's words (a renamed button, or another one that
    has that id), so the report and the terminal show it."""
    if how != "id":
        return ()
    shown = shown_strings(target, tree) if tree is not None else _word_fields(target)
    reads = f'it reads "{cut(shown[0], 60)}"' if shown else "it shows no text"
    rid = target.resource_id       # (not when the id was on text inside it: a button's <span>)
    rid = rid if normalise(rid) == normalise(prompt) else prompt
    return (f'matched by its id "{cut(rid, 60)}"; {reads}',)


_last = threading.local()     # per device thread: (tree, its nodes' strings normalised)


def _normalised(tree: UITree) -> list[tuple[UINode, list[str], str]]:
    """Each node of ``tree`` with the strings `find_text` matches, normalised: the shown ones
    (`_word_fields`) and its id. Made once per tree: `find_text` makes up to six passes, and
    a page unchanged since the last read is the same tree (a miss on a page of 5,000
    elements: 36 ms of normalising otherwise)."""
    last = getattr(_last, "strings", None)
    if last is not None and last[0] is tree:
        return last[1]
    out = [(n, [normalise(f) for f in _word_fields(n)], normalise(n.resource_id))
           for n in tree.nodes]
    _last.strings = (tree, out)
    return out


def listed(targets: list[UINode], device: Any) -> list[str]:
    """The targets an ambiguous match found, each with where it is: its rect, and the frame
    of another origin it is in, where a web device tells (``node_frame``: a card number
    field of a payment frame beside the page's own)."""
    frame_of = getattr(device, "node_frame", None)
    out = []
    for t in targets:
        frame = frame_of(t.id) if callable(frame_of) else None
        where = f" in the frame of {frame}" if isinstance(frame, str) and frame else ""
        out.append(f"{describe(t)} at {t.rect.as_list()}{where}")
    return out


def ambiguous(prompt: str, how: str, found: list[str],
              phrase: RolePhrase | None = None, targets: list[UINode] | None = None,
              device: Any = None) -> LocateError:
    """``"Buy now" is ambiguous: 2 elements match``, then how to pick one: an ``xpath:``
    (an example for a web page when the prompt's quoting allows one), or more words. A
    ``phrase`` ("Buy now button") matched its text: the example matches that. Given the
    ``targets`` listed and the ``device``, the example is one the page answers with the
    second of them (`_pick_index`)."""
    verb = "contain it" if how == "words" else "match"
    if phrase is not None and phrase.noun:   # ("2 elements of its role (button) match …")
        verb = f'of its role ({phrase.noun}) {verb.split()[0]} "{phrase.text}"'
    return LocateError(f'"{prompt}" is ambiguous: {len(found)} elements {verb}; '
                       f"{_pick_one(phrase.text if phrase else prompt, how, targets, device)}",
                       found[:8])


ORDINALS = ("first", "second")


def _pick_one(prompt: str, how: str, targets: list[UINode] | None = None,
              device: Any = None) -> str:
    """How to make an ambiguous target name one element. The example XPath selects the
    innermost elements holding the text (not the <body> and <div>s around them, which hold
    it too: ``(//*[contains(normalize-space(), "X")])[2]`` was the page's body); where the
    device answers XPath, the index is the one it finds inside a listed target, else none is
    given; with no device to ask, [2]."""
    quote = next((q for q in '"\'' if q not in prompt), None)
    vague = "pick one with xpath: or say more of it: its section, its neighbour"
    if quote is None or how == "id":
        return vague
    text = f"{quote}{' '.join(prompt.split())}{quote}"
    test = (f"normalize-space()={text}" if how == "exact"
            else f"contains(normalize-space(), {text})")
    xpath = f"//*[{test} and not(*[{test}])]"
    picked = _pick_index(xpath, targets, device) if targets and device is not None else None
    if picked is None and targets and device is not None and _answers(xpath, device):
        return vague                # (the page's matches are not the listed ones: no guess)
    if picked is None:
        return (f"pick one with xpath: (on a web page e.g. ({xpath})[2]) or say more of it: "
                "its section, its neighbour")
    index, which = picked
    return (f"pick one with xpath: (here ({xpath})[{index}] is the {ORDINALS[which]} one "
            "listed) or say more of it: its section, its neighbour")


def _answers(xpath: str, device: Any) -> bool:
    """Whether ``device`` finds elements for ``xpath`` (a web page; a fake or phone: none)."""
    try:
        return bool(device.query_xpath(xpath))
    except Exception:               # (a device that cannot: no example is checked)
        return False


def _pick_index(xpath: str, targets: list[UINode], device: Any) -> tuple[int, int] | None:
    """(n, i): ``(xpath)[n]`` selects, on ``device``, one element inside ``targets[i]`` (the
    second listed, else the first), checked by asking the device for exactly that; None
    when it cannot tell."""
    try:
        rects = device.query_xpath(xpath)
    except Exception as exc:        # best effort: the example is left out
        log.debug("no pick-one example for %s: %s", xpath, exc)
        return None
    for i in (1, 0):
        if i >= len(targets):
            continue
        inside = [n for n, r in enumerate(rects, 1) if _within(r, targets[i].rect)]
        if len(inside) != 1:
            continue
        try:
            again = device.query_xpath(f"({xpath})[{inside[0]}]")
        except Exception:
            return None
        if len(again) == 1 and _within(again[0], targets[i].rect):
            return inside[0], i
    return None


def _within(inner: Rect, outer: Rect) -> bool:
    return (outer.x <= inner.x and outer.y <= inner.y and
            inner.x + inner.width <= outer.x + outer.width and
            inner.y + inner.height <= outer.y + outer.height)


class TextMatchTier:
    """A unique match of the prompt on the UI tree's strings (see the module docstring);
    an off-screen match is scrolled into view first."""

    name = "text"

    def __init__(self, max_scrolls: int = 10) -> None:
        self.max_scrolls = max_scrolls
        # prompt -> the input field it found: (role, resource id, rect). A phone's tree shows an
        # empty field's hint as its text and drops it once the field holds text (uiautomator
        # before Android 16 has no hint attribute), so "Search box" typed into once is not
        # found by those words again; the tier (one per case) remembers what they named.
        self.fields: dict[str, tuple[str, str, Rect]] = {}

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        tree = ctx.tree()
        if tree is None or not prompt.strip():
            return None
        targets, how, phrase = find_target(prompt, tree, ctx.hints.get("editable", False))
        if len(targets) > 1:
            raise ambiguous(prompt, how, listed(targets, ctx.device), phrase, targets,
                            ctx.device)
        if targets and targets[0].visible:
            # (a phone's target cut by the screen's edge is swiped in by the tap's check,
            # `farm.devices.phone_edges.tap_point`, as one any tier found: not here too)
            if targets[0].editable:
                node = targets[0]
                self.fields[normalise(prompt)] = (node.role, node.resource_id, node.rect)
            return LocateHit(targets[0].rect, self.name, describe(targets[0]),
                             targets[0].enabled, targets[0].id,
                             notes=found_notes(how, prompt, targets[0], tree, phrase))
        if targets:
            return self._reveal(prompt, ctx, targets[0])
        filled = self._field(prompt, tree)
        if filled is not None:
            return LocateHit(filled.rect, self.name, describe(filled) +
                             f', the field "{prompt}" named before it was filled', filled.enabled,
                             filled.id)
        found = self._search(prompt, ctx)
        if found is not None:
            return found
        tree = ctx.tree() or tree
        described = ctx.hints.setdefault(DESCRIBED, [])
        near = _near_candidates(normalise(prompt), tree, described=described)
        phrase = role_phrase(prompt)   # ("Add to wishlist button": the "Add to cart" button)
        if phrase is not None:
            near += [d for d in _near_candidates(normalise(phrase.text), tree, phrase=phrase,
                                                 described=described) if d not in near]
        ctx.near.extend(near)
        return None

    def _field(self, prompt: str, tree: UITree) -> UINode | None:
        """The input field ``prompt`` found earlier in this case, when the tree holds exactly
        one field of its role and id (no id: in its place) and it is on screen."""
        known = self.fields.get(normalise(prompt))
        if known is None:
            return None
        role, rid, rect = known
        same = [n for n in tree.nodes if n.editable and n.role == role and
                (n.resource_id == rid if rid else n.rect == rect)]
        return same[0] if len(same) == 1 and same[0].visible else None

    def _search(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        """No node matches, and the tree may not hold every element (a phone's dump lists
        only what shows: `swipe_to_find`, Android's): swipe through what scrolls, toward its
        end first, then back once a swipe moved nothing (the end), reading the tree after each
        swipe and matching again, at most ``max_scrolls`` swipes, until the target is there
        (scrolled into view if it is not quite yet), as UiScrollable.scrollIntoView does. Once
        per locate (a wait for the target reads again, it does not swipe again); how many
        swipes found nothing is ``ctx.hints[SWIPED]``. With a model tier to come, only when
        the screen shows text like the target's ("Note 3" for "Note 38": a list of such rows):
        a prompt that describes its target ("the heart on the second post") is the model's,
        on the screen as the step found it, not swiped away first."""
        swipe = getattr(ctx.device, "swipe_to_find", None)
        if swipe is None or SWIPED in ctx.hints:
            return None
        tree = ctx.tree()
        if any(t in ("ai", "deep-locate") for t in ctx.tiers) and (
                tree is None or not _near_candidates(normalise(prompt), tree)):
            return None
        ctx.hints[SWIPED] = swipes = 0
        forward, turned = True, False
        while swipes < self.max_scrolls:
            before = _signature(ctx.tree())
            if not swipe(forward):
                break                      # nothing on screen scrolls
            swipes += 1
            tree = ctx.refresh()
            if tree is None:
                break
            targets, how, phrase = find_target(prompt, tree, ctx.hints.get("editable", False))
            if len(targets) > 1:
                raise ambiguous(prompt, how, listed(targets, ctx.device), phrase, targets,
                                ctx.device)
            if targets and targets[0].visible:
                found = self._found(prompt, ctx, targets[0], swipes, forward, swipe)
                return found if found is None else replace(
                    found, notes=found_notes(how, prompt, targets[0], tree, phrase))
            if targets:
                return self._reveal(prompt, ctx, targets[0])
            if _signature(tree) == before:     # it did not move: that end is reached
                if turned:
                    break
                forward, turned = False, True
        ctx.hints[SWIPED] = swipes
        return None

    def _found(self, prompt: str, ctx: LocateContext, target: UINode, swipes: int,
               forward: bool, swipe: Callable[[bool], bool]) -> LocateHit | None:
        """The target a search swipe brought on screen. When the edge the list came in from
        cuts it (the dump's bounds are what shows), one more swipe brings it all in; None if
        it is then gone. A strip on the screen's own edge is left to the check every located
        tap and gesture goes through (`phone_edges.tap_point`), which swipes it in once: this
        swipe and that one were two, for nothing at a list's end."""
        tree = ctx.tree()
        size = ctx.device.size()
        if tree is not None and swipes < self.max_scrolls and \
                not phone_edges.edge_cut(target.rect, size) and \
                _cut(target, tree, size[1], forward) and swipe(forward):
            swipes += 1
            tree = ctx.refresh()
            again = find_target(prompt, tree, ctx.hints.get("editable", False))[0] \
                if tree is not None else []
            if len(again) != 1 or not again[0].visible:
                ctx.hints[SWIPED] = swipes
                return None
            target = again[0]
        if target.editable:
            self.fields[normalise(prompt)] = (target.role, target.resource_id, target.rect)
        return LocateHit(target.rect, self.name, describe(target) +
                         f" (scrolled into view: found after {swipes} swipe(s))",
                         target.enabled, target.id)

    def _reveal(self, prompt: str, ctx: LocateContext, target: UINode) -> LocateHit | None:
        """Scroll ``target`` into view: one device step, read the tree, match again."""
        scrolls = 0
        while scrolls < self.max_scrolls:
            before = _signature(ctx.tree())
            if not ctx.device.scroll_into_view(target):
                break                          # no way to tell where it is
            scrolls += 1
            tree = ctx.refresh()
            if tree is None:
                break
            targets, how, phrase = find_target(prompt, tree, ctx.hints.get("editable", False))
            if len(targets) > 1:
                raise ambiguous(prompt, how, listed(targets, ctx.device), phrase, targets,
                                ctx.device)
            if not targets:
                break
            target = targets[0]
            if target.visible:
                return LocateHit(target.rect, self.name,
                                 describe(target) + " (scrolled into view)", target.enabled,
                                 target.id, notes=found_notes(how, prompt, target, tree, phrase))
            if _signature(tree) == before:     # the screen did not move: end of the page
                break
        ctx.near.insert(0, describe(target) + OFF_SCREEN + f" after {scrolls} scroll(s)")
        return None


def _cut(node: UINode, tree: UITree, height: int, forward: bool) -> bool:
    """Whether the edge a vertical list scrolls in from (the bottom going down, else the top)
    may cut ``node``: its edge there is the screen's, or that of an element around it taller
    than it (the list: a dump clips every element's bounds to what shows)."""
    def edge(r: Rect) -> int:
        return r.y + r.height if forward else r.y

    at = edge(node.rect)
    return at == (height if forward else 0) or any(
        edge(a.rect) == at and a.rect.height > node.rect.height for a in tree.ancestors(node))


def _signature(tree: UITree | None) -> list[tuple[int, int, str]]:
    return [] if tree is None else [(n.rect.x, n.rect.y, n.text) for n in tree.nodes]


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


def _near_candidates(want: str, tree: UITree, limit: int = 8,
                     phrase: RolePhrase | None = None,
                     described: list[str] | None = None) -> list[str]:
    """Elements on screen whose strings are like ``want`` (`farm.agent.near.alike`); for a
    role ``phrase``'s text, only elements of its role, by what they show (not ids: "the gear
    icon" is no near miss of an icon button whose id is "gear", it stays a model's). One that
    ``want`` only describes ("the price of the Desk Lamp" beside "Desk Lamp", "the product
    grid" beside the id "product-grid") is no near miss: it goes to ``described``, a hint."""
    scored, hints = [], []
    for node in tree.nodes:
        if not node.visible or (phrase is not None and not phrase.fits(node, tree)):
            continue
        for f in _fields(node) if phrase is None else _word_fields(node):
            have = normalise(f)
            if not have or len(have) > 200 or not near_miss.alike(want, have):
                continue
            hinted = near_miss.describes(want, have)
            (hints if hinted else scored).append((near_miss.ratio(want, have), describe(node)))
            break
    if described is not None:
        described.extend(d for d in _likest(hints, limit) if d not in described)
    return _likest(scored, limit)


def _likest(scored: list[tuple[float, str]], limit: int) -> list[str]:
    scored.sort(key=lambda s: -s[0])
    return list(dict.fromkeys(d for _, d in scored))[:limit]


def _option_of(prompt: str, tree: UITree) -> str | None:
    """When ``prompt`` is an option of a closed <select> (web): the miss says how to choose
    it, since a tap cannot open a native select's list (no element shows the option)."""
    want = normalise(prompt)
    for node in tree.nodes:
        if any(normalise(o) == want for o in node.options):
            name = node.label or node.name or node.resource_id
            target = f'"{name}"' if name else "(its label)"
            return (f'"{prompt}" is an option of the select {target}, not an element a tap '
                    f"reaches (a select's list is the browser's own): aiInput: "
                    f"{name or '<the select>'} with value: {prompt} chooses it")
    return None


FOUND_BEFORE = "found_before"   # LocateContext.hints: what an earlier run found (locate cache)


class LocatorChain:
    """Runs tiers in order, skipping those named in ``off``. With no model tier configured,
    a miss is either a test failure (similar elements exist, or an earlier run found the
    target on this screen, ``FOUND_BEFORE``: the app changed) or a skip (nothing similar and
    never found: only a model could find what the prompt describes)."""

    def __init__(self, tiers: list[LocatorTier], has_model_tier: bool = False,
                 on_attempt: Callable[[str, bool], None] | None = None,
                 on_hit: Callable[[str, LocateHit, LocateContext], None] | None = None,
                 off: Collection[str] = ()) -> None:
        unknown = set(off) - set(TIER_NAMES)
        if unknown:
            raise ValueError(f"unknown locate tier(s) {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(TIER_NAMES)}")
        self.tiers = [t for t in tiers if t.name not in off]
        self.has_model_tier = has_model_tier and any(
            t.name in ("ai", "deep-locate") for t in self.tiers)
        self.on_attempt = on_attempt
        self.on_hit = on_hit        # after any tier hits (the locate cache stores the hit)

    def locate(self, prompt: str, device: Device, xpath: str | None = None,
               **hints: object) -> LocateHit:
        ctx = LocateContext(device=device, xpath=xpath, hints=hints,
                            tiers=tuple(t.name for t in self.tiers))
        pictured = bool(hints.get("images"))   # words alone do not say what it means
        tiers = [t for t in self.tiers if not (pictured and t.name in WORD_TIERS)]
        waiting = [t for t in tiers if t.name in WAITING_TIERS and _tried(t, prompt, ctx)]
        # the wait comes after the last free tier (OCR too: what it reads at once, in a frame
        # of another origin or a canvas, is not waited for first), before any model tier
        free = [t for t in tiers if t.name in (*WAITING_TIERS, "ocr")]
        until = time.monotonic() + LOCATE_WAIT_S
        for i, tier in enumerate([*tiers, None]):
            if tier is None:     # the model did not find it either: it may still be coming
                said = list(ctx.near)           # (what the model said, should it not come)
                hit = self._await_target(prompt, ctx, waiting, until) \
                    if waiting and self.has_model_tier else None
                ctx.near[:] = said if hit is None else ctx.near
            else:
                hit = self._attempt(tier, prompt, ctx, last=i == len(tiers) - 1)
            if hit is None and waiting and tier is free[-1]:
                quiet = QUIET_S if self.has_model_tier else None
                hit = self._await_target(prompt, ctx, waiting, until, quiet)
            elif hit is not None and not hit.enabled and tier in waiting:
                hit = self._await_target(prompt, ctx, waiting, until, disabled=hit)
            if hit is not None:
                if self.on_hit:
                    self.on_hit(prompt, hit, ctx)
                return _deep_noted(_xpath_noted(hit, ctx), ctx)
        what = f'"{prompt}"' if prompt else f"XPath {xpath}"
        swiped = ctx.hints.get(SWIPED)
        if swiped:                                   # the text tier looked through a list
            what += (f" (swiped {swiped} time{'s' if swiped > 1 else ''} through the "
                     "scrolling list and did not find it)")
        tree = ctx._tree if ctx._fetched else None
        if tree is not None and tree.truncated:      # the miss may be past the read's end
            what += (f" (the screen has more than {len(tree.nodes)} elements and the tree farm "
                     "read stopped there: an XPath step or a model reaches the rest)")
        if pictured and not self.has_model_tier:
            raise NeedsModel(f"{what} has reference images: only a model can match it")
        if ctx.hints.get(XPATH_UNUSABLE):
            raise LocateError(f"no element matches {what}: {ctx.hints[XPATH_UNUSABLE]}",
                              ctx.near)
        option = _option_of(prompt, tree) if prompt and tree is not None else None
        if option:
            raise LocateError(option, ctx.near)
        ctx.near.extend(_described(ctx) if self.has_model_tier else ())
        if any(not n.startswith("XPath") for n in ctx.near) or (xpath and not prompt) \
                or self.has_model_tier:
            first, _ = _miss_line(ctx.near)
            raise LocateError(f"no element on screen matches {what}{first}" if
                              first.startswith(": ") else f"no element matches {what}{first}",
                              ctx.near)
        if ctx.hints.get(FOUND_BEFORE):
            raise LocateError(f"no element matches {what}: an earlier run found it here "
                              f"({ctx.hints[FOUND_BEFORE]}, in the locate cache) and nothing "
                              "on screen is like it now", ctx.near)
        raise _unmatched(prompt, what, ctx)

    def _await_target(self, prompt: str, ctx: LocateContext, tiers: list[LocatorTier],
                      until: float, quiet: float | None = None,
                      disabled: LocateHit | None = None) -> LocateHit | None:
        """After ``tiers`` (the live, cheap ones) missed: wait for the page to change and try
        them again, until ``until`` (LOCATE_WAIT_S after the locate began), or, given
        ``quiet`` (a model tier still to come), until the page has been quiet that long (none
        of its requests in flight either: the browser's ``await_change(timeout_s, quiet_s)``;
        phones read their UI tree again until it changes). After they found the target
        ``disabled`` (a button enabled once the form checks its fields): the same wait for it
        to be enabled (a model would find it disabled too); the last disabled hit when it
        stays so. A device without ``await_change`` (a plugin's) does not wait. An error of a
        tier (an ambiguous match) ends the wait: the chain's own pass says it."""
        wait = getattr(ctx.device, "await_change", None)
        tree = ctx._tree if ctx._fetched else None
        if wait is None or (prompt and tree is not None and _option_of(prompt, tree)):
            return disabled         # (a select's option comes no nearer by waiting)
        while (left := until - time.monotonic()) > 0:
            if not wait(left, quiet):
                return disabled
            ctx.refresh()
            ctx.near.clear()
            ctx.hints.pop(DESCRIBED, None)
            for tier in tiers:
                try:
                    hit = tier.locate(prompt, ctx)
                except LocateError:
                    return disabled
                if hit is not None and not hit.enabled:
                    disabled = hit
                    break
                if hit is not None:
                    metrics.locate_attempt(tier.name, "hit")
                    if self.on_attempt:
                        self.on_attempt(tier.name, True)
                    return hit
        return disabled

    def _attempt(self, tier: LocatorTier, prompt: str, ctx: LocateContext,
                 last: bool) -> LocateHit | None:
        """One tier's try: the one place where a tier's hit or miss is decided (and
        reported to ``on_attempt``)."""
        try:
            hit = tier.locate(prompt, ctx)
        except LocateError as exc:
            metrics.locate_attempt(tier.name, "error")
            # With a model tier still to come, an ambiguous text match is no verdict:
            # the model can tell the candidates apart.
            if self.on_attempt:
                self.on_attempt(tier.name, False)
            unusable = ctx.hints.get(XPATH_UNUSABLE)
            if unusable and (not self.has_model_tier or last):
                raise LocateError(f"{unusable}; the {tier.name} tier, tried instead, found: "
                                  f"{exc}", exc.candidates) from None
            if not self.has_model_tier or last:
                raise
            ctx.near.extend([str(exc), *exc.candidates])
            return None
        except (ModelUnavailable, ModelRefused) as exc:     # (the model's tier: down)
            _with_free_finds(exc, f'"{prompt}"' if prompt else f"XPath {ctx.xpath}", ctx)
            raise
        if hit is not None or _tried(tier, prompt, ctx):
            metrics.locate_attempt(tier.name, "miss" if hit is None else "hit")
        if self.on_attempt:
            self.on_attempt(tier.name, hit is not None)
        return hit


def _described(ctx: LocateContext) -> list[str]:
    """The elements the target only described (`DESCRIBED`) not yet in ``ctx.near``: after a
    model tier missed too, the closest on screen, named as a near miss is."""
    return [d for d in ctx.hints.get(DESCRIBED, ()) if d not in ctx.near]


def _miss_line(near: list[str]) -> tuple[str, list[str]]:
    """A miss's evidence (``ctx.near``) as its first line's end and the rest, each said once:
    (": <found, but no scroll showed it>" or "; <what the model answered>; the closest on
    screen is <…>", or "" when none of those; the notes that end does not say). An XPath
    that matched nothing is never the closest on screen."""
    notes = [n for n in near if not n.startswith("XPath")]
    away = next((n for n in notes if n.endswith(" scroll(s)") and OFF_SCREEN in n), None)
    if away:      # (kept in seen: too, where the scrolls' own notes are read)
        return f": {away}", list(near)
    alike = next((n for n in notes if n.startswith('"')), None)
    said = next((n for n in notes if n.startswith("the model")), None)   # its answer
    told = {alike} | ({said} if said is not None and cut(said, MODEL_SAID_CUT) == said
                      else set())      # (an answer cut short keeps its whole in seen:)
    return _said(said, alike), [n for n in near if n not in told]


def said_in(candidate: str, text: str) -> bool:
    """Whether a miss's message ``text`` already says its note ``candidate`` as a clause of
    its own (`_miss_line`: "…; the model did not find …; the closest on screen is …"), so a
    list of what was seen leaves it out: each thing said once. A near miss the message merely
    contains ("Log in" in "no element matches 'Log in button'") is still listed."""
    return f"; {candidate};" in f"{text};" or f"; the closest on screen is {candidate};" in \
        f"{text};"


def _with_free_finds(exc: Exception, what: str, ctx: LocateContext) -> None:
    """``exc`` (the model down or refusing, an infrastructure error: its class kept) with
    what the zero-token tiers found before it was asked, in the words of a miss: an XPath
    that matched nothing, the closest on screen. The report of a night the model was down
    keeps the step's own cause (a stale XPath, a renamed button) next to the model's."""
    ctx.near.extend(_described(ctx))
    first, unsaid = _miss_line(ctx.near)
    xpaths = [n for n in unsaid if n.startswith("XPath")]
    found = "; ".join([*xpaths, *([first[2:]] if first else ()),
                       *(n for n in unsaid if n not in xpaths)])
    if found:
        exc.args = (f"{exc}; before it, no tier found {what}: {found}", *exc.args[1:])


def _said(model: str | None, alike: str | None) -> str:
    """The end of a miss's first line: what the model answered (its reason it found nothing,
    a box off the screen; cut to MODEL_SAID_CUT), then the closest element on screen. Its
    words come first: the line a CI log shows says why the model missed, not only what
    the words matched (the runner masks secrets in it, as in every step error)."""
    parts = [cut(model, MODEL_SAID_CUT)] if model else []
    if alike:
        parts.append(f"the closest on screen is {alike}")
    return "".join(f"; {part}" for part in parts)


def _xpath_noted(hit: LocateHit, ctx: LocateContext) -> LocateHit:
    """``hit`` with a note when another tier found what the step's XPath did not: the step
    passes, and says so (a stale XPath otherwise goes unnoticed until the text changes too)."""
    why = ctx.hints.get(XPATH_MISSED) or ctx.hints.get(XPATH_UNUSABLE)
    if hit.tier == "xpath" or not why:
        return hit
    found = f"found {hit.description}" if hit.description else "found it"
    return replace(hit, notes=(*hit.notes, f"{why}; {found} by the {hit.tier} tier instead"))


# the tiers whose find says a step's deepLocate (Midscene's deepThink) was not used
FREE_FINDS = ("xpath", "text", "ocr")


def _deep_noted(hit: LocateHit, ctx: LocateContext) -> LocateHit:
    """``hit`` with a note when the step asked for deepLocate (deepThink) and a zero-token
    tier found its target: no model was asked, the step did not need it (a step of ai_act,
    whose planner's box comes with it, says nothing)."""
    if not ctx.hints.get("deep_locate") or hit.tier not in FREE_FINDS or \
            ctx.hints.get("plan_rect") is not None:
        return hit
    return replace(hit, notes=(*hit.notes, f"deepLocate (deepThink) not used: the {hit.tier} "
                                           "tier found it with no model"))


def _tried(tier: LocatorTier, prompt: str, ctx: LocateContext) -> bool:
    """Did the tier have anything to try? (An XPath tier without an XPath did not: that is
    no miss.) Tiers say so with an optional ``applies(prompt, ctx)``."""
    applies = getattr(tier, "applies", None)
    return applies is None or bool(applies(prompt, ctx))


def default_chain(on_attempt: Callable[[str, bool], None] | None = None,
                  off: Collection[str] = ()) -> LocatorChain:
    return LocatorChain([XPathTier(), TextMatchTier()], on_attempt=on_attempt, off=off)
