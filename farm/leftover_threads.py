"""Threads left running at exit: Python's exit waits for every non-daemon thread, so one a
device plugin started and never stopped (a poller its open() started) kept `farm run` (after
its summary and report) and a drained `farm worker` device process alive for ever, silently.
At exit a watchdog waits a little for them, then names them and ends the process with its own
exit code."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections import Counter

PATIENCE = 5.0      # seconds the interpreter's exit may wait for threads still running
SHOWN = 5           # thread names said (then "and N more")


def exit_watched(code: int, who: str, patience: float = PATIENCE) -> None:
    """Call right before leaving with ``code`` (sys.exit): the exit waits up to ``patience``
    seconds for the non-daemon threads still running (an idle thread pool ends as the exit
    begins), then says which remain on stderr, once, and ends with ``code`` without them.
    Only for a process of its own: it ends the whole process."""
    threading.Thread(target=_watch, args=(code, who, patience), name="farm-exit-watch",
                     daemon=True).start()


def _watch(code: int, who: str, patience: float) -> None:
    deadline = time.monotonic() + patience
    for thread in _running():
        thread.join(max(0.0, deadline - time.monotonic()))
    left = _running()
    if not left:
        return      # (the exit goes on by itself)
    own = all((_module_of(t) or "").split(".")[0] in ("farm", "worker", "threading")
              for t in left)
    hint = ("farm's own: please report it" if own else
            "a device plugin's threads end in its close(), or are daemon threads")
    print(f"{who}: {describe(left)}: not waited for, exiting ({hint})", file=sys.__stderr__,
          flush=True)
    _exit_handlers()
    _flush_all()
    os._exit(code)


def _exit_handlers() -> None:
    """What the interpreter's exit would have run after the threads: the atexit handlers
    (the cache's WAL merged into cache.db, a --junit-xml still saying "not finished", the
    report folder's claim and reserved room, phone locks), which os._exit skips."""
    import atexit
    try:
        atexit._run_exitfuncs()     # (each once: they are unregistered as they run)
    except Exception:       # (one handler's error is printed by atexit itself)
        pass


def _running() -> list[threading.Thread]:
    """Non-daemon threads other than the main one (and this one) still running."""
    here, main = threading.current_thread(), threading.main_thread()
    return [t for t in threading.enumerate()
            if t is not here and t is not main and not t.daemon and t.is_alive()]


def describe(threads: list[threading.Thread]) -> str:
    """"21 threads still running (poll ×20, Thread-3 (tick)) started by tvplug"."""
    names = Counter(t.name for t in threads)       # (20 pollers alike: "poll ×20")
    said = [name if n == 1 else f"{name} ×{n}" for name, n in names.items()]
    shown = ", ".join(said[:SHOWN]) + (f" and {len(said) - SHOWN} more"
                                       if len(said) > SHOWN else "")
    modules = sorted({m for m in map(_module_of, threads) if m})
    n = len(threads)
    return (f"{n} thread{'s' if n != 1 else ''} still running ({shown})"
            + (f" started by {', '.join(modules)}" if modules else ""))


def _module_of(thread: threading.Thread) -> str | None:
    """The module of the code the thread runs: its target's, or its Thread subclass's."""
    target = getattr(thread, "_target", None)
    if target is not None:
        return getattr(target, "__module__", None)
    if type(thread).run is not threading.Thread.run:
        return type(thread).__module__
    return None


def _flush_all() -> None:
    for handler in logging.getLogger().handlers:
        try:
            handler.flush()
        except Exception:       # (a closed stream: nothing more to write there)
            pass
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:       # (a reader that left, a closed stream)
            pass
