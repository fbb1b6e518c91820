"""EventInbox: the run's end of the Redis list its workers push events to, read at least once.

An event is moved, not popped (BLMOVE ``<p>:events:<run>`` → ``<p>:taken:<run>``), and taken
off ``taken`` only once handled. A client whose connection broke between the two (the move's
reply lost on the wire, or a Redis error while handling it) finds the event still there and
handles it on its next read: with BLPOP it was gone, and with it a case's start, a step or a
result (the attempt was then taken for lost and run again). An event handled whose removal
failed is not handled twice (``_handled``). A client killed outright leaves ``taken`` to
expire: no other process takes a run over.

Redis before 6.2 has no BLMOVE: there the inbox pops (BLPOP), at most once, as before, and
says so once in the log. A full Redis (maxmemory) refuses a move, not a pop: while it is full
the inbox pops too.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

from farm.cluster.store import key

log = logging.getLogger("farm.cluster")

TAKEN_TTL_S = 24 * 3600


class EventInbox:
    """The events of run ``run_id``, in the order its workers pushed them."""

    def __init__(self, run_id: str) -> None:
        self.events, self.taken = key("events", run_id), key("taken", run_id)
        self.moves = True               # BLMOVE (Redis >= 6.2); False: BLPOP, at most once
        self._unsure = False            # a read or a removal may have failed half-way
        self._handled: set[str] = set()     # handled, not yet removed from ``taken``

    def drain(self, r: Any, wait: float, handle: Callable[[dict[str, Any]], None]) -> None:
        """Hand ``handle`` every event there is in Redis ``r``, waiting up to ``wait`` seconds
        for the first; first the ones a broken read or removal left in ``taken``. A Redis
        error is raised (the caller waits for the broker); the events it interrupted are read
        again."""
        if self._unsure:
            for raw in r.lrange(self.taken, 0, -1):
                self._handle(r, raw, handle)
            self._handled.clear()       # (one not there any more: Redis lost its data)
        self._unsure = True
        raw = self._take(r, wait)
        while raw is not None:
            self._handle(r, raw, handle)
            raw = self._take(r, 0)
        self._unsure = False

    def _take(self, r: Any, wait: float) -> str | None:
        """The next event (moved to ``taken``), or None when there is none within ``wait``.
        Redis full (maxmemory, noeviction) refuses a move, not a pop: popped then, at most
        once, the events leave and free the memory the workers need to hand in theirs."""
        from redis.exceptions import OutOfMemoryError
        if self.moves:
            try:
                if wait > 0:
                    return r.blmove(self.events, self.taken, wait, "LEFT", "RIGHT")
                return r.lmove(self.events, self.taken, "LEFT", "RIGHT")
            except OutOfMemoryError:
                return self._pop(r, wait)
            except Exception as exc:
                if "unknown command" not in str(exc).lower():
                    raise
                self.moves = False
                log.warning("Redis has no BLMOVE (before 6.2): the run reads its workers' "
                            "events with BLPOP, and one its connection loses as it is read "
                            "is lost (%s)", exc)
        return self._pop(r, wait)

    def _pop(self, r: Any, wait: float) -> str | None:
        if wait > 0:
            got = r.blpop([self.events], timeout=wait)
            return got[1] if got else None
        return r.lpop(self.events)

    def _handle(self, r: Any, raw: str, handle: Callable[[dict[str, Any]], None]) -> None:
        if self.moves:      # (a client killed now leaves it: gone in a day, as its events)
            r.expire(self.taken, TAKEN_TTL_S)
        if raw not in self._handled:
            handle(json.loads(raw))
            self._handled.add(raw)
        if self.moves:
            r.lrem(self.taken, 1, raw)
        self._handled.discard(raw)
