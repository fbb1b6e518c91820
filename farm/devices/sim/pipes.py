"""What a simulated phone's toybox does with a command's output after a ``|``: ``grep``,
``head``, ``tail``, ``wc -l``, so a suite's ``runAdbShell: dumpsys window | grep mCurrentFocus``
or ``logcat -d | grep -c "FATAL EXCEPTION"`` gets the answer and exit code a phone gives
(grep: 1 when nothing matched), where the ``|`` and what followed were taken as arguments of
the first command and the line passed with its whole output. And where sh sends it with
``>`` / ``>>`` / ``2>&1`` (`redirections`, `route`).
"""

from __future__ import annotations

import re
from typing import Callable

Result = tuple[bytes, bytes, int]


def grep(args: list[str], data: bytes) -> Result:
    """``grep [-q] [-c] [-i] [-v] [-E|-F] [-e] PATTERN`` over ``data``."""
    flags: set[str] = set()
    pattern: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "-e" and rest:
            pattern = rest.pop(0)
        elif arg.startswith("-") and len(arg) > 1 and pattern is None:
            flags.update(arg[1:])
        elif pattern is None:
            pattern = arg
    if pattern is None:
        return b"", b"usage: grep [-cEFivq] PATTERN\n", 2
    text = re.escape(pattern) if "F" in flags else _basic(pattern, "E" in flags)
    try:
        rx = re.compile(text, re.I if "i" in flags else 0)
    except re.error as exc:
        return b"", f"grep: bad regex '{pattern}': {exc}\n".encode(), 2
    lines = data.decode("utf-8", "replace").splitlines()
    hits = [line for line in lines if bool(rx.search(line)) != ("v" in flags)]
    code = 0 if hits else 1
    if "q" in flags:
        return b"", b"", code
    if "c" in flags:
        return f"{len(hits)}\n".encode(), b"", code
    return "".join(line + "\n" for line in hits).encode(), b"", code


def _basic(pattern: str, extended: bool) -> str:
    """A grep pattern as a Python one: in a basic one ``+ ? | ( ) { }`` are literal unless
    escaped, the other way round from an extended one."""
    if extended:
        return pattern
    out, escaped = [], False
    for ch in pattern:
        if escaped:
            out.append(ch if ch in "+?|(){}" else "\\" + ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        else:
            out.append("\\" + ch if ch in "+?|(){}" else ch)
    return "".join(out)


def _count(args: list[str], default: int = 10) -> int:
    for i, arg in enumerate(args):
        if arg == "-n" and i + 1 < len(args):
            return int(args[i + 1])
        if arg.startswith("-n"):
            return int(arg[2:])
        if arg[:1] == "-" and arg[1:].isdigit():
            return int(arg[1:])
    return default


def head(args: list[str], data: bytes) -> Result:
    lines = data.splitlines(keepends=True)
    return b"".join(lines[:_count(args)]), b"", 0


def tail(args: list[str], data: bytes) -> Result:
    lines = data.splitlines(keepends=True)
    n = _count(args)
    return b"".join(lines[-n:] if n else []), b"", 0


def wc(args: list[str], data: bytes) -> Result:
    """``wc [-lwcm]``: the counts asked for (all three when none), in toybox's order."""
    flags = {f for a in args if a.startswith("-") for f in a[1:]}
    counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
              "m": len(data.decode("utf-8", "replace"))}
    asked = [f for f in "lwmc" if f in flags] or ["l", "w", "c"]
    return (" ".join(str(counts[f]) for f in asked) + "\n").encode(), b"", 0


FILTERS: dict[str, Callable[[list[str], bytes], Result]] = {
    "grep": grep, "head": head, "tail": tail, "wc": wc,
}


def stages(argv: list[str]) -> list[list[str]]:
    """A command's words split at each ``|`` into the commands of its pipeline."""
    out: list[list[str]] = [[]]
    for word in argv:
        if word == "|":
            out.append([])
        else:
            out[-1].append(word)
    return out


def pipe_through(first: Result, rest: list[list[str]],
                 command: Callable[[list[str]], Result] | None = None) -> Result:
    """``first``'s output through the filters ``rest`` names, as sh runs a pipeline: each
    reads the one before's stdout; stderr of all is kept; the exit code is the last one's. A
    stage that is no filter runs as ``command`` runs it (its input unread), as a phone runs
    it; without ``command`` it is sh's 127, as for a first command it does not have."""
    out, err, code = first
    for argv in rest:
        if not argv:
            return b"", err + b"/system/bin/sh: syntax error: '|' unexpected\n", 2
        run = FILTERS.get(argv[0])
        if run is None and command is not None:
            out, more, code = command(argv)
            err += more
            continue
        if run is None:
            return b"", err + f"/system/bin/sh: {argv[0]}: inaccessible or not found\n" \
                .encode(), 127
        try:
            out, more, code = run(argv[1:], out)
        except ValueError as exc:
            out, more, code = b"", f"{argv[0]}: bad arguments: {exc}\n".encode(), 1
        err += more
    return out, err, code


REDIRECT = "\x01"     # an unquoted ">" of a line (`androidshell` marks it before splitting)
_REDIRECT = re.compile(r"(\d?)\x01(\x01?)(.*)", re.S)

Redirection = tuple[int, bool, str]      # fd, append, target (a file, or "&1" / "&2")


def redirections(argv: list[str]) -> tuple[list[str], list[Redirection]]:
    """A command's words without its redirections (``> FILE``, ``2>/dev/null``, ``>> FILE``,
    ``2>&1``: its ">"s marked REDIRECT), and those, in order."""
    words: list[str] = []
    found: list[Redirection] = []
    i = 0
    while i < len(argv):
        m = _REDIRECT.fullmatch(argv[i])
        if m is None:
            words.append(argv[i])
            i += 1
            continue
        target = m.group(3)
        if not target and i + 1 < len(argv):
            i += 1
            target = argv[i]
        if target == "&" and i + 1 < len(argv):      # 2>&1: the lexer split it at "&"
            i += 1
            target = "&" + argv[i]
        found.append((int(m.group(1) or 1), bool(m.group(2)), target))
        i += 1
    return words, found


def redirections_of(rest: list[list[str]]) -> tuple[list[list[str]], list[Redirection]]:
    """The stages after a pipeline's first without their redirections, and those (applied to
    the pipeline's output: its filters write nothing else)."""
    found: list[Redirection] = []
    stripped = []
    for argv in rest:
        words, more = redirections(argv)
        stripped.append(words)
        found += more
    return stripped, found


def route(out: bytes, err: bytes, found: list[Redirection],
          files: dict[str, bytes]) -> tuple[bytes, bytes]:
    """Where ``out`` and ``err`` go by the redirections ``found`` (taken left to right, as sh
    does: ``> /dev/null 2>&1`` sends both away): what is left of them, the rest written to
    ``files`` (a phone's files; /dev/null keeps nothing)."""
    where: dict[int, tuple[str, ...]] = {1: ("out",), 2: ("err",)}
    for fd, append, target in found:
        if target in ("&1", "&2"):
            where[fd] = where[int(target[1])]
        else:
            where[fd] = ("file", target)
            if not append and target != "/dev/null":
                files[target] = b""             # (opened for writing: emptied)
    left = {"out": b"", "err": b""}
    for fd, data in ((1, out), (2, err)):
        dest = where.get(fd, ("out",) if fd == 1 else ("err",))
        if dest[0] != "file":
            left[dest[0]] += data
        elif dest[1] != "/dev/null":
            files[dest[1]] = files.get(dest[1], b"") + data
    return left["out"], left["err"]
