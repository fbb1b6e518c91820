"""What makes a step's ``xpath:`` no XPath at all, found when the suite loads.

Without an XPath parser among farm's dependencies this checks only what no XPath 1.0
expression can have, so it never refuses one a browser (or ElementTree, on a phone's tree)
would take: a string literal never closed, a ``[`` or ``(`` never closed or closed by the
other kind, a ``]`` or ``)`` that closes nothing, an empty predicate ``[]``, and a path that
ends in ``/`` (a step missing after it; ``/`` alone is the document). An XPath with one of
these failed only at run time, after the browser had started: "invalid XPath … is not a
valid XPath expression". Whatever else is wrong is still said by the device when it runs.

A ``${NAME}`` reference counts as one operand: its value is only known on the device.
"""

from __future__ import annotations

_CLOSES = {"]": "[", ")": "("}


def xpath_problem(xpath: str) -> str | None:
    """Why ``xpath`` cannot be an XPath expression, in words (None: no reason found)."""
    open_: list[int] = []           # offsets of the [ and ( not closed yet
    i = 0
    while i < len(xpath):
        char = xpath[i]
        if char in "'\"":
            end = xpath.find(char, i + 1)   # (XPath 1.0 literals have no escapes)
            if end < 0:
                return f"the quote {char} {_at(xpath, i)} is never closed"
            i = end + 1
            continue
        if xpath.startswith("${", i) and (end := xpath.find("}", i)) > 0:
            i = end + 1
            continue
        if char in "[(":
            open_.append(i)
        elif char in "])":
            said = _closes(xpath, open_, i)
            if said:
                return said
        i += 1
    if open_:
        return f"the {xpath[open_[-1]]} {_at(xpath, open_[-1])} is never closed"
    path = xpath.rstrip()
    if path.endswith("/") and path != "/":
        return "it ends with /: a step is missing after it"
    return None


def _closes(xpath: str, open_: list[int], i: int) -> str | None:
    """The ``]`` or ``)`` at ``i`` closes the last one open (None), or what is wrong."""
    char = xpath[i]
    if not open_:
        return f"the {char} {_at(xpath, i)} closes nothing"
    start = open_.pop()
    if xpath[start] != _CLOSES[char]:
        return f"the {xpath[start]} {_at(xpath, start)} is closed by a {char}"
    if char == "]" and not xpath[start + 1:i].strip():
        return f"the predicate [] {_at(xpath, start)} is empty"
    return None


def _at(xpath: str, i: int) -> str:
    """Where offset ``i`` is, for people: ``after "//button"`` (its last 20 characters)."""
    before = xpath[:i].rstrip()
    if not before:
        return "at its start"
    return f'after "{"…" if len(before) > 20 else ""}{before[-20:]}"'
