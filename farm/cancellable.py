"""A blocking call that its caller stops waiting for at once when told to.

litellm's ``completion()`` blocks in a socket read for up to FARM_MODEL_TIMEOUT, facebook-wda's
HTTP calls for up to its timeout, and neither can be told to stop. Given an event (the run's
cancel, set by Ctrl-C / SIGTERM; a device's kill, set by the watchdog), the call runs in a
thread of its own and the caller waits for whichever comes first, the answer or the event; an
abandoned call is left to end by itself and its answer is dropped. The thread is a daemon: it
never holds up the process's exit.
"""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

T = TypeVar("T")
POLL_S = 0.05       # how often the waiting thread looks at the cancel event during a call


class Cancelled(Exception):
    """The run stopped before the call answered."""


def call_unless_cancelled(call: Callable[[], T], cancel: threading.Event | None,
                          name: str = "call") -> T:
    """``call()``'s result or exception; Cancelled as soon as ``cancel`` is set while the
    call runs (the caller checks it before: a call is started, then maybe abandoned). Without
    ``cancel`` the call runs in the caller's thread."""
    if cancel is None:
        return call()
    done = threading.Event()
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:   # noqa: BLE001 - handed to the waiting thread
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name=name, daemon=True).start()
    while not done.wait(POLL_S):
        if cancel.is_set():
            raise Cancelled()
    ok, value = outcome[0]
    if not ok:
        raise value     # type: ignore[misc]
    return value        # type: ignore[return-value]
