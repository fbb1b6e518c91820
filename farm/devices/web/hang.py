"""A page that stopped responding: a script of the page that does not return (``onclick="while
(true){}"``) holds the renderer's main thread, and every Playwright call on the page waits for
ever (a click's input event is never acknowledged, a script never answered).

`HangGuard` watches the device's Playwright calls from a thread of its own, as Chromium's own
hang monitor does: a call still running after HUNG_AFTER_S, the page's main thread is pinged
(a trivial script); no answer within PING_S and the page is hung. The guard then closes the
case's page (its browser context: the pending call fails at once, the browser carries on), or,
when closing does not end the call within CLOSE_S, kills the browser. The call's failure is
the case's (the page's doing), not the browser's: `HangGuard.hung` says why.

Chromium calls a renderer hung when an input event is unanswered for 15 s and a ping of its
main thread then gets no answer within 1 s (components/input/input_constants.h,
kHungRendererDelay, kHungRendererPingTimeout); the ping here goes through the Playwright
driver on a machine that may be loaded, hence a few seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

log = logging.getLogger(__name__)

HUNG_AFTER_S = 15.0    # a call this long on the page: is its main thread still answering?
PING_S = 5.0           # no answer to the ping within this: the page is hung
CLOSE_S = 10.0         # the hung call not ended this long after closing the page: kill
IDLE_S = 60.0          # the watching thread ends after this long without a call to watch


class HangGuard:
    """Watches the calls made inside `watch` (nested ones count as their outermost).

    ``ping(seconds)`` (any thread) says whether the page's main thread answered within
    ``seconds``; ``close()`` (any thread) starts closing the page, False when it cannot;
    ``kill()`` (any thread) ends the browser."""

    def __init__(self, name: str, ping: Callable[[float], bool], close: Callable[[], bool],
                 kill: Callable[[], None], after: float = HUNG_AFTER_S,
                 ping_s: float = PING_S, close_s: float = CLOSE_S) -> None:
        self.name = name
        self._ping, self._close, self._kill = ping, close, kill
        self.after, self.ping_s, self.close_s = after, ping_s, close_s
        self.hung: str | None = None      # why the page is gone: "the page stopped responding"
        self._cond = threading.Condition()
        self._depth = 0
        self._call = 0                    # which outermost call runs (counts them)
        self._since: float | None = None  # when it began, or when the page last answered
        self._what = ""
        self._ended = 0                   # the last call the guard ended (closed, killed)
        self._thread: threading.Thread | None = None

    def reset(self) -> None:
        """A new session: its page has not hung."""
        self.hung = None

    @contextmanager
    def watch(self, what: str) -> Iterator[None]:
        """Watch the calls inside as ``what`` ("tap")."""
        with self._cond:
            self._depth += 1
            if self._depth == 1:
                self._call += 1
                self._since, self._what = time.monotonic(), what
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, daemon=True,
                                                    name=f"hang-guard-{self.name}")
                    self._thread.start()
        try:
            yield
        finally:
            with self._cond:
                self._depth -= 1
                if self._depth == 0:
                    self._since = None
                    if self.hung is not None:
                        self._cond.notify_all()      # a recovery waits for the call's end

    def _run(self) -> None:
        idle_since = time.monotonic()
        while True:
            with self._cond:
                now = time.monotonic()
                if self._since is None:
                    if now - idle_since > IDLE_S:
                        self._thread = None
                        return
                    self._cond.wait(self.after)
                    continue
                idle_since = now
                call, due = self._call, self._since + self.after
                if call == self._ended or now < due:    # (ended: its end is coming)
                    self._cond.wait(max(due - now, 0) or self.after)
                    continue
            self._check(call)

    def _still(self, call: int) -> bool:
        return self._since is not None and self._call == call

    def _check(self, call: int) -> None:
        """The call ``call`` has run HUNG_AFTER_S since it began (or the page last answered):
        ping the page; an answer re-arms the watch, none is a hang."""
        began = time.monotonic()
        answered = self._ping(self.ping_s)
        with self._cond:
            if not self._still(call):
                return
            if answered:
                self._since = time.monotonic()
                return
            took = began - (self._since or began) + self.ping_s
            self.hung = (f"the page stopped responding during {self._what}: a script of the "
                         f"page did not return for {took:.0f} s (an endless loop?)")
        self._recover(call)

    def _recover(self, call: int) -> None:
        """Close the hung page; the browser goes only when that does not end the call."""
        with self._cond:
            self._ended = call
            said, self.hung = self.hung, f"{self.hung}; farm closed the page"
        log.warning("%s: %s; closing the page", self.name, said)
        if self._close():
            with self._cond:
                limit = time.monotonic() + self.close_s
                while self._still(call) and time.monotonic() < limit:
                    self._cond.wait(limit - time.monotonic())
        with self._cond:
            if not self._still(call):
                return
            self.hung = f"{said}; closing the page did not end it: farm restarted the browser"
        log.warning("%s: the hung page did not close: killing the browser", self.name)
        self._kill()
