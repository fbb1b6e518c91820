"""Outbox: the events a device sends to the runs it serves (an attempt's start, each step, its
result), handed to Redis in order by a thread of their own.

The case thread only queues them: a Redis restart mid-case must never count against the case's
clock. While Redis is away the events wait here and go, in order, once it is back (as long as
the outage lasts at most ``patience`` seconds); a run that has ended gets none (its client has
gone: a late worker must not leave its list behind in Redis).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any

from redis.exceptions import NoPermissionError, OutOfMemoryError, ReadOnlyError

from farm.cluster import store

log = logging.getLogger("farm.worker")

PUBLISH_PATIENCE_S = 300.0      # keep trying to hand in events through a Redis outage
# Redis refusing writes for now, as an outage: over its maxmemory (OOM), or a replica now
# (READONLY: the primary failed over, and this connection still goes to the old one)
REFUSED = (OutOfMemoryError, ReadOnlyError)
NOPERM = NoPermissionError      # the broker's ACL refuses this user a command, key or channel
EVENTS_TTL_S = 24 * 3600


def describe(event: dict[str, Any]) -> str:
    """An event as the worker's log names it: ``step 2 of s/c00 attempt 1``."""
    kind, case, attempt = event.get("type"), event.get("case", "?"), event.get("attempt", "?")
    if kind == "step":
        return f"step {event['record'].get('index')} of {case} attempt {attempt}"
    if kind == "case_started":
        return f"the start of {case} attempt {attempt}"
    if kind == "file":
        return f"the start of {event.get('file', '?')} in {case} attempt {attempt}"
    if kind == "case_finished":
        return f"the result of {case} attempt {attempt}"
    if kind == "spend":
        return f"the model spend of step {event.get('after', 0) + 1} of {case} attempt {attempt}"
    return f"{event.get('device')} {event.get('state', kind)}"


class Outage:
    """How a device's process tells of Redis going away: once when it goes, then once every
    SAY_EVERY_S while it stays away, and once when it answers again (each heartbeat, retry
    and event that found it away said so: two lines a second, and nothing when it came
    back). One for the process's heartbeat and retries (`OUTAGE`), one for its outbox."""

    SAY_EVERY_S = 30.0

    def __init__(self, clock: Any = time.monotonic, what: str = "redis",
                 down: str = "unavailable", back: str = "answers again") -> None:
        self.clock = clock
        self.what, self.down, self.back = what, down, back
        self.since: float | None = None
        self._said = 0.0
        self._lock = threading.Lock()
        self.peer: Outage | None = None     # one that tells of the same Redis (see answered)
        self.back_at: float | None = None   # when this one last said it answers again

    def failed(self, why: str) -> None:
        now = self.clock()
        with self._lock:
            if self.since is None:
                self.since = self._said = now
                log.warning("%s %s (%s): retrying", self.what, self.down, why)
            elif now - self._said >= self.SAY_EVERY_S:
                self._said = now
                log.warning("%s still %s after %.0fs (%s): retrying", self.what, self.down,
                            now - self.since, why)

    def answered(self) -> None:
        if self.since is None:          # (the usual case: no lock taken)
            return
        with self._lock:
            if self.since is not None:
                now = self.clock()
                peer = self.peer
                if peer is None or peer.back_at is None or peer.back_at < self.since:
                    log.warning("%s %s after %.0fs", self.what, self.back, now - self.since)
                    self.back_at = now      # (its peer's end of the same outage: unsaid)
                self.since = None


OUTAGE = Outage()


class Outbox:
    """Events queued by the case thread, sent by the ``outbox`` thread in the order queued."""

    def __init__(self, r: Any, patience: float = PUBLISH_PATIENCE_S, url: str = "") -> None:
        self.r, self.patience, self.url = r, patience, url
        self._queue: queue.Queue[tuple[str, dict[str, Any]] | threading.Event] = queue.Queue()
        self._ended: set[str] = set()          # runs over: their events are dropped
        self._down_since: float | None = None  # Redis unreachable since (monotonic)
        self._last = ""                        # the event queued last (for the log)
        self._outage = Outage()                # its own: events waiting are news of their own
        self._outage.peer, OUTAGE.peer = OUTAGE, self._outage    # but one line when it ends
        self._refusal = Outage(what="the broker", down="refuses this device's events",
                               back="takes this device's events again")    # (its ACL)
        threading.Thread(target=self._send_all, name="outbox", daemon=True).start()

    def put(self, run_id: str, event: dict[str, Any]) -> None:
        """Queue ``event`` for the client of ``run_id``; returns at once."""
        self._last = describe(event)
        self._queue.put((run_id, event))

    def flush(self) -> None:
        """Return once every event queued so far is in Redis (or dropped: its run ended, or
        Redis stayed away past the patience)."""
        sent = threading.Event()
        self._queue.put(sent)
        sent.wait()

    def forget(self, run_id: str) -> None:
        """The run is over: drop its events still queued and any queued later."""
        self._ended.add(run_id)

    def _send_all(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, threading.Event):
                item.set()
            elif item[0] not in self._ended:
                try:
                    self._send(*item)
                except Exception:   # this thread must live on: `flush` waits for it
                    log.exception("%s not sent", describe(item[1]))

    def _send(self, run_id: str, event: dict[str, Any]) -> None:
        import redis
        raw = json.dumps(event)
        while run_id not in self._ended:
            try:
                if not store.push_event(self.r, run_id, raw, EVENTS_TTL_S):
                    log.info("run %s has ended: %s not sent", run_id, describe(event))
                    self._ended.add(run_id)
                self._down_since = None
                self._outage.answered()
                self._refusal.answered()
                return
            except (redis.ConnectionError, redis.TimeoutError, *REFUSED, NOPERM) as exc:
                if isinstance(exc, ReadOnlyError):      # connect again: to the new primary
                    self.r.connection_pool.disconnect()
                now = time.monotonic()
                self._down_since = self._down_since or now
                if now - self._down_since > self.patience:
                    log.error("redis unavailable for %.0fs (%s): %s dropped",
                              now - self._down_since, exc, describe(event))
                    return
                said = self._refusal if isinstance(exc, NOPERM) else self._outage
                why = store.refused(self.url, exc) if isinstance(exc, NOPERM) else str(exc)
                said.failed(f"{why}; {self._queue.qsize() + 1} event(s) waiting to be handed "
                            f"in, the last: {self._last}")
                time.sleep(1.0)     # polling an absent Redis: nothing to wait on but time
