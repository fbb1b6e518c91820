"""The other processes a device deals with: finding and killing the browser processes farm
launched (psutil only), and keeping two farm processes of one machine off one phone
(`PhoneClaim`).

Used from any thread (watchdogs, Ctrl-C): nothing here touches Playwright.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import psutil

log = logging.getLogger(__name__)


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


# ---- one farm process per phone ---------------------------------------------------------------
class PhoneBusy(Exception):
    """Another process of this machine drives the phone (holds its `PhoneClaim`)."""

    def __init__(self, phone: str, pid: int | None) -> None:
        self.phone, self.pid = phone, pid
        holder = f"pid {pid}" if pid else "pid unknown"
        super().__init__(f"{phone} is driven by another farm process on this machine "
                         f"({holder})")


@dataclass
class _Held:
    fd: int | None          # None: no lock could be had here; the phone is driven unclaimed
    path: Path
    count: int = 0          # this process's claims of it (its devices, reopened ones)


_held: dict[str, _Held] = {}
_held_lock = threading.Lock()


@atexit.register
def _let_go_at_exit() -> None:
    """Remove the lock files of the phones this process still holds (a device never closed):
    the kernel lets go of the locks anyway, the temp dir need not keep their files."""
    with _held_lock:
        for held in _held.values():
            if held.fd is not None:
                try:
                    held.path.unlink()
                except OSError:
                    pass
        _held.clear()


def claims_dir() -> Path:
    """Where the phones' lock files are: the temp dir every farm process of the machine sees
    (not the state dir: two runs from two folders must see each other)."""
    return Path(tempfile.gettempdir())


def claim_path(key: str) -> Path:
    """The lock file of the phone ``key`` names."""
    return claims_dir() / f"farm-phone-{hashlib.sha256(key.encode()).hexdigest()[:16]}.lock"


class PhoneClaim:
    """This process's hold of one phone (``key``: its adb server and serial, or its WDA URL):
    an flock on a file in the temp dir, which the kernel lets go of when the process dies, so
    two farm runs of one machine never drive one phone at once (each failed in its own
    confusing way) and a crashed run leaves nothing held. Within one process a phone's claims
    share its lock: the process's own devices never stand in each other's way."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.held = True

    @classmethod
    def take(cls, key: str, phone: str) -> "PhoneClaim":
        """Claim the phone; `PhoneBusy` (naming ``phone`` and the holder's pid) when another
        process holds it. Where no lock can be had (no fcntl, a temp dir farm cannot write),
        the claim is granted unlocked, as before locks."""
        with _held_lock:
            held = _held.get(key)
            if held is None:
                path = claim_path(key)
                held = _held[key] = _Held(_lock(path, phone), path)
            held.count += 1
        return cls(key)

    def release(self) -> None:
        """Let go of the claim (twice is once); the phone's lock goes with the process's
        last claim of it."""
        with _held_lock:
            if not self.held:
                return
            self.held = False
            held = _held[self.key]
            held.count -= 1
            if held.count:
                return
            del _held[self.key]
            if held.fd is not None:     # (a claim of it this process takes next waits)
                try:
                    held.path.unlink()  # (while locked: whoever opened it tries again)
                except OSError:
                    pass
                os.close(held.fd)


def _lock(path: Path, phone: str) -> int | None:
    """A descriptor of ``path`` holding its exclusive flock; PhoneBusy when another process
    holds it. A file its last holder removed as it was opened here is opened again."""
    try:
        import fcntl
    except ImportError:
        return None
    for _ in range(10):
        try:
            fd = _open_lock_file(path)
        except OSError as exc:
            log.debug("driving %s without its lock: %s", phone, exc)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(fd)
            os.close(fd)
            raise PhoneBusy(phone, pid) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            _write_pid(fd)
            return fd
        os.close(fd)
    return None


def _open_lock_file(path: Path) -> int:
    """Read-write (created); read-only where another user's file refuses writing (an flock
    holds all the same; the holder's pid then goes unsaid)."""
    flags = getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644)
    except PermissionError:
        return os.open(path, os.O_RDONLY | flags)


def _write_pid(fd: int) -> None:
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass                   # (read-only: the holder is "pid unknown")


def _pid_in(fd: int) -> int | None:
    """The pid the holder wrote in the lock file, when it still runs."""
    try:
        pid = int(os.pread(fd, 32, 0).decode().strip() or 0)
    except (OSError, ValueError):
        return None
    return pid if pid and alive(pid) else None
