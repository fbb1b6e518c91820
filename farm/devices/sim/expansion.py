"""What a phone's sh (mksh) makes of a command line's words before it runs them, for the
simulated phone's shell: ``$(...)`` and backticks run and give their output, ``$NAME`` /
``${NAME}`` and the special parameters their values, ``~`` the home directory, a ``#``
starting a word a comment, ``(`` and ``)`` a syntax error, and unquoted ``*`` / ``?`` a glob
(`glob`). None of it inside single quotes; in double quotes only ``$`` and backticks. A shell
that took them as plain text would type ``$(touch /tmp/pwned)`` where a phone runs it, and a
test of how farm quotes what it types would prove nothing.

`expand` gives the line back for `shlex` (posix), every expansion's result single-quoted, so
the lexer takes it as the text it is, split into words where sh splits an unquoted one.
"""

from __future__ import annotations

import re
from typing import Callable

GLOB_STAR, GLOB_ONE = "\x02", "\x03"      # an unquoted * and ? (a glob, `glob` expands them)
HOME = "/"                                # adbd's shell user's home, and the shell's cwd
ENV = {"HOME": HOME, "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin",
       "TMPDIR": "/data/local/tmp", "USER": "shell", "SHELL": "/system/bin/sh",
       "0": "/system/bin/sh", "$": "4242", "#": "0"}
# what `ls /` shows on a phone: what a glob of the shell's working directory matches
ROOT = ("acct", "apex", "bin", "bugreports", "cache", "config", "d", "data", "data_mirror",
        "debug_ramdisk", "dev", "etc", "init", "linkerconfig", "lost+found", "metadata", "mnt",
        "odm", "oem", "proc", "product", "sdcard", "storage", "sys", "system", "vendor")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9$#!@*-]")
_WORD_START = " \t\n;&|<>"


def expand(line: str, run: Callable[[str], bytes]) -> str:
    """``line`` with sh's expansions made (``run``: a command substitution's stdout); `$?`
    left for the shell to fill in per command. ValueError for a syntax error."""
    out: list[str] = []
    quote, i = "", 0
    while i < len(line):
        ch = line[i]
        start = not out or out[-1][-1:] in tuple(_WORD_START)
        if quote == "'":
            out.append(ch)
            quote = "" if ch == "'" else quote
        elif ch == "\\" and i + 1 < len(line):
            nxt = line[i + 1]
            if nxt == "\n":                 # a line continued: both go
                pass
            elif quote and nxt in "$`":     # "\$" is a $, as text
                out.append(_literal(nxt, quote))
            else:
                out.append(ch + nxt)
            i += 2
            continue
        elif ch == "'" and not quote or ch == '"':
            quote = "" if quote else ch
            out.append(ch)
        elif ch == "`" or line.startswith("$(", i):
            body, i = _substitution(line, i)
            out.append(_result(run(body).decode("utf-8", "replace").rstrip("\n"), quote))
            continue
        elif line.startswith("$?", i):        # (the status of the command before)
            out.append("$?")
            i += 2
            continue
        elif ch == "$":
            value, i = _parameter(line, i)
            out.append(_result(value, quote) if value is not None else _literal("$", quote))
            continue
        elif quote:
            out.append(ch)
        elif ch == "#":
            if start:                       # a comment, to the line's end
                end = line.find("\n", i)
                i = len(line) if end < 0 else end
                continue
            out.append("'#'")
        elif ch in "()":
            raise ValueError(f"'{ch}' unexpected")
        elif ch == "~" and start and line[i + 1:i + 2] in ("", "/", *_WORD_START):
            out.append(_literal(HOME, ""))
        else:
            out.append({"*": GLOB_STAR, "?": GLOB_ONE}.get(ch, ch))
        i += 1
    return "".join(out)


def _substitution(line: str, i: int) -> tuple[str, int]:
    """The command of the ``$(...)`` or backticks at ``i``, and where the line goes on."""
    if line[i] == "`":
        end = line.find("`", i + 1)
        if end < 0:
            raise ValueError("no closing quote")
        return line[i + 1:end].replace("\\`", "`"), end + 1
    depth, quote, j = 1, "", i + 2
    while j < len(line):
        ch = line[j]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            j += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return line[i + 2:j], j + 1
        j += 1
    raise ValueError("'(' unmatched")


def _parameter(line: str, i: int) -> tuple[str | None, int]:
    """The value of the ``$NAME`` / ``${NAME}`` at ``i`` ("" when unset), and where the line
    goes on; None for a ``$`` that starts none (it is a ``$``)."""
    if line.startswith("${", i):
        end = line.find("}", i)
        if end < 0:
            raise ValueError("missing '}'")
        return ENV.get(line[i + 2:end], ""), end + 1
    m = _NAME.match(line, i + 1)
    if m is None:
        return None, i + 1
    return ENV.get(m.group(), ""), m.end()


def _literal(text: str, quote: str) -> str:
    """``text`` as it is, in a line where ``quote`` is open ("" or '"')."""
    single = "'" + text.replace("'", "'\\''") + "'"
    return f'"{single}"' if quote else single


def _result(text: str, quote: str) -> str:
    """An expansion's result: in double quotes as it is, else split into words at blanks
    (sh's field splitting; an empty one is no word at all)."""
    if quote:
        return _literal(text, quote)
    fields = text.split()
    if not fields:
        return " " if text else ""
    lead = " " if text[:1].isspace() else ""
    tail = " " if text[-1:].isspace() else ""
    return lead + " ".join(_literal(f, "") for f in fields) + tail


def glob(word: str, files: list[str]) -> list[str]:
    """A word with unquoted ``*`` / ``?`` (marked GLOB_STAR / GLOB_ONE) as sh expands it: the
    names it matches in the working directory (`ROOT`) or, for a path, among ``files`` and
    the root's entries, sorted; the word as written when none match."""
    if GLOB_STAR not in word and GLOB_ONE not in word:
        return [word]
    rx = re.compile("".join("[^/]*" if c == GLOB_STAR else "[^/]" if c == GLOB_ONE
                            else re.escape(c) for c in word))
    names = list(ROOT) + ["/" + n for n in ROOT] + files
    hits = sorted({n for n in names if rx.fullmatch(n) and
                   not any(part.startswith(".") for part in n.split("/"))})
    return hits or [word.replace(GLOB_STAR, "*").replace(GLOB_ONE, "?")]
