"""A device process whose Redis refuses its events for a while (over its maxmemory: OOM; a
replica after a failover: READONLY) hands them in once Redis takes them again, and connects
again after a READONLY (to the new primary). Before, the first such error killed the thread
that sends events: the case's task waited for it forever (`Outbox.flush`), its device busy
for good and its result never sent."""

from __future__ import annotations

import threading
from typing import Any

from worker.outbox import REFUSED, Outbox

OutOfMemoryError, ReadOnlyError = REFUSED      # redis-py's (unit tests import no redis)


class _Refusing:
    """Redis as the outbox sees it: ``refusals`` errors first, then it takes every event."""

    def __init__(self, *refusals: Exception) -> None:
        self.refusals = list(refusals)
        self.pushed: list[str] = []
        self.reconnects = 0
        self.connection_pool = self

    def disconnect(self) -> None:
        self.reconnects += 1

    def eval(self, _script: str, _keys: int, *args: Any) -> int:
        if self.refusals:
            raise self.refusals.pop(0)
        self.pushed.append(args[2])
        return 1


def _flushed(outbox: Outbox) -> bool:
    """Did `flush` return (the events handed in, or given up on)? Not within a minute: hung."""
    done = threading.Thread(target=outbox.flush, daemon=True)
    done.start()
    done.join(60)
    return not done.is_alive()


def test_events_refused_for_a_while_are_handed_in_in_order_once_taken():
    r = _Refusing(ReadOnlyError("You can't write against a read only replica."),
                  OutOfMemoryError("command not allowed when used memory > 'maxmemory'."))
    outbox = Outbox(r)
    outbox.put("r1", {"type": "case_started", "case": "s/c", "attempt": 1})
    outbox.put("r1", {"type": "case_finished", "case": "s/c", "attempt": 1})
    assert _flushed(outbox)
    assert [e.split('"type": "')[1].split('"')[0] for e in r.pushed] == [
        "case_started", "case_finished"]
    assert r.reconnects == 1        # after the READONLY: to the new primary


def test_an_event_that_cannot_be_sent_does_not_stop_the_next():
    r = _Refusing(TypeError("an event farm cannot send"))      # (a bug of farm's own)
    outbox = Outbox(r)
    outbox.put("r1", {"type": "case_started", "case": "s/c", "attempt": 1})
    outbox.put("r2", {"type": "case_started", "case": "s/d", "attempt": 1})
    assert _flushed(outbox)
    assert len(r.pushed) == 1 and '"s/d"' in r.pushed[0]
