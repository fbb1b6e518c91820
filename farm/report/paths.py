"""Where farm writes its outputs, checked before the work that fills them: a path that cannot
be written is the user's to fix (ConfigError, exit 4), said up front, never found out after a
run. Light on imports: ``farm report --history`` checks its ``--out`` with it too."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from farm.atomic_file import discard, replace_file  # noqa: F401  (whole or not at all)
from farm.errors import ConfigError


# What a path in the way of a folder may be, as a message names it.
_KINDS = ((stat.S_ISREG, "a file"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISSOCK, "a socket"))


def _kind(path: Path) -> str | None:
    """What ``path`` is when it is there and no folder (``/dev/null``: "a character
    device"); None for a folder or nothing."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "no folder")


def _reason(path: Path, exc: OSError, shown: Path) -> str:
    """Why ``path`` (a folder for ``shown``) cannot be written: what is in the way, by name
    unless it is ``shown`` itself, else the system's word ("File exists" said nothing of
    ``/dev/null``)."""
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        blocker = next(((p, kind) for p in (path, *path.parents) if (kind := _kind(p))), None)
        if blocker is not None:
            return f"is {blocker[1]}" if blocker[0] == shown else f"{blocker[0]} is {blocker[1]}"
    return exc.strerror or str(exc)


def writable_dir(path: Path, what: str, shown: Path | None = None, hint: str = "") -> None:
    """``path`` is a directory farm may write into (made when missing); else a ConfigError
    ``<what> <shown or path>: cannot write there (<reason>)[; <hint>]``; when ``path`` itself
    is no folder (a file, ``/dev/null``) the reason says it must be one."""
    path = Path(path)
    try:
        _made(path)
        probe = path / f".farm-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        kind = _kind(path) if shown in (None, path) else None
        reason = f"is {kind}; it must be a folder" if kind else _reason(path, exc,
                                                                        shown or path)
        raise ConfigError(f"{what} {shown or path}: cannot write there ({reason})"
                          + (f"; {hint}" if hint else "")) from None


def _made(path: Path) -> None:
    """The folder ``path`` made when missing; one that cannot be made (a folder of /proc, a
    read-only disk) says so, and which (``/proc/farmx``'s "No such file or directory" read as
    if something were missing that the user could make)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise                   # (something in the way: `_reason` names it)
    except OSError as exc:
        if path.is_dir():
            raise
        there = next((p for p in path.parents if p.is_dir()), None)
        missing = next((p for p in (*reversed(path.parents), path)   # (not "." itself: the
                        if there is not None and p != there and p.parent == there), path)
        why = exc.strerror or str(exc)                              # parent of "." is ".")
        if exc.errno == errno.ENOENT and there is not None:
            why = f"{os.path.abspath(there)} takes no new folders"
        raise OSError(exc.errno, f"cannot create the folder {_full(missing)}: {why}") from None


def _full(path: Path) -> str:
    """``path`` as a message shows it: a relative one with its absolute path beside it
    (``out (/srv/ci/out)``: "." alone said nothing of where)."""
    return str(path) if path.is_absolute() else f"{path} ({os.path.abspath(path)})"


def check_tmpdir(env: dict[str, str] | None = None) -> None:
    """TMPDIR, when set, is a folder temporary files can be made in, else a ConfigError
    naming it: Python's tempfile falls back to another folder without a word, Playwright's
    driver (Node) does not, and every browser failed to launch ("ENOENT ... mkdtemp"), each
    case recorded as a lost device (exit 3) for a setting's mistake."""
    value = (os.environ if env is None else env).get("TMPDIR")
    if not value:
        return
    import tempfile
    path = Path(value)
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".farm-tmpdir-check-", dir=path))
    except OSError as exc:
        kind, missing = _kind(path), isinstance(exc, FileNotFoundError)
        reason = f"is {kind}, not a folder" if kind else "no such folder" if missing \
            else _reason(path, exc, path)
        raise ConfigError(f"TMPDIR {value}: temporary files cannot be made there ({reason}; "
                          f"the browser's driver makes its own there): "
                          f"{'create that folder, or ' if missing else ''}set TMPDIR to a "
                          f"folder that can be written, or unset it") from None


def writable_file(path: Path, what: str) -> None:
    """``path`` is a file farm may write (replace): not a directory, in a folder it can write
    into (made when missing)."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{what} {path}: cannot write there (is a directory)")
    writable_dir(path.parent, what, shown=path)


def check_outputs(junit_xml: Path | None = None, alluredir: Path | None = None) -> None:
    """``--junit-xml`` and ``--alluredir``, checked before anything runs or is rebuilt."""
    if junit_xml is not None:
        writable_file(Path(junit_xml), "--junit-xml")
    if alluredir is not None:
        writable_dir(Path(alluredir), "--alluredir")


def why_not_written(path: Path, exc: BaseException) -> str:
    """Why writing ``path`` (a file or a directory farm writes into) failed, in a few words:
    what is in the way, the system's word, or a bug's exception."""
    if not isinstance(exc, OSError):
        return f"{type(exc).__name__}: {exc}"
    path = Path(path)
    if path.is_dir() and isinstance(exc, IsADirectoryError):
        return "is a directory"
    return _reason(path, exc, path)


def run_file(run_dir: Path, rel: str | None) -> Path | None:
    """The artifact ``rel`` of the run in ``run_dir`` as a resolved path, when it is a file
    inside that folder; None otherwise (missing, or a results.json naming a file elsewhere:
    ``../``, an absolute path, a symlink out), so no report copies or links a file of the
    machine that is not the run's."""
    if not rel:
        return None
    root = Path(run_dir).resolve()
    path = (root / rel).resolve()
    return path if path.is_relative_to(root) and path.is_file() else None
