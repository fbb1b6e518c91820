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
from typing import Any, Callable, TypeVar

T = TypeVar("T")
# Control characters a page, a device or a model may put in its text (ESC of an ANSI colour or
# cursor sequence, NUL, BEL, backspace, C1 controls), the bidirectional overrides and isolates
# (they reorder a line as shown: a page's text could make a FAILED line read as something
# else) and the noncharacters U+FFFE/U+FFFF; tab and newline are text.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
# The only way JSON text that is itself valid can decode to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# What XML 1.0 cannot hold (the complement of its Char production), raw or as a character
# reference (``&#1;``, ``&#x1b;``): a page's text can have it, and one of them anywhere makes
# the whole document unparseable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_CHAR_REF = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);")
# Typographic quotes as the ASCII ones a suite is typed with, where text is matched (the
# locator's `normalise`, OCR's `squash`): iOS and many apps show "Don’t Allow" (U+2019),
# which NFKC leaves as it is, and `aiTap: Don't Allow` missed it.
QUOTES = str.maketrans("\u2018\u2019\u201a\u201b\u2032\u201c\u201d\u201e\u201f\u2033",
                       "'" * 5 + '"' * 5)

# Characters of Chinese, Japanese and Korean text (CJK punctuation, kana, ideographs, hangul):
# their UIs put a space around a number or a Latin word, or not ("共 3 件" / "共3件"), so where
# text is matched a space with one of them on either side is no difference (`cjk_unspaced`).
CJK_CHARS = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK = re.compile(f"[{CJK_CHARS}]")
_CJK_SPACE = re.compile(f"\\s+(?=[{CJK_CHARS}])|(?<=[{CJK_CHARS}])\\s+")


def cjk_unspaced(text: str) -> str:
    """``text`` without the whitespace that has a CJK character on one side: ``共 3 件商品``
    is ``共3件商品``, ``登录 按钮`` is ``登录按钮``; "log in" stays two words."""
    return _CJK_SPACE.sub("", text) if CJK.search(text) else text


def _letter(char: str) -> bool:
    """Whether ``char`` is a letter or digit that ends a word where it stops: not one of
    Chinese, Japanese or Korean (their text has no word ends)."""
    return char.isalnum() and not CJK.match(char)


def word_match(want: str, have: str, spaced: bool = False) -> re.Match[str] | None:
    """Where ``want`` is in ``have`` (both as compared: normalised, case-folded) with its ends
    at word ends: where ``want`` starts (ends) with a letter or digit, the character of
    ``have`` just before (after) it is none ("count 1" is not in "count 10"; "saved: a" is in
    "saved: a."); a CJK character has no word end, so next to one it is a substring match.
    ``spaced``: whitespace is no difference inside the match, as OCR reads it ("signin" is in
    "sign in" and "sign in" in "signin"). An empty ``want`` is anywhere."""
    if spaced:
        want = "".join(want.split())
    if not want:
        return re.match("", have)
    pattern = re.compile(r"\s*".join(map(re.escape, want)) if spaced else re.escape(want))
    start_word, end_word = _letter(want[0]), _letter(want[-1])
    match = pattern.search(have)
    while match is not None:
        before = have[match.start() - 1] if match.start() else " "
        after = have[match.end()] if match.end() < len(have) else " "
        if not (start_word and _letter(before)) and not (end_word and _letter(after)):
            return match
        match = pattern.search(have, match.start() + 1)
    return None


def unmasked(text: str) -> str:
    """The mask of a run with no secret: ``text`` as it is. A device given it scans nothing
    for secrets (`farm.devices.browser.BrowserDevice.hide`)."""
    return text


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


def cut(text: str, limit: int) -> str:
    """``text`` shortened to ``limit`` characters, ending in "…" where it was cut: the mark
    tells the secret masking (`farm.suite.vars`) that a secret's start there is one, so a
    quoted device answer or model reply cut inside a password does not show its start."""
    return text if len(text) <= limit else text[:limit] + "\u2026"


def printable(text: str) -> str:
    """``text`` for a terminal or a report: each control character shown as its escape
    (``\\x1b``), so a page cannot recolour, rewrite or beep a CI log with its own text."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100
                        else f"\\u{ord(m[0]):04x}", text)


def xml_chars(text: str, replacement: str = "") -> str:
    """``text`` with every character XML 1.0 cannot hold (raw or as a character reference)
    replaced by ``replacement``: a device's UI tree with one control character in an app's
    text still parses, as uiautomator (".") and WebDriverAgent ("") sanitise their own."""
    if _NOT_XML.search(text):
        text = _NOT_XML.sub(replacement, text)
    if "&#" in text:
        text = _CHAR_REF.sub(lambda m: m.group(0) if _xml_char(m.group(1)) else replacement, text)
    return text


def _xml_char(ref: str) -> bool:
    code = int(ref[1:], 16) if ref[0] == "x" else int(ref)
    return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD \
        or 0x10000 <= code <= 0x10FFFF


def first_line(what: object) -> str:
    """The first line of an error (or its reason), cleaned; the error's kind when it says
    nothing."""
    text = clean(str(what)).strip()
    return text.splitlines()[0] if text else type(what).__name__


def clean_json(text: str) -> Any:
    """`json.loads`, cleaned. The walk is skipped when no ``\\udXXX`` escape could have made
    a surrogate: a page's DOM (thousands of nodes) is decoded on every step."""
    value = json.loads(text)
    return clean(value) if needs_cleaning(text) else value


def needs_cleaning(text: str) -> bool:
    """Whether JSON ``text`` may decode to strings that are not valid Unicode (a lone
    surrogate, escaped as ``\\udXXX`` or raw): `clean_json` decodes it then."""
    return _SURROGATE_ESCAPE.search(text) is not None or not _valid(text)


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Where text in a legacy Chinese encoding lands when read as GB18030: CJK punctuation, CJK
# ideographs (and extension A), full-width forms. Code point ranges, not a regex class: that
# took ~7 ms of CPU to compile at every farm start, for a file that is rarely not UTF-8.
_CJK = ((0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF))


def is_utf16(data: bytes) -> bool:
    """Whether ``data`` starts with a UTF-16 byte order mark (Windows Notepad's "Unicode")."""
    return data[:2] in _UTF16_BOMS


def not_utf8(data: bytes) -> tuple[str, int | None]:
    """What to say of a file's ``data`` that is not UTF-8, and the line of its first bad byte
    (None for UTF-16): the encoding it was saved in when that is plain (UTF-16, or text that
    reads as Chinese in GBK/GB18030, a Chinese Windows editor's "ANSI")."""
    if is_utf16(data):
        return "saved as UTF-16 (it starts with a UTF-16 byte order mark)", None
    try:
        data.decode("utf-8-sig")
        return "", None
    except UnicodeDecodeError as exc:
        start = exc.start
    line = data[:start].count(b"\n") + 1
    if _reads_as_chinese(data):
        return (f"not UTF-8 (byte {start}): it reads as Chinese text in a legacy encoding "
                "(GBK/GB18030: what a Chinese Windows editor calls \"ANSI\")"), line
    return f"invalid UTF-8 at byte {start}", line


def _reads_as_chinese(data: bytes) -> bool:
    """Whether ``data`` reads as Chinese in GB18030: at least two ideographs, nothing else
    beyond ASCII, and most of them two bytes above ASCII, as Chinese text is, not an accented
    letter and the ASCII letter after it (Latin-1's "ß" + "e") read as one."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return False
    others = [c for c in text if not c.isascii()]
    cjk = sum(1 for c in others if any(lo <= ord(c) <= hi for lo, hi in _CJK))
    if cjk < 2 or cjk < len(others):
        return False
    high = sum(1 for c in others if c.encode("gb18030")[-1] >= 0x80)
    return high * 2 >= len(others)


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """JSON-like ``value`` with ``fn`` applied to every string in it (dict keys kept)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [map_strings(v, fn) for v in value]
    return value
