"""Where farm writes its outputs, checked before the work that fills them: a path that cannot
be written is the user's to fix (ConfigError, exit 4), said up front, never found out after a
run. Light on imports: ``farm report --history`` checks its ``--out`` with it too."""

from __future__ import annotations

import os
from pathlib import Path

from farm.errors import ConfigError


def _reason(path: Path, exc: OSError, shown: Path) -> str:
    """Why ``path`` (a folder for ``shown``) cannot be written: a file in the way, by name
    unless it is ``shown`` itself, else the system's word."""
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        blocker = next((p for p in (path, *path.parents) if p.is_file()), None)
        if blocker is not None:
            return "is a file" if blocker == shown else f"{blocker} is a file"
    return exc.strerror or str(exc)


def writable_dir(path: Path, what: str, shown: Path | None = None) -> None:
    """``path`` is a directory farm may write into (made when missing); else a ConfigError
    ``<what> <shown or path>: cannot write there (<reason>)``."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".farm-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = _reason(path, exc, shown or path)
        raise ConfigError(f"{what} {shown or path}: cannot write there ({reason})") from None


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


def discard(tmp: Path) -> None:
    """Remove the temporary file of a write that failed, when there is one to remove (no stray
    ``*.tmp`` left beside an output not written); never raises over the write's own error."""
    try:
        Path(tmp).unlink()
    except OSError:
        pass
