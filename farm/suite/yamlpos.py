"""A YAML reader that keeps every value's position and refuses what suite files must not use.

PyYAML's ``safe_load`` forgets line numbers, silently keeps the last of duplicate keys and
expands aliases (an "alias bomb" of a few lines becomes gigabytes).  Here the *event* stream
(libyaml's C parser when available, so 500 files load in well under a second) is composed into
`Node` trees by hand:

* every node keeps its 1-based line and column;
* anchors and aliases are refused the moment the parser reports them, never expanded;
* duplicate keys, non-string keys, explicit tags and multiple documents are reported;
* syntax errors become `SuiteError` at the parser's problem position (naming the line where
  the construct it was inside began), with clearer messages for tabs in indentation and for
  an unclosed quote (at the quote); binary files and empty files get their own messages.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from farm.errors import SuiteError
from farm.suite.kinds import KINDS
from farm.text import is_utf16, not_utf8

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_constructor = yaml.constructor.SafeConstructor()

# What YAML takes for a line break (libyaml's lines and columns count with these)
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
MAX_BYTES = 2_000_000     # a suite file is a few KB; anything this big is a mistake
MAX_DEPTH = 100           # deeper nesting is never a real suite, and would hit recursion limits
_STD_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map",
                                                  "seq")} | {"!"}
EMPTY_MESSAGE = "file is empty: expected a case with web:/android:/ios: and tasks:"


@dataclass(slots=True, eq=False)
class Node:
    """One YAML value with its position.

    ``value`` is: for ``kind == "scalar"`` the typed Python value (str, int, float, bool, None);
    for ``"seq"`` a list of Nodes; for ``"map"`` a dict of key text -> Node (``keys`` holds the
    key Nodes, for positions).  ``raw`` is a scalar's text as written, ``plain`` whether it was
    unquoted.
    """

    kind: str
    line: int
    column: int
    value: Any
    raw: str = ""
    plain: bool = False
    keys: dict[str, Node] = field(default_factory=dict)
    source: str = ""    # a scalar over several lines or with a ${: its text as in the file

    @property
    def is_null(self) -> bool:
        return self.kind == "scalar" and self.value is None

    @property
    def text(self) -> str | None:
        """A scalar as text, as written (``007`` stays ``007``); None if null or not a scalar."""
        if self.kind != "scalar" or self.value is None:
            return None
        return self.raw if self.plain else str(self.value)

    def describe(self) -> str:
        """What this value is, for "expected X, got Y" messages."""
        if self.kind == "map":
            return "a mapping"
        if self.kind == "seq":
            return "a list"
        v = self.value
        if v is None:
            return "nothing (null)"
        if isinstance(v, bool):
            return f"the boolean {self.raw}"
        if isinstance(v, (int, float)):
            return f"the number {self.raw}"
        short = self.text or ""
        short = short if len(short) <= 40 else short[:37] + "..."
        return f"the string {short!r}"

    def to_python(self) -> Any:
        """Plain Python data (for sections kept as-is, like ``agent:``)."""
        if self.kind == "map":
            return {k: v.to_python() for k, v in self.value.items()}
        if self.kind == "seq":
            return [v.to_python() for v in self.value]
        return self.value

    def place(self, pattern: re.Pattern[str], offset: int) -> tuple[int, int]:
        """``(line, column)`` in the file of the ``pattern`` match that starts at ``offset`` of
        this scalar's `text`: where it is written, in a value on one line as in one written over
        several (a ``|`` or ``>`` block, a quoted or plain value folded across lines); where the
        value starts when the file's text cannot be matched up with it (a ``${`` made by an
        escape such as ``"\\x24{"``)."""
        text = self.text or ""
        if not self.source or not text:
            return self.line, self.column
        start = 0
        if self.source[0] in "|>":      # a block's header line (`|-  # comment`) is no text
            brk = _BREAK.search(self.source)
            start = brk.end() if brk else len(self.source)
        written = [m.start() for m in pattern.finditer(self.source, start)]
        found = [m.start() for m in pattern.finditer(text)]
        if len(written) != len(found) or offset not in found:
            return self.line, self.column
        at = written[found.index(offset)]
        breaks = list(_BREAK.finditer(self.source, 0, at))
        if not breaks:
            return self.line, self.column + at
        return self.line + len(breaks), at - breaks[-1].end() + 1

    def walk_scalars(self):
        """Every scalar value node below (keys excluded), in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            if node.kind == "scalar":
                yield node
            else:
                children = node.value.values() if node.kind == "map" else node.value
                stack.extend(reversed(list(children)))


MAX_SHARED = 20     # list or mapping aliases read as their value (`_Composer.node`)
# what an anchor or alias is told (`only_aliases`: a file with no other error is still checked)
ALIASES = "YAML aliases are not allowed in suite files"


def only_aliases(errors: list[SuiteError]) -> bool:
    """Whether ``errors`` (of `read_yaml`, with a root) are anchors and aliases only: the
    file composed, each alias as the value it names, and its other problems can be said."""
    return bool(errors) and all(e.message.startswith(ALIASES) for e in errors)


class _Fatal(Exception):
    """Stop composing this file: what follows cannot be trusted."""

    def __init__(self, line: int, column: int, message: str) -> None:
        self.line, self.column, self.message = line, column, message


def read_yaml(path: Path, display: str | None = None) -> tuple[Node | None, list[SuiteError]]:
    """Read and compose one file. Returns ``(root node or None, errors)``.

    The root is None when the file is unusable (then the errors say why) or when it holds no
    YAML document at all -- empty, whitespace or comments only -- (then there are no errors:
    ``farm.yaml`` may be empty, a case may not; the caller decides, see `EMPTY_MESSAGE`).
    """
    shown = display or str(path)
    try:
        data = read_limited(Path(path), MAX_BYTES)
    except _Unreadable as exc:
        return None, [SuiteError(shown, str(exc))]
    except FileNotFoundError as exc:
        # a link whose target is gone: "no such file" of a file `ls` lists sent users looking
        if Path(path).is_symlink():
            return None, [SuiteError(shown, f"a link to {os.readlink(path)}, which does not "
                                            "exist: fix or remove the link")]
        return None, [SuiteError(shown, f"cannot read file: {exc.strerror or exc}")]
    except OSError as exc:
        return None, [SuiteError(shown, f"cannot read file: {exc.strerror or exc}")]
    if is_utf16(data):      # Windows Notepad's "Unicode": NUL bytes, but text
        return None, [SuiteError(shown, f"{not_utf8(data)[0]}; {SAVE_AS_UTF8}")]
    if b"\x00" in data:
        return None, [SuiteError(shown, "not a text file (contains NUL bytes): expected YAML",
                                 *_byte_position(data, data.index(b"\x00")))]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        said, line = not_utf8(data)
        if said.startswith("invalid UTF-8"):
            return None, [SuiteError(shown, f"not a text file ({said}): expected YAML saved "
                                            "as UTF-8", line)]
        return None, [SuiteError(shown, f"{said}; {SAVE_AS_UTF8}", line)]
    return compose_text(text, shown)


# A suite file in another encoding: Midscene's CLI reads YAML as UTF-8 too.
SAVE_AS_UTF8 = "save it as UTF-8 (Midscene reads YAML as UTF-8 too)"


def peek(path: Path) -> bytes | None:
    """The bytes of the regular file ``path`` (as `read_yaml` reads them), None when it is not
    one or cannot be read (`read_yaml` says why)."""
    try:
        return read_limited(Path(path), MAX_BYTES)
    except (_Unreadable, OSError):
        return None


class _Unreadable(Exception):
    """Not something a suite file can be: the message says what it is instead."""


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def read_limited(path: Path, limit: int) -> bytes:
    """The bytes of regular file ``path``, reading at most ``limit + 1`` of them.

    Anything else named ``*.yaml`` (a FIFO would block the read forever, ``/dev/zero`` never
    ends, a device may act on being opened) is refused from ``stat`` without opening it; the
    file is opened non-blocking and checked again, in case it was swapped in between.  Raises
    `_Unreadable` (or OSError when it cannot be read at all).
    """
    _check_regular(os.stat(path), limit)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as file:
        _check_regular(os.fstat(fd), limit)
        data = file.read(limit + 1)     # a size stat got wrong (/proc, a growing file)
    if len(data) > limit:
        raise _Unreadable(f"file is too large (more than {limit} bytes): suite files must be "
                          f"under {limit} bytes")
    return data


def not_regular(info: os.stat_result) -> str | None:
    """What a path whose ``stat`` is ``info`` is when it is no regular file ("a directory", "a
    FIFO (named pipe)", …): reading one may block (a FIFO waits for a writer) or never end
    (/dev/zero). None for a regular file."""
    if stat.S_ISREG(info.st_mode):
        return None
    return next((name for test, name in _KINDS if test(info.st_mode)), "an unusual kind")


def _check_regular(info: os.stat_result, limit: int) -> None:
    if kind := not_regular(info):
        raise _Unreadable(f"not a regular file ({kind}): expected a YAML file")
    if info.st_size > limit:
        raise _Unreadable(f"file is too large ({info.st_size} bytes): suite files must be "
                          f"under {limit} bytes")


def compose_text(text: str, file: str) -> tuple[Node | None, list[SuiteError]]:
    """Compose YAML ``text`` (reported as ``file``) into a `Node` tree; see `read_yaml`."""
    composer = _Composer(text, file)
    try:
        root = composer.run()
        slips = _wide_slips(text, file, root)
        return (None, slips) if slips else (root, composer.errors)
    except _Fatal as fatal:         # (an anchor said already: the fatal error says it)
        said = [e for e in composer.errors if not e.message.startswith(ALIASES)] \
            if fatal.message.startswith(ALIASES) else composer.errors
        return None, said + [SuiteError(file, fatal.message, fatal.line, fatal.column)]
    except yaml.MarkedYAMLError as exc:
        said = _syntax_error(exc, text, file)
        slips = _wide_slips(text, file, upto=(said.line or 0) + 1)
        # a slip on the error's line (or right before the line the parser tripped on) is
        # what went wrong there; any other is said beside the parser's own error
        explains = any(0 <= (said.line or 0) - (e.line or 0) <= 1 for e in slips)
        return None, slips if explains else slips + [said]
    except yaml.reader.ReaderError as exc:
        line, col = _position(text, exc.position)
        return None, [SuiteError(file, f"not a text file: unacceptable character "
                                       f"#x{exc.character:04x} (expected printable text)",
                                 line, col)]
    except yaml.YAMLError as exc:  # anything else libyaml can say, without a traceback
        return None, [SuiteError(file, f"invalid YAML: {exc}")]
    finally:
        composer.loader.dispose()


# What a Chinese input method types for YAML's ':' and for indenting spaces: YAML reads
# `name：登录` as one text (no key), and an ideographic space as text, not indentation
_WIDE_KEY = re.compile(r"^([ \u3000]*(?:-[ \u3000]+)?)([A-Za-z_][A-Za-z0-9_.-]*)\uff1a")
_WIDE_INDENT = re.compile(r"^[ \t]*\u3000")


def _wide_slips(text: str, file: str, root: Node | None = None,
                upto: int | None = None) -> list[SuiteError]:
    """Lines whose key ends in a full-width colon ``：`` (U+FF1A) or whose indentation holds an
    ideographic space (U+3000), said at line:column with what to type. Never inside a quoted
    or block (``|``, ``>``) text; with ``root`` (the file composed) only where YAML read the
    line as plain text. A ``word：`` only where a key is meant: ``word`` is a step kind or a
    case or task key, or keys stand at its indentation (``- Total：100`` in a list of texts
    is a text). Without ``root`` (a syntax error) the lines up to ``upto``."""
    rows = _BREAK.split(text)[:upto]
    if not any(_WIDE_INDENT.match(row) or _WIDE_KEY.match(row) for row in rows):
        return []
    plain_lines = None if root is None else {
        n.line for n in _all_nodes(root) if n.kind == "scalar" and n.plain}
    inside, starts = _token_lines(text)
    said = []
    for number, row in enumerate(rows, 1):
        if number in inside or (plain_lines is not None and number not in plain_lines):
            continue
        if m := _WIDE_INDENT.match(row):
            said.append(SuiteError(file, "an ideographic space (U+3000, a full-width space) "
                                         "in the indentation: YAML reads it as text, not as "
                                         "indentation; indent with spaces", number, m.end()))
        elif (m := _WIDE_KEY.match(row)) and (
                m[2] in _key_words() or _at_keys(starts, number, m.start(2))):
            said.append(SuiteError(file, f"a full-width colon '：' (U+FF1A) after {m[2]}: YAML "
                                         f"reads {row.strip()[:40]!r} as text, not as a key and "
                                         f"its value: type ':' (an ASCII colon, then a space)",
                                   number, m.end()))
    return said


# The case and task keys (farm.suite.casefile's CASE_KEYS and TASK_KEYS, which import this
# module) and the step kinds: a `word：` with one of these is a key typed with a wide colon
_CASE_WORDS = frozenset({"page", "browser", "web", "target", "android", "ios", "tasks", "name",
                         "agent", "config", "timeout", "retries", "tags", "secrets", "vars",
                         "flow", "continueOnError"})


def _key_words() -> set[str]:
    return {*KINDS, *_CASE_WORDS}


_NO_PLACE = (yaml.StreamStartToken, yaml.StreamEndToken, yaml.BlockMappingStartToken,
             yaml.BlockSequenceStartToken, yaml.BlockEndToken)


def _token_lines(text: str) -> tuple[set[int], dict[int, dict[int, bool]]]:
    """(the lines inside a quoted or block text after its first, {line: {column where a token
    starts: whether it is a key}}) for ``text``'s tokens up to a syntax error, lines 1-based
    and columns 0-based."""
    inside: set[int] = set()
    starts: dict[int, dict[int, bool]] = {}
    scanner = _Loader(text)
    try:
        while (token := scanner.get_token()) is not None:
            first, last = token.start_mark.line + 1, token.end_mark.line + 1
            if isinstance(token, yaml.ScalarToken) and not token.plain:
                inside.update(range(first + 1, last + (token.end_mark.column > 0)))
            if not isinstance(token, _NO_PLACE):
                on = starts.setdefault(first, {})
                column = token.start_mark.column
                on[column] = on.get(column, False) or isinstance(token, yaml.KeyToken)
    except yaml.YAMLError:
        pass                        # (compose_text says it)
    finally:
        scanner.dispose()
    return inside, starts


def _at_keys(starts: dict[int, dict[int, bool]], number: int, column: int) -> bool:
    """Whether the nearest line above or below ``number`` that starts something at or left of
    ``column`` has a mapping key at ``column``: a key's place, not a list of texts."""
    for near in (range(number - 1, 0, -1), range(number + 1, max(starts, default=0) + 1)):
        for line in near:
            on = {c: key for c, key in starts.get(line, {}).items() if c <= column}
            if on:
                if on.get(column):
                    return True
                break
    return False


def _all_nodes(root: Node):
    """Every node below ``root`` (and the key nodes of its mappings), in no set order."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.kind == "map":
            stack.extend(node.value.values())
            stack.extend(node.keys.values())
        elif node.kind == "seq":
            stack.extend(node.value)


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """(line, column) of byte ``offset``, the column counted in characters as an editor
    shows it (the line's earlier bytes read as UTF-8)."""
    start = data.rfind(b"\n", 0, offset) + 1
    return (data.count(b"\n", 0, offset) + 1,
            len(data[start:offset].decode("utf-8-sig", errors="replace")) + 1)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, file: str) -> SuiteError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else None
    column = mark.column + 1 if mark else None
    if line is not None:
        src = _BREAK.split(text)
        # libyaml blames either the tab's own line or the line it breaks; look at both.
        for ln in (line, line + 1):
            if ln <= len(src):
                row = src[ln - 1]
                indent = row[: len(row) - len(row.lstrip(" \t"))]
                if "\t" in indent:
                    return SuiteError(file, "tab character in indentation; use spaces",
                                      ln, indent.index("\t") + 1)
    problem = (exc.problem or "").strip()
    context = (exc.context or "").strip()
    start = exc.context_mark
    if start is not None and "quoted scalar" in context and problem.endswith(_UNENDED):
        # The scanner ran to the end looking for the closing quote: the mistake is the quote.
        return SuiteError(file, "unclosed quote: the string that starts here never ends",
                          start.line + 1, start.column + 1)
    if start is not None and line is not None and start.line + 1 < line:
        where = _CONTEXTS.get(context)
        context = (f"{where} that starts at line {start.line + 1}" if where
                   else f"{context}, which starts at line {start.line + 1}")
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if problem.startswith(_COLON_IN_VALUE) and line is not None and column is not None:
        src = _BREAK.split(text)
        message += (_deeper_hint(src, line, column) or _quote_hint(src[line - 1], column))
    elif problem.startswith(_NOT_AN_ITEM) and start is not None and line is not None:
        message += _item_hint(_BREAK.split(text), start.line, line)
    elif "flow" in (exc.context or "") and line is not None and column is not None:
        rows = _BREAK.split(text)
        message += _flow_placeholder_hint(rows[line - 1] if line <= len(rows) else "", column)
    return SuiteError(file, message, line, column)


def _flow_placeholder_hint(row: str, column: int) -> str:
    """For ``[${PERM}]`` or ``{direction: ${DIR}}`` (libyaml blames the ``{`` after ``$``):
    inside a ``[ ]`` or ``{ }`` an unquoted ``{`` starts a mapping. Midscene substitutes
    ``${NAME}`` before it parses the file; farm parses first, so the value needs quotes."""
    if column < 2 or row[column - 2:column] != "${":
        return ""
    ref = re.match(r"\$\{[^}]*\}", row[column - 2:])
    written = ref[0] if ref else "${NAME}"
    return (f"; inside [ ] or {{ }} write {written} in quotes (\"{written}\"): there YAML "
            "takes its { for the start of a mapping")


# A line at a block list's column that is no `- ` item (`flow:` under `- name: t`, not
# under `name:`): libyaml's words for it.
_NOT_AN_ITEM = "did not find expected '-' indicator"
_KEY_AT = re.compile(r"^(\s*(?:-\s+)?)([^\s#'\"-][^:#]*?):(?:\s|$)")


def _item_hint(src: list[str], start: int, line: int) -> str:
    """Where a key of the list's item above ``line`` goes: under the item's first key."""
    if src[line - 1].lstrip().startswith("-"):          # `-assertText: hi`
        return "; a new item of the list starts with '- ' (a dash, then a space)"
    dash = len(src[start]) - len(src[start].lstrip())
    for row in reversed(src[start:line - 1]):
        item = _KEY_AT.match(row)
        if item and row[dash:dash + 1] == "-" and len(row) - len(row.lstrip()) == dash:
            key = src[line - 1].strip().split(":")[0]
            return (f"; line {line} is at the column of the list's '- ' items: to make "
                    f"{key}: part of the item above, indent it to column "
                    f"{len(item[1]) + 1}, under {item[2]}:")
    return ""


def _deeper_hint(src: list[str], line: int, column: int) -> str:
    """A key indented deeper than the key: value line above it (``- aiInput: Username`` then
    ``value: demo`` two columns too far in) reads as more of that value, and its ':' as a
    second key's: say so, rather than to quote the value."""
    row = src[line - 1]
    if row.find(": ") != column - 1 or not _KEY_AT.match(row):
        return ""
    above = next(((n, r) for n in range(line - 1, 0, -1)
                  if (r := src[n - 1]).strip() and not r.lstrip().startswith("#")), None)
    key = _KEY_AT.match(above[1]) if above else None
    if key is None or not above[1][key.end():].strip() or \
            len(row) - len(row.lstrip()) <= len(key[1]):
        return ""
    return (f"; line {line} is indented deeper than {key[2]}: on line {above[0]}, so YAML "
            f"reads it as more of that value: put {row.strip().split(':')[0]}: and {key[2]}: "
            f"at one column ({key[2]}: is at column {len(key[1]) + 1})")


# An unquoted value holding ": " (`assertText: Total: $25.00`) reads as a second key.
_COLON_IN_VALUE = "mapping values are not allowed"
_CREDENTIAL = re.compile(r"_(?:key|token|secret|password)$", re.IGNORECASE)


def _quote_hint(row: str, column: int) -> str:
    """How to write the value of ``row`` whose ``": "`` at ``column`` YAML took for a key's."""
    start = row.find(": ", 0, column - 1)
    value = row[start + 2:].split(" #")[0].strip() if start >= 0 else ""   # less a comment
    if not value or value[0] in "'\"":
        return "; a value holding ': ' must be quoted"
    key = row[:start].strip().removeprefix("- ").strip()
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", key) or _CREDENTIAL.search(key):
        # a variable (vars:), whose value may be a secret: never echoed
        return f"; a value holding ': ' must be quoted: {key}: \"<its value>\""
    quoted = (f'"{value}"' if '"' not in value and "\\" not in value
              else "'" + value.replace("'", "''") + "'")
    return f"; a value holding ': ' must be quoted: {key}: {quoted}"


# A quoted scalar that meets the end of the stream (or a '---') was never closed.
_UNENDED = ("found unexpected end of stream", "found unexpected document separator",
            "found unexpected document indicator")      # PyYAML's and libyaml's words
# What libyaml / PyYAML were inside, said as where the reader should look.
_CONTEXTS = {
    "while parsing a block mapping": "in the mapping",
    "while parsing a block collection": "in the list",
    "while parsing a flow sequence": "in the [ ] list",
    "while parsing a flow mapping": "in the { } mapping",
    "while parsing a block node": "in the value",
    "while parsing a flow node": "in the value",
    "while scanning a simple key": "in the key",
}


class _Composer:
    def __init__(self, text: str, file: str) -> None:
        self.file = file
        self.loader = _Loader(text)
        self.text = text
        self._starts: list[int] | None = None   # where each line of `text` starts
        self.errors: list[SuiteError] = []
        self.anchors: dict[str, Node] = {}      # (each said: `node`)
        self.shared = 0                         # list and mapping aliases read so far
        self.alias_lines: set[int] = set()      # the lines whose aliases were said
        self.anchoring = 0                      # how many anchored values are being read
        self.first_anchor: tuple[int, int, str] | None = None

    def _offset(self, mark: Any) -> int:
        """The index in `text` of a parser mark (its line and column: libyaml's own index
        counts bytes in some versions)."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _BREAK.finditer(self.text)]
        return self._starts[min(mark.line, len(self._starts) - 1)] + mark.column

    def _source(self, event: ScalarEvent) -> str:
        """A scalar's text as written (quotes, escapes and all) when it spans lines or holds a
        ``${``, else "" (see `Node.place`: an error about a placeholder points at it)."""
        if event.end_mark.line == event.start_mark.line and "${" not in event.value:
            return ""
        return self.text[self._offset(event.start_mark):self._offset(event.end_mark)]

    def error(self, line: int, column: int, message: str) -> None:
        self.errors.append(SuiteError(self.file, message, line, column))

    def run(self) -> Node | None:
        get, check = self.loader.get_event, self.loader.check_event
        get()  # StreamStart
        if check(StreamEndEvent):
            return None
        get()  # DocumentStart
        root = self.node(0)
        get()  # DocumentEnd
        if not check(StreamEndEvent):
            mark = self.loader.peek_event().start_mark
            self.error(mark.line + 1, mark.column + 1,
                       "more than one YAML document ('---'): a suite file holds exactly one")
        return root

    def node(self, depth: int) -> Node:
        event = self.loader.get_event()
        line, column = event.start_mark.line + 1, event.start_mark.column + 1
        # an anchor or alias is said (each alias too) and the file still checked: the alias
        # read as the value it names, so what follows is not said on a later run only
        # (a list or mapping alias a few times only: one of a big mapping in every line is
        # not walked over and over; an alias inside an anchored value, a billion laughs'
        # tree of aliases of aliases, stops the file at its first anchor, as it always did)
        if isinstance(event, AliasEvent):
            if self.anchoring:
                first = self.first_anchor
                raise _Fatal(first[0], first[1], f"{ALIASES} (found anchor &{first[2]}, and "
                                                 f"*{event.anchor} inside an anchored value at "
                                                 f"line {line}); repeat the value instead")
            anchored = self.anchors.get(event.anchor)
            if line not in self.alias_lines:        # (one line's aliases said once)
                self.alias_lines.add(line)
                self.error(line, column, f"{ALIASES} (found *{event.anchor}"
                                         + (f", the anchor at line {anchored.line}" if anchored
                                            else "") + "); repeat the value instead")
            if anchored is not None and anchored.kind != "scalar":
                self.shared += 1
                anchored = anchored if self.shared <= MAX_SHARED else None
            return anchored or Node("scalar", line, column, None, raw="", plain=True)
        if event.anchor is not None:
            self.error(line, column, f"{ALIASES} (found anchor &{event.anchor}); repeat the "
                                     "value instead")
            self.first_anchor = self.first_anchor or (line, column, event.anchor)
            self.anchoring += 1
            self.anchors[event.anchor] = self.compose(event, line, column, depth)
            self.anchoring -= 1
            return self.anchors[event.anchor]
        return self.compose(event, line, column, depth)

    def compose(self, event: Any, line: int, column: int, depth: int) -> Node:
        """The node ``event`` (just taken, at ``line``:``column``) starts."""
        if event.tag is not None and event.tag not in _STD_TAGS:
            tag = event.tag.replace("tag:yaml.org,2002:", "!!")
            raise _Fatal(line, column, f"YAML tags are not allowed in suite files "
                                       f"(found {tag})")
        if depth > MAX_DEPTH:
            raise _Fatal(line, column, f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(event, ScalarEvent):
            return self.scalar(event, line, column)
        if isinstance(event, SequenceStartEvent):
            items = []
            while not self.loader.check_event(SequenceEndEvent):
                items.append(self.node(depth + 1))
            self.loader.get_event()
            return Node("seq", line, column, items)
        if isinstance(event, MappingStartEvent):
            return self.mapping(line, column, depth)
        raise _Fatal(line, column, f"invalid YAML: unexpected {type(event).__name__}")

    def mapping(self, line: int, column: int, depth: int) -> Node:
        values: dict[str, Node] = {}
        keys: dict[str, Node] = {}
        inherited: set[str] = set()     # the keys a `<<: *alias` merged in
        while not self.loader.check_event(MappingEndEvent):
            key = self.node(depth + 1)
            value = self.node(depth + 1)
            if key.kind != "scalar":
                self.error(key.line, key.column,
                           f"mapping keys must be plain strings, got {key.describe()}")
                continue
            name = key.raw if key.plain else str(key.value)
            if name == "<<" and key.plain and any(value is n for n in self.anchors.values()):
                # a merge of an alias (said): its keys, as YAML merges them, so what they
                # hold is not also "missing"; a key of this mapping wins over a merged one
                if value.kind == "map":
                    for merged in value.value.keys() - keys.keys():
                        keys[merged], values[merged] = value.keys[merged], value.value[merged]
                        inherited.add(merged)
                continue
            if name in inherited:
                inherited.discard(name)
            elif name in keys:
                first = keys[name]
                self.error(key.line, key.column,
                           f"duplicate key '{name}' (first defined at line {first.line}); "
                           "YAML would silently keep only the last one")
                continue
            keys[name], values[name] = key, value
        self.loader.get_event()
        return Node("map", line, column, values, keys=keys)

    def scalar(self, event: ScalarEvent, line: int, column: int) -> Node:
        raw = event.value
        if not event.implicit[0] or event.tag is not None:   # quoted, or an explicit tag
            tag = event.tag if event.tag not in (None, "!") else "tag:yaml.org,2002:str"
            return Node("scalar", line, column, _construct(tag, raw), raw=raw, plain=False,
                        source=self._source(event))
        tag = self.loader.resolve(yaml.ScalarNode, raw, (True, False))
        number = exponent_number(raw) if tag.endswith(":str") else None
        value = _construct(tag, raw) if number is None else number
        return Node("scalar", line, column, value, raw=raw, plain=True,
                    source=self._source(event))


# A number in exponent notation without YAML 1.1's dot and exponent sign (``1e3``, ``2.5e3``):
# YAML 1.2, which Midscene's js-yaml reads, types it as a number; PyYAML as a string.
_EXPONENT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+\Z")


def exponent_number(text: str) -> float | None:
    """``text`` (an unquoted scalar PyYAML left a string) as the number YAML 1.2 reads in it
    (``1e3`` → 1000.0), or None."""
    return float(text) if _EXPONENT.match(text) else None


def _construct(tag: str, raw: str) -> Any:
    kind = tag.rsplit(":", 1)[-1]
    node = yaml.ScalarNode(tag, raw)
    try:
        if kind == "null":
            return None
        if kind == "bool":
            return _constructor.construct_yaml_bool(node)
        if kind == "int":
            return _constructor.construct_yaml_int(node)
        if kind == "float":
            return _constructor.construct_yaml_float(node)
    except (ValueError, yaml.YAMLError):  # "!!int abc": keep the text, type checks will say
        return raw
    return raw  # str, and timestamps/merge/etc. which suite files treat as text
