"""What a failed text check adds to its message about the screen it read: an alert the screen
shows ("Invalid username or password" where "Welcome back" was expected) and the text on it
closest to the expected one (a typo, a changed wording, a number that differs), so a CI log
says why without opening the report. Only what the screen shows; nothing when nothing is
close."""

from __future__ import annotations

import difflib
import os
import re
import unicodedata
from typing import Callable

from farm.devices.base import UITree, UINode
from farm.text import CJK, QUOTES, cjk_unspaced, word_match

ALERT_ROLES = {"alert", "alertdialog", "xcuielementtypealert"}
ALERT_IDS = ("android:id/message", "android:id/alerttitle")
SHOWN_CHARS = 120       # of one quoted text
LINE_CHARS = 100        # of the element text a closest text is shown as ("Payment declined: card
#                         expired", not "Payment declined:"): a longer one cut at words, with …
MAX_ALERTS = 2
CUTOFF = 0.7            # difflib ratio a text must reach to be called close
NEAR_RATIO = 0.1        # ratios this close to the best one: the longest shared start wins
MAX_CANDIDATES = 4000   # texts compared (a huge page: the first ones)
MAX_LOOKED = 40000      # CJK pieces looked at (a page repeating itself has few different ones)
# Where a Chinese or Japanese line's parts end: its sentence and clause punctuation (not the
# ASCII ones: "¥128.50", "12:30")
_CJK_STOPS = re.compile("[，。！？；：、]+")


def hint(expected: str, screen: str, tree: UITree | None,
         mask: Callable[[str], str] = str) -> str:
    """``; the screen shows an alert "…"; the closest text on it is "…"`` (either part, both,
    or "" when there is nothing to say); ``mask`` hides the case's secrets (`closest`)."""
    alerts = _alerts(tree)
    parts = []
    if alerts:
        parts.append("the screen shows " + (", ".join(_quote(a) for a in alerts))
                     + (" (an alert)" if len(alerts) == 1 else " (alerts)"))
    close = closest(expected, screen, mask, tree)
    if close and all(close.casefold() not in a.casefold() for a in alerts):
        if _quote(close).casefold() == _quote(mask(expected)).casefold():
            # (both read the same once masked: what differs is a secret's value)
            parts.append("the closest text on it differs from it only inside a hidden secret")
        else:
            parts.append(f"the closest text on it is {_quote(close)}")
    return "".join(f"; {p}" for p in parts)


def matched_line(expected: str, screen: str, mask: Callable[[str], str] = str) -> str:
    """``: the screen shows it in "…"``: the line of ``screen`` where an assertNoText found
    ``expected`` (or the run of lines it spans), as the screen writes it, ``mask``ed; "" when
    none is found. Compared as loosely as any reading is (whitespace no difference, its ends
    at word ends: `farm.text.word_match`), so the line found is one the check matched."""
    want = _loose(expected).rstrip(":*")
    lines = [line for line in screen.splitlines() if line.strip()]
    for size in range(1, min(len(lines), len(want.split()) + 1) + 1):
        for i in range(len(lines) - size + 1):
            shown = " ".join(lines[i:i + size])
            found = word_match(want, _loose(shown), spaced=True)
            if found is not None:
                return f": the screen shows it in {_around(mask(shown), found.start())}"
    return ""


def _loose(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(QUOTES).casefold()


def _around(line: str, at: int) -> str:
    """``line`` quoted, a long one cut to the part around character ``at`` (about)."""
    line = re.sub(r"\s+", " ", line).strip()
    start = max(0, min(at - SHOWN_CHARS // 3, len(line) - SHOWN_CHARS + 1))
    return _quote(("…" if start else "") + line[start:])


def _alerts(tree: UITree | None) -> list[str]:
    if tree is None:
        return []
    out: list[str] = []
    for node in tree.nodes:
        text = " ".join((node.text or node.name).split())
        if text and node.visible and _is_alert(node) and text not in out:
            out.append(text)
    return out[:MAX_ALERTS]


def _is_alert(node: UINode) -> bool:
    return node.role.casefold() in ALERT_ROLES or node.resource_id.casefold() in ALERT_IDS


def closest(expected: str, screen: str, mask: Callable[[str], str] = str,
            tree: UITree | None = None) -> str | None:
    """The piece of ``screen`` most like ``expected`` (a short line, or as many words of one as
    ``expected`` has, or one more), compared as the matcher compares (`_key`: NFKC, case-folded,
    whitespace collapsed, none beside a CJK character), quoted as the screen writes it; None
    below ``CUTOFF``. A piece whose words are words of ``expected`` ("Welcome" for "Welcome
    back") is no other text, and is not offered; a word that is only the start of one is
    ("Compute" for "Computed": the button, not a status that never came). Chinese, Japanese
    or Korean text has no spaces between words: its pieces are runs of about as many
    characters as ``expected`` has, and the parts of a line between its CJK punctuation
    (`_char_pieces`); one that is part of ``expected`` is not offered. A piece of a line that
    holds a secret (``mask`` changes it) is that whole line masked: a piece ends at a word,
    which may be inside a secret of several words (a passphrase), and masking the piece would
    leave its first words. With the screen's ``tree``, a piece is shown as the whole text of
    the element it is in (`_in_element`): the rest of it may be why ("Payment declined: card
    expired", not "Payment declined:")."""
    want = _key(expected)
    if not want:
        return None
    wanted = want.split()
    n = len(wanted)
    cjk = CJK.search(want) is not None
    shown: dict[str, tuple[str, str]] = {}   # compared candidate -> (as written, its line)
    looked = 0                               # CJK pieces looked at
    for line in screen.splitlines():
        chars = _char_pieces(line, len(want))[:MAX_LOOKED - looked] if cjk else []
        looked += len(chars)
        for piece in _pieces(line.split(), n) + chars:
            key = _key(piece)
            if not _words_of(key.split(), wanted) and not (cjk and key in want):
                shown.setdefault(key, (piece, line))
        if len(shown) >= MAX_CANDIDATES:
            break
    best = _best(want, list(shown))
    if best is None:
        return None
    piece, line = shown[best]
    masked = mask(line)
    if masked != line:
        return " ".join(masked.split())
    return _in_element(piece, tree, mask) if tree is not None else piece


def _in_element(piece: str, tree: UITree, mask: Callable[[str], str]) -> str:
    """``piece`` as the text of the smallest visible element of ``tree`` holding it, whitespace
    collapsed: one line of the screen's text may join several elements (a nav bar, two
    buttons), an element's text is one thing it says. An element's text over ``LINE_CHARS``
    is cut at word ends around ``piece``, "…" where it was cut; ``piece`` itself when no
    element holds it whole, or the element's text holds a secret."""
    part = piece.split()
    best: tuple[list[str], int] | None = None
    for node in tree.nodes:
        words = (node.text or node.name).split()
        at = _run_at(words, part) if node.visible else None
        if at is not None and (best is None or len(words) < len(best[0])):
            best = (words, at)
    if best is None or best[0] == part:
        return piece
    words, first = best
    if mask(" ".join(words)) != " ".join(words):
        return piece
    if len(" ".join(words)) <= LINE_CHARS:
        return " ".join(words)
    last = first + len(part)            # the piece's words: words[first:last]
    while last < len(words) and len(" ".join(words[first:last + 1])) <= LINE_CHARS:
        last += 1           # the words after it first (the cause follows the label) ...
    while first and len(" ".join(words[first - 1:last])) <= LINE_CHARS:
        first -= 1          # ... then the ones before it
    return ("…" if first else "") + " ".join(words[first:last]) + (
        "…" if last < len(words) else "")


def _run_at(words: list[str], part: list[str]) -> int | None:
    """Where ``part`` starts as a run of ``words`` (case-folded), or None."""
    folded, want = [w.casefold() for w in words], [w.casefold() for w in part]
    return next((i for i in range(len(words) - len(part) + 1)
                 if folded[i:i + len(part)] == want), None)


def _best(want: str, candidates: list[str]) -> str | None:
    """The candidate most like ``want``: of those whose difflib ratio reaches ``CUTOFF`` and
    comes within ``NEAR_RATIO`` of the best one, the one sharing the longest start with it,
    then the highest ratio ("confirm=false" for "confirm=true" over the "confirm" button,
    though difflib rates the shorter one a little higher: the status line is where the value
    is shown). None when none reaches ``CUTOFF``."""
    close = difflib.get_close_matches(want, candidates, n=len(candidates) or 1, cutoff=CUTOFF)
    if not close:
        return None
    rated = {c: difflib.SequenceMatcher(None, want, c).ratio() for c in close}
    top = max(rated.values())
    return max((c for c in close if rated[c] >= top - NEAR_RATIO),
               key=lambda c: (len(os.path.commonprefix([want, c])), rated[c]))


def _key(text: str) -> str:
    """``text`` as compared: as the matcher compares it (`farm.agent.locator.normalise`), but
    a trailing ":" kept (a piece is not a whole label)."""
    if not text.isascii():       # (NFKC leaves ASCII as it is)
        text = cjk_unspaced(" ".join(unicodedata.normalize("NFKC", text).translate(QUOTES)
                                     .split()))
    return " ".join(text.split()).casefold()


def _words_of(words: list[str], wanted: list[str]) -> bool:
    """Whether ``words`` are a run of consecutive words of ``wanted``."""
    return any(wanted[i:i + len(words)] == words for i in range(len(wanted) - len(words) + 1))


def _pieces(words: list[str], n: int) -> list[str]:
    """A line of at most ``2n + 2`` words itself, and each run of ``n`` or ``n + 1`` words."""
    out = [" ".join(words)] if 0 < len(words) <= 2 * n + 2 else []
    for size in (n, n + 1):
        out += [" ".join(words[i:i + size]) for i in range(len(words) - size + 1)]
    return out


def _char_pieces(line: str, n: int) -> list[str]:
    """The parts of ``line`` between its CJK punctuation ("共 3 件商品" of "共 3 件商品，合计"),
    and each run of ``n - 2`` to ``n + 2`` of its characters (spaces not counted), as written."""
    out = [p.strip() for p in _CJK_STOPS.split(line) if p.strip()]
    at = [i for i, c in enumerate(line) if not c.isspace()][:MAX_LOOKED]
    for size in range(max(1, n - 2), n + 3):
        out += [line[at[i]:at[i + size - 1] + 1] for i in range(len(at) - size + 1)]
    return out


def _quote(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS - 1] + "…"
    return f'"{text}"'
