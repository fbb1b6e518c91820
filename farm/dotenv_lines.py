"""The lines of a ``.env`` file, as npm dotenv 16 (Midscene's CLI) reads them.

One parser for both of farm's readers: farm.suite.dotenv (a suite's ``${NAME}``) and
farm.midscene_env (Midscene's model variables, read by farm.config, which may not import
farm.suite). Syntax: ``NAME=value`` (or ``NAME: value``) lines, blank lines and ``#`` comments,
an optional ``export`` before the name, values in single, double or back quotes, which may span
lines (a PEM key; ``\\n`` in double quotes is a newline), ``#`` in an unquoted value or after a
quoted one starts a comment. Lines that are none of these are skipped, as dotenv skips them;
names farm cannot refer to (``a.b``, ``a-b``) are left out.
"""

from __future__ import annotations

import re

from farm.text import is_utf16

# dotenv's own LINE: a quoted value runs to its closing quote, across lines; an unquoted one to
# the end of its line or a '#'. Compiled by `re` on the first .env read: most runs have none,
# and compiling it cost every start ~0.4 ms.
# (a name is anything up to = or ": ": one no ${NAME} can have, 用户 or a.b, is matched and left
# out, so its line is said: `dotenv_names`)
_ENTRY = (r"""^\s*(?:export\s+)?(?P<name>[^\s=:#'"`]+)(?:\s*=\s*?|:\s+?)(?P<value>"""
          r"""\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?"""
          r"""\s*(?:#.*)?$""")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def dotenv_text(data: bytes) -> str | None:
    """A ``.env`` file's ``data`` as text, without a UTF-8 byte order mark (Windows Notepad's
    "UTF-8 with BOM"); None when it is not UTF-8 (GBK, UTF-16)."""
    if is_utf16(data):
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def dotenv_values(text: str) -> dict[str, str]:
    """The variables a ``.env`` file's ``text`` sets, by name (the last one of a name wins)."""
    values: dict[str, str] = {}
    for m in _entries(re.sub(r"\r\n?", "\n", text)):
        if _NAME.fullmatch(m["name"]):
            values[m["name"]] = _value(m["value"] or "")
    return values


def dotenv_names(text: str) -> list[tuple[str, int]]:
    """``(name, line)`` of every line of ``text`` that sets a variable, a name no ``${NAME}``
    can have (``用户``, ``a.b``, which `dotenv_values` leaves out) too."""
    text = re.sub(r"\r\n?", "\n", text)
    return [(m["name"], text.count("\n", 0, m.start("name")) + 1) for m in _entries(text)]


def dotenv_unread(text: str) -> list[int]:
    """The line numbers of ``text`` that are no entry, blank line or ``#`` comment (``bad
    line here``, a name with no ``=``), which `dotenv_values` skips, as dotenv does."""
    text = re.sub(r"\r\n?", "\n", text)
    read: set[int] = set()      # (an entry's match may take in blank lines around it too)
    for m in _entries(text):
        read.update(range(text.count("\n", 0, m.start("name")), text.count("\n", 0, m.end()) + 1))
    lines = text.split("\n")
    return [i + 1 for i, line in enumerate(lines)
            if i not in read and line.strip() and not line.lstrip().startswith("#")]


def _entries(text: str):
    """The entries of ``text``, its line ends made \\n."""
    return re.finditer(_ENTRY, text, re.MULTILINE | re.ASCII)


def _value(raw: str) -> str:
    value = raw.strip()
    if len(value) < 2 or value[0] not in "'\"`" or value[-1] != value[0]:
        return value
    body = value[1:-1]
    return body.replace("\\n", "\n").replace("\\r", "\r") if value[0] == '"' else body
