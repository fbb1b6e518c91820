"""One model request, waited for no longer than its time (and never once the run stops).

httpx's timeout bounds each read of a reply, not the request: an endpoint that drips its
answer a few bytes at a time kept a request of timeout 2 s going for 15 s, and the step or the
case that gave it those 2 s with it. `send` runs the request in a thread of its own
(`farm.cancellable`) and stops waiting at its end: the request's timeout on OpenAI-compatible
endpoints, whose httpx read timeout is LATE_ANSWER_S longer (`LiteLLMClient._http_timeout`:
httpx's own timeout had closed the connection first, and no answer ever came late); elsewhere
``GRACE_S`` past it, httpx's own timeout ending it first. An abandoned request
goes on for ``LATE_ANSWER_S`` more: an answer that still comes goes to ``late``, for what it
spent to be counted (the endpoint was paid for it). Then it is ended: what its HTTP stack
registered with `on_abandon` (farm's httpx client for the model: `farm.llm.capped_http`) closes
its connection, and the thread ends with it (an endpoint that kept dripping a reply held it for
as long as it sent); at once when the run stops. A request with no such handle (litellm's own
HTTP client, for providers other than OpenAI-compatible ones) goes on by itself. An answer
counts while the run lasts, also after the case that asked for it ended; the run's end
(`run_ended`) waits for none: farm.log says which requests had not answered by then.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Any, Callable, TypeVar

from farm.cancellable import Cancelled, call_unless_cancelled

T = TypeVar("T")
GRACE_S = 0.5       # past a request's timeout, how long it is waited for before it is abandoned
LATE_ANSWER_S = 60.0    # how long an abandoned request may still answer (for its spend)

log = logging.getLogger("farm.llm")


class Abandoned(Exception):
    """The request's time ran out before its answer came (the run did not stop)."""


class _Watch:
    """What `call_unless_cancelled` looks at: set once the run stops or the time is up."""

    def __init__(self, cancel: threading.Event | None, end: float, name: str = "call") -> None:
        self.cancel, self.end, self.name = cancel, end, name
        self.lock = threading.Lock()
        self.waiting = True          # someone still waits for the answer
        self.answer: list[Any] = []  # the answer, when it came while someone waited
        self.closers: list[Callable[[], None]] = []   # what ends the request (`on_abandon`)
        self.closed = False          # the closers ran: one registered later runs at once
        self.done = False            # the request ended (answered or raised)

    def is_set(self) -> bool:
        return (self.cancel is not None and self.cancel.is_set()) or time.monotonic() >= self.end

    def abandon(self, after: float) -> None:
        """No one waits any more: end the request ``after`` seconds from now (its closers run,
        once), letting an answer still come for its spend until then."""
        with self.lock:
            self.waiting = False
        if after <= 0:
            self.close()
            return
        timer = threading.Timer(after, self.close)
        timer.daemon = True
        timer.start()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            closers, self.closers = self.closers, []
        _answered(self)
        for close in closers:
            _quietly(close)


_sending = threading.local()     # .watch: the watch of the request this thread sends
_answering: set[_Watch] = set()  # abandoned requests whose answer may still come (`run_ended`)
_answering_lock = threading.Lock()


def run_ended() -> None:
    """The run ends: the requests farm stopped waiting for at their timeout whose answer has
    not come are not waited for (their connections closed, where farm can): farm.log says
    which, as their spend, if the endpoint processed them, is counted nowhere."""
    with _answering_lock:
        watches = list(_answering)
    for watch in watches:
        watch.close()
    for name, n in sorted(Counter(w.name for w in watches).items()):
        log.info("%s: %s given up at %s timeout had not answered when the run ended: %s "
                 "spend is not counted", name, f"{n} request" if n == 1 else f"{n} requests",
                 "its" if n == 1 else "their", "its" if n == 1 else "their")


def on_abandon(close: Callable[[], None]) -> None:
    """Called in a request's thread, from inside the request `send` runs (an HTTP response
    hook): ``close`` (which ends the request: shuts its connection) runs when the abandoned
    request's time to still answer is over (`_Watch.abandon`), at once if it already is.
    Outside `send`, nothing happens."""
    watch = getattr(_sending, "watch", None)
    if watch is None:
        return
    with watch.lock:
        if not watch.closed:
            watch.closers.append(close)
            return
    _quietly(close)


def _still_answering(watch: _Watch) -> None:
    """``watch``'s request, abandoned, may answer until it ends or its closers run:
    `run_ended` says it if it has not by then."""
    with watch.lock:
        if watch.done or watch.closed:
            return
        with _answering_lock:
            _answering.add(watch)


def _answered(watch: _Watch) -> None:
    with _answering_lock:
        _answering.discard(watch)


def _quietly(close: Callable[[], None]) -> None:
    try:
        close()
    except Exception:    # noqa: BLE001 - a connection already gone: nothing to end
        pass


def send(call: Callable[[], T], cancel: threading.Event | None, end: float,
         late: Callable[[T], None], name: str = "call") -> T:
    """``call()``'s answer or exception; Cancelled as soon as ``cancel`` is set, Abandoned
    once ``end`` (monotonic seconds) has passed. ``late(answer)`` gets an answer that comes
    after the caller stopped waiting (in the request's thread; its errors are dropped)."""
    watch = _Watch(cancel, end, name)

    def run() -> T:
        _sending.watch = watch
        try:
            answer = call()
        finally:
            _sending.watch = None
            with watch.lock:
                watch.done = True
            _answered(watch)
        with watch.lock:
            if watch.waiting:
                watch.answer.append(answer)
                return answer
        late(answer)
        return answer

    try:
        return call_unless_cancelled(run, watch, name)   # type: ignore[arg-type]
    except Cancelled:
        stopped = cancel is not None and cancel.is_set()
        watch.abandon(0.0 if stopped else LATE_ANSWER_S)
        with watch.lock:
            came = list(watch.answer)
        if came and not stopped:      # it came as the time ran out: it is the answer
            return came[0]
        if came:
            late(came[0])
        if stopped:
            raise
        _still_answering(watch)
        raise Abandoned(f"{name}: no answer in the time it had") from None
