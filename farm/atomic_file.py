"""Writing a file whole or not at all (a new file renamed over the old one). Light on imports:
``farm run`` replaces its ``--junit-xml`` with it in its first moments, before anything slow."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def discard(tmp: Path) -> None:
    """Remove the temporary file of a write that failed, when there is one to remove (no stray
    ``*.tmp`` left beside an output not written); never raises over the write's own error."""
    try:
        Path(tmp).unlink()
    except OSError:
        pass


def replace_file(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole or not at all: into a temporary file of a fresh random
    name beside it, then renamed over ``path``. The temporary file is created exclusively and
    without following a symlink, so nothing planted in the folder (a ``report.html.tmp``
    symlink to someone's file) is ever written through; a symlink at ``path`` itself is
    replaced, not followed."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, 0o666)         # the umask decides, as for any file farm writes
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    return path
