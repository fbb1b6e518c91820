"""Finding and killing the browser processes farm launched, with psutil only.

Used from any thread (watchdogs, Ctrl-C): nothing here touches Playwright.
"""

from __future__ import annotations

import os

import psutil


def find_marked_process(marker: str, pid: int | None = None,
                        root: int | None = None) -> psutil.Process | None:
    """A descendant of ``root`` (default: this process) whose command line holds ``marker`` and
    no ``--type=`` switch (i.e. a Chromium main process, not a renderer/zygote).  ``pid`` is
    tried first if given."""
    if pid is not None:
        try:
            proc = psutil.Process(pid)
            if marker in proc.cmdline():     # guards against a reused pid
                return proc
        except psutil.Error:
            pass
    try:
        children = psutil.Process(root or os.getpid()).children(recursive=True)
    except psutil.Error:
        return None
    for proc in children:
        try:
            cmd = proc.cmdline()
        except psutil.Error:
            continue
        if marker in cmd and not any(a.startswith("--type=") for a in cmd):
            return proc
    return None


def kill_tree(proc: psutil.Process) -> None:
    """SIGKILL ``proc`` and all its descendants."""
    try:
        # Collect the renderers/zygotes first: once the parent dies they are reparented and
        # no longer findable as our descendants.
        family = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        family = [proc]
    for p in family:
        try:
            p.kill()
        except psutil.Error:
            pass


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie awaiting its parent's wait() counts as dead)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
