"""EventInbox: the run's end of the Redis list its workers push events to, read at least once.

An event is moved, not popped (BLMOVE ``<p>:events:<run>`` → ``<p>:taken:<run>``), and taken
off ``taken`` only once handled. A client whose connection broke between the two (the move's
reply lost on the wire, or a Redis error while handling it) finds the event still there and
handles it on its next read: with BLPOP it was gone, and with it a case's start, a step or a
result (the attempt was then taken for lost and run again). An event handled whose removal
failed is not handled twice (``_done``). A client killed outright leaves ``taken`` to expire:
no other process takes a run over.

One round trip an event, as BLPOP's: the removal of the event just handled rides with the
move of the next (one pipeline, no MULTI), with the length of what is left (no move only to
hear there is none) and, when ``taken`` may be new or its TTL is an hour old, its EXPIRE.
The last event of a read is removed with the next read's move.

Redis before 6.2 has no BLMOVE: there the inbox pops (BLPOP), at most once, as before, and
says so once in the log. A full Redis (maxmemory) refuses a move, not a pop: while it is full
the inbox pops too.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Callable

from farm.cluster.store import key

log = logging.getLogger("farm.cluster")

TAKEN_TTL_S = 24 * 3600
REFRESH_S = 3600        # ``taken``'s TTL is set again at least this often while events come


class EventInbox:
    """The events of run ``run_id``, in the order its workers pushed them."""

    def __init__(self, run_id: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.events, self.taken = key("events", run_id), key("taken", run_id)
        self.moves = True               # BLMOVE (Redis >= 6.2); False: BLPOP, at most once
        self._unsure = False            # a read or a removal may have failed half-way
        self._done: str | None = None   # handled, not yet removed from ``taken``
        self._refreshed: float | None = None    # ``taken``'s TTL set (None: it may have none)
        self._clock = clock

    def drain(self, r: Any, wait: float, handle: Callable[[dict[str, Any]], None]) -> None:
        """Hand ``handle`` every event there is in Redis ``r``, waiting up to ``wait`` seconds
        for the first; first the ones a broken read or removal left in ``taken``. A Redis
        error is raised (the caller waits for the broker); the events it interrupted are read
        again."""
        if self._unsure:
            self._recover(r, handle)
        self._unsure = True
        raw, more, moved = self._take(r, wait)
        while raw is not None:
            handle(json.loads(raw))
            if moved:
                self._done = raw        # (removed with the next move)
            if not more:
                break
            raw, more, moved = self._take(r, 0)
        self._unsure = False

    def _recover(self, r: Any, handle: Callable[[dict[str, Any]], None]) -> None:
        """Handle what ``taken`` holds, but the event handled already, and empty it."""
        for raw in r.lrange(self.taken, 0, -1):
            if raw != self._done:
                handle(json.loads(raw))
                self._done = raw
            r.lrem(self.taken, 1, raw)
            self._done = None
        self._done = self._refreshed = None     # (one not there any more: Redis lost data)

    def _take(self, r: Any, wait: float) -> tuple[str | None, bool, bool]:
        """The next event, whether more wait behind it and whether it was moved to ``taken``
        (not popped); None when there is none within ``wait``. Redis full (maxmemory,
        noeviction) refuses a move, not a pop: popped then, at most once, the events leave
        and free the memory the workers need to hand in theirs."""
        if self.moves:
            got = self._move(r, wait)
            if got is not None:
                return (*got, True)
        raw = self._pop(r, wait)
        return raw, raw is not None, False

    def _move(self, r: Any, wait: float) -> tuple[str | None, bool] | None:
        """One round trip: move the next event, count the rest, remove the one handled and
        (when due) set ``taken``'s TTL. None: the move was refused; pop instead."""
        from redis.exceptions import OutOfMemoryError
        pipe = r.pipeline(transaction=False)
        if wait > 0:
            pipe.blmove(self.events, self.taken, wait, "LEFT", "RIGHT")
        else:
            pipe.lmove(self.events, self.taken, "LEFT", "RIGHT")
        pipe.llen(self.events)
        done, now = self._done, self._clock()
        if done is not None:
            pipe.lrem(self.taken, 1, done)
        refresh = self._refreshed is None or now - self._refreshed >= REFRESH_S
        if refresh:     # after the move: one that made ``taken`` anew made it without a TTL
            pipe.expire(self.taken, TAKEN_TTL_S)
        moved, left, *rest = pipe.execute(raise_on_error=False)
        if done is not None and not isinstance(rest[0], Exception):
            self._done = None
            if not rest[0]:
                self._refreshed = None      # not there: Redis lost its data, ``taken`` too
        if isinstance(moved, OutOfMemoryError):
            return None
        if isinstance(moved, Exception) and "unknown command" in str(moved).lower():
            self.moves = False
            log.warning("Redis has no BLMOVE (before 6.2): the run reads its workers' "
                        "events with BLPOP, and one its connection loses as it is read "
                        "is lost (%s)", moved)
            return None
        for reply in (moved, left, *rest):
            if isinstance(reply, Exception):
                raise reply
        if moved is None:
            self._refreshed = None      # ``taken`` may be empty: gone, its TTL with it
        elif refresh:
            self._refreshed = now
        return moved, left > 0

    def _pop(self, r: Any, wait: float) -> str | None:
        if wait > 0:
            got = r.blpop([self.events], timeout=wait)
            return got[1] if got else None
        return r.lpop(self.events)
