"""Text from outside farm (pages, devices, models) made valid Unicode once, where it enters.

JavaScript strings are UTF-16, so ``"😀".slice(0, 1)`` is half a surrogate pair; JSON carries
it as ``"\\ud83d"`` and Python decodes that into a ``str`` that UTF-8 cannot encode. Left alone,
the first write of anything holding it (results.json, a log line, junit.xml) raises. `clean`
turns each lone surrogate into U+FFFD (the replacement character, as a browser shows it) and
rejoins a pair that arrived as two halves.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

T = TypeVar("T")
# Control characters a page, a device or a model may put in its text (ESC of an ANSI colour or
# cursor sequence, NUL, BEL, backspace, C1 controls); tab and newline are text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The only way JSON text that is itself valid can decode to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def clean(value: T) -> T:
    """``value`` with every string made valid Unicode, walking dicts, lists and tuples
    (structured outputs, decoded JSON); anything else is returned as it is."""
    if isinstance(value, str):
        return _clean_str(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, list):
        return [clean(v) for v in value]  # type: ignore[return-value]
    if type(value) is tuple:  # not named tuples: they cannot be rebuilt from one iterable
        return tuple(clean(v) for v in value)  # type: ignore[return-value]
    return value


def _clean_str(text: str) -> str:
    if _valid(text):
        return text          # the common case: nothing to do, no copy
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def printable(text: str) -> str:
    """``text`` for a terminal or a report: each control character shown as its escape
    (``\\x1b``), so a page cannot recolour, rewrite or beep a CI log with its own text."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def first_line(what: object) -> str:
    """The first line of an error (or its reason), cleaned; the error's kind when it says
    nothing."""
    text = clean(str(what)).strip()
    return text.splitlines()[0] if text else type(what).__name__


def clean_json(text: str) -> Any:
    """`json.loads`, cleaned. The walk is skipped when no ``\\udXXX`` escape could have made
    a surrogate: a page's DOM (thousands of nodes) is decoded on every step."""
    value = json.loads(text)
    return clean(value) if _SURROGATE_ESCAPE.search(text) or not _valid(text) else value


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False
