"""A process's own scratch folder under TMPDIR, and the sweep of those whose process is gone.

A `farm worker` device process killed hard (SIGKILL, a double Ctrl-C, an OOM kill) left its
case folders (``farm-case-*``) and those of Playwright's driver and Chromium
(``playwright_chromiumdev_profile-*``, ``playwright-artifacts-*``) in TMPDIR for good. Such a
process now puts its case folders in a folder of its own, ``$TMPDIR/farm-scratch-<pid>-<rand>``,
and points TMPDIR there for what it starts (Playwright's driver, Chromium), so theirs land
inside too. It holds an flock on the folder's ``.lock`` for its life: the kernel drops
the lock however the process ends, so a folder whose lock another process can take belongs to
no live process, and `sweep` removes it. Nothing else in TMPDIR is touched: another program's
folders, or another live farm's, stay.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

PREFIX = "farm-scratch-"
LOCK = ".lock"
YOUNG_S = 300.0     # a folder changed this recently is left alone (its owner may be starting)
_held: list[tuple[int, Path, str | None]] = []  # this process's folder: its lock, open (so
#                                              held) until it ends; the TMPDIR before it


def own(base: Path | None = None) -> Path:
    """Make this process's scratch folder under ``base`` (TMPDIR), after sweeping the folders
    of processes gone, and point TMPDIR (and `tempfile`) there; the folder."""
    base = Path(base or tempfile.gettempdir())
    sweep(base)
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base))
    fd = os.open(path / LOCK, os.O_CREAT | os.O_WRONLY, 0o600)    # (not inherited: O_CLOEXEC)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, f"{os.getpid()}\n".encode())
    _held.append((fd, path, os.environ.get("TMPDIR")))
    # the processes it starts (Playwright's driver, Chromium) make theirs here; its own
    # `tempfile` stays on the machine's temp dir, where every farm process of the machine
    # sees the others' lock files (phones claimed: farm.devices.procs; pushes: pushgateway)
    tempfile.tempdir = str(base)
    os.environ["TMPDIR"] = str(path)
    return path


def here() -> Path | None:
    """This process's scratch folder (None before `own`): where its case folders go."""
    return _held[-1][1] if _held else None


def leave() -> None:
    """Remove this process's scratch folder (its devices closed) and point TMPDIR back where
    it was (a process that starts afresh by exec makes its own there)."""
    while _held:
        fd, path, before = _held.pop()
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
        shutil.rmtree(path, ignore_errors=True)
        os.close(fd)


def sweep(base: Path, now: float | None = None) -> list[Path]:
    """Remove the scratch folders under ``base`` that belong to no live process (their lock
    can be taken) and have not changed for YOUNG_S; the folders removed."""
    now = time.time() if now is None else now
    removed = []
    for path in sorted(base.glob(f"{PREFIX}*")):
        try:
            if path.is_symlink() or not path.is_dir() or now - path.stat().st_mtime < YOUNG_S:
                continue
            if _stale(path):
                removed.append(path)
        except OSError:         # another user's, or removed meanwhile by another sweep
            continue
    return removed


def _stale(path: Path) -> bool:
    """Remove ``path`` if its lock can be taken (held while removing: a second sweep skips
    it); whether it was."""
    try:
        fd = os.open(path / LOCK, os.O_RDONLY)
    except FileNotFoundError:   # made, its process gone before it locked it
        shutil.rmtree(path, ignore_errors=True)
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:     # its process is alive
        os.close(fd)
        return False
    try:
        shutil.rmtree(path, ignore_errors=True)
    finally:
        os.close(fd)
    return True
