"""What makes an element on screen a near miss of a target the text tier did not find.

A near miss (a misspelt or renamed target: "Sgin in", "Add to wishlist" beside "Add to cart")
fails the step naming the closest element, with or without a model. A *description* that
merely holds a label on screen ("the price of the Desk Lamp", "the welcome message") is no
near miss: with no model it is skipped as needing one, the label named as a hint.

Likeness (`alike`, both strings normalised): one holds the other, or difflib's ratio is at
least 0.6. Chinese, Japanese and Korean text is compared by characters, each about a word:
one wrong character in a short label ("登陆" for "登录": ratio 0.5) or a shared start or end
of two characters or more, at least half of the shorter ("加入收藏" beside "加入购物车"),
is alike too; unrelated short labels ("首页" and "页面", "登录" and "注册") are not.
"""

from __future__ import annotations

import difflib
import re

from farm.text import CJK

# Words that make a target a description of an element rather than its text, when the
# element's own text does not hold them: determiners, pronouns, where it is.
DESCRIBING = frozenset((
    "the", "this", "that", "these", "those", "its", "his", "her", "their", "my", "your",
    "our", "of", "inside", "under", "below", "above", "beside", "near", "next", "first",
    "second", "third", "last"))
# ... in Chinese: "X的Y" (the Y of X)
CJK_DESCRIBING = "的"
_WORD = re.compile(r"\w+")


def alike(want: str, have: str) -> bool:
    """Whether ``have`` (what an element shows, normalised) is like the target ``want``."""
    if want in have or (have in want and len(have) >= 3):
        return True
    if ratio(want, have) >= 0.6:
        return True
    return bool(CJK.search(want)) and _cjk_alike(want, have)


def ratio(want: str, have: str) -> float:
    return difflib.SequenceMatcher(None, want, have).ratio()


def _cjk_alike(want: str, have: str) -> bool:
    if len(want) >= 2 and have and _one_edit(want, have):
        return True
    shorter = min(len(want), len(have))
    shared = max(_common(want, have), _common(want[::-1], have[::-1]))
    return shared >= 2 and 2 * shared >= shorter


def _common(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one character apart: one changed, added or left out."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    start = _common(a, b)
    end = _common(a[start:][::-1], b[start:][::-1])
    return max(len(a), len(b)) - start - end <= 1


def describes(want: str, have: str) -> bool:
    """Whether the target ``want`` describes an element rather than names its text ``have``
    (both normalised): it has words of a description the text has not ("the", "of", "next",
    Chinese "的"; not the short words a label has too: "a", "on", "in")."""
    if CJK_DESCRIBING in want and CJK_DESCRIBING not in have:
        return True
    extra = set(_WORD.findall(want)) - set(_WORD.findall(have))
    return bool(extra & DESCRIBING)

