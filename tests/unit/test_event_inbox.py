"""EventInbox: a run's client reads its workers' events at least once and handles each once,
in the order pushed. Redis is a list store in memory here (the real one, with a real client
and worker: tests/integration/test_cluster_event_inbox.py)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from farm.executors.event_inbox import EventInbox


class Dropped(Exception):
    """The connection reset (redis-py's ConnectionError: unit tests import no redis)."""


class _Lists:
    """The list commands the inbox sends, on lists in memory; ``old``: a Redis before 6.2.
    ``trips`` counts round trips (a command alone or a pipeline); ``ttl``: when a key
    expires (None: it has no TTL; a key made anew has none)."""

    def __init__(self, old: bool = False) -> None:
        self.lists: dict[str, list[str]] = {}
        self.ttl: dict[str, float | None] = {}
        self.old = old
        self.now = 0.0
        self.trips = 0
        self.untimed = 0        # round trips that left ``taken`` with no TTL
        self.piped = False      # running a pipeline's commands (one round trip for all)
        self.fail_lrem = 0      # removals that fail (the connection drops) before any is done
        self.lose_reply = 0     # pipelines Redis runs whose replies the connection loses

    def push(self, name: str, *events: dict[str, Any]) -> None:
        self.lists.setdefault(name, []).extend(json.dumps(e) for e in events)

    def pipeline(self, transaction: bool = True) -> "_Pipe":
        assert not transaction, "MULTI: refused to a user without +multi, and one more reply"
        return _Pipe(self)

    def __getattribute__(self, name: str) -> Any:
        if name in ("lrange", "lrem", "blpop", "lpop", "expire", "llen", "lmove", "blmove") \
                and not object.__getattribute__(self, "piped"):
            object.__setattr__(self, "trips", object.__getattribute__(self, "trips") + 1)
        return object.__getattribute__(self, name)

    def _append(self, name: str, raw: str) -> None:
        if not self.lists.get(name):
            self.lists[name], self.ttl[name] = [], None
        self.lists[name].append(raw)

    def _took(self, name: str) -> None:
        if not self.lists[name]:
            del self.lists[name]                # (Redis deletes an empty list)
            self.ttl.pop(name, None)

    def lmove(self, src: str, dst: str, *_: Any) -> str | None:
        if self.old:
            raise Exception("unknown command 'LMOVE', with args beginning with: ")
        if not self.lists.get(src):
            return None
        raw = self.lists[src].pop(0)
        self._took(src)
        self._append(dst, raw)
        return raw

    def blmove(self, src: str, dst: str, timeout: float, *_: Any) -> str | None:
        if self.old:
            raise Exception("unknown command 'BLMOVE', with args beginning with: ")
        return self.lmove(src, dst)

    def llen(self, name: str) -> int:
        return len(self.lists.get(name, []))

    def expire(self, name: str, seconds: int) -> bool:
        if name not in self.lists:
            return False
        self.ttl[name] = self.now + seconds
        return True

    def lrange(self, name: str, *_: Any) -> list[str]:
        return list(self.lists.get(name, []))

    def lrem(self, name: str, count: int, raw: str) -> int:
        if self.fail_lrem:
            self.fail_lrem -= 1
            raise Dropped("connection reset")
        if raw not in self.lists.get(name, []):
            return 0
        self.lists[name].remove(raw)
        self._took(name)
        return 1

    def blpop(self, names: list[str], timeout: float) -> tuple[str, str] | None:
        raw = self.lpop(names[0])
        return (names[0], raw) if raw else None

    def lpop(self, name: str) -> str | None:
        if not self.lists.get(name):
            return None
        raw = self.lists[name].pop(0)
        self._took(name)
        return raw


class _Pipe:
    """redis-py's pipeline without MULTI: commands queued, sent in one round trip; a command
    Redis refuses is its reply (``raise_on_error=False``), a dropped connection raises."""

    def __init__(self, lists: _Lists) -> None:
        self.lists, self.queued = lists, []

    def __getattr__(self, name: str) -> Any:
        return lambda *args: self.queued.append((name, args))

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        assert not raise_on_error
        lists, replies = self.lists, []
        lists.trips, lists.piped = lists.trips + 1, True
        try:
            for name, args in self.queued:
                try:
                    replies.append(getattr(lists, name)(*args))
                except Dropped:
                    raise
                except Exception as exc:
                    replies.append(exc)
        finally:
            lists.piped = False
        lists.untimed += any(lists.ttl.get(k) is None for k in lists.lists if ":taken:" in k)
        if lists.lose_reply:
            lists.lose_reply -= 1
            raise Dropped("connection reset")
        return replies


EVENTS, TAKEN = "farm:events:r1", "farm:taken:r1"


@pytest.fixture(autouse=True)
def _farm_prefix(monkeypatch):
    """The keys under farm's default prefix, whatever an earlier test of this process set
    (`store.use_prefix` is once per process: a run in another test's process keyed its own)."""
    from farm.cluster import store
    monkeypatch.setattr(store, "_prefix", "farm")


def _steps(n: int) -> list[dict[str, Any]]:
    return [{"type": "step", "case": "s/c", "attempt": 1, "index": i} for i in range(1, n + 1)]


def test_an_event_whose_handling_the_connection_broke_is_handed_again_once():
    r, inbox, seen, broke = _Lists(), EventInbox("r1"), [], []
    r.push(EVENTS, *_steps(3))

    def handle(event: dict[str, Any]) -> None:
        if event["index"] == 2 and not broke:
            broke.append(event)
            raise Dropped("connection reset")     # between take and handling
        seen.append(event)
    with pytest.raises(Dropped):
        inbox.drain(r, 0.25, handle)
    inbox.drain(r, 0.25, handle)        # the broker answers again
    inbox.drain(r, 0.25, handle)        # (the last one handled is removed with this move)
    assert [e["index"] for e in seen] == [1, 2, 3]
    assert not r.lists.get(TAKEN) and not r.lists.get(EVENTS)


def test_an_event_handled_whose_removal_failed_is_not_handled_twice():
    r, inbox, seen = _Lists(), EventInbox("r1"), []
    r.push(EVENTS, *_steps(2))
    r.fail_lrem = 1     # (the next event's move, in the same round trip, is done)
    with pytest.raises(Dropped):
        inbox.drain(r, 0.25, seen.append)
    inbox.drain(r, 0.25, seen.append)
    assert [e["index"] for e in seen] == [1, 2]
    assert not r.lists.get(TAKEN)


def test_a_move_and_removal_whose_reply_was_lost_hand_each_event_once():
    """Redis moved the next event and removed the one handled, and the connection lost the
    replies: the next read hands the moved event, and not the removed one again."""
    r, inbox, seen = _Lists(), EventInbox("r1"), []
    r.push(EVENTS, *_steps(3))

    def handle(event: dict[str, Any]) -> None:
        seen.append(event)
        if event["index"] == 1:
            r.lose_reply = 1
    with pytest.raises(Dropped):
        inbox.drain(r, 0.25, handle)
    assert r.lists[TAKEN] == [json.dumps(_steps(2)[1])]     # (moved, its reply lost)
    inbox.drain(r, 0.25, handle)
    inbox.drain(r, 0.25, handle)
    assert [e["index"] for e in seen] == [1, 2, 3]
    assert not r.lists.get(TAKEN) and not r.lists.get(EVENTS)


def test_each_event_costs_one_round_trip_as_with_blpop():
    """The move of an event, then its expiry and its removal were three round trips an event
    (BLPOP's one): a run's client on a remote Redis paid them for every step of every case."""
    r, inbox, seen = _Lists(), EventInbox("r1"), []
    r.push(EVENTS, *_steps(50))
    inbox.drain(r, 0.25, seen.append)
    assert len(seen) == 50 and r.trips <= 50, r.trips
    for i in range(51, 61):             # one event a read: still one round trip each
        r.push(EVENTS, *_steps(i)[-1:])
        inbox.drain(r, 0.25, seen.append)
    assert len(seen) == 60 and r.trips <= 60, r.trips
    inbox.drain(r, 0.25, seen.append)
    assert not r.lists.get(TAKEN) and len(seen) == 60


def test_taken_always_has_a_ttl_refreshed_while_the_run_reads():
    """A client killed outright leaves ``taken`` to expire: it must never be without a TTL
    (a move can make it anew), nor keep one it set a day ago while the run still reads."""
    now = [0.0]
    r, inbox, seen = _Lists(), EventInbox("r1", clock=lambda: now[0]), []
    for i in range(1, 400):            # 400 reads, 7 min apart: 46 hours
        now[0] = r.now = i * 420.0
        if i % 7 or i > 100:            # (every 7th read finds nothing: ``taken`` emptied;
            # after the 100th, an event every time: ``taken`` lives on 35 hours)
            r.push(EVENTS, *_steps(i)[-1:])
        inbox.drain(r, 0.25, seen.append)
        assert r.untimed == 0, f"read {i}: taken left without a TTL"
        deadline = r.ttl.get(TAKEN)
        assert TAKEN not in r.lists or deadline is not None and deadline > r.now, (i, deadline)
    assert len(seen) == 399 - 100 // 7


def test_a_redis_before_6_2_is_read_with_blpop_and_said_once(caplog):
    r, inbox, seen = _Lists(old=True), EventInbox("r1"), []
    r.push(EVENTS, *_steps(2))
    caplog.set_level(logging.WARNING, logger="farm.cluster")
    inbox.drain(r, 0.25, seen.append)
    r.push(EVENTS, *_steps(3)[2:])
    inbox.drain(r, 0.25, seen.append)
    assert [e["index"] for e in seen] == [1, 2, 3]
    assert caplog.text.count("Redis has no BLMOVE (before 6.2)") == 1, caplog.text


def test_a_full_redis_refusing_moves_still_gives_up_its_events(caplog):
    """Redis over its maxmemory (noeviction) refuses BLMOVE, not BLPOP: the client waited,
    its events filling the memory the workers needed to hand in theirs, until it gave up on
    the broker."""
    from worker.outbox import REFUSED
    oom = REFUSED[0]

    class _Full(_Lists):
        def blmove(self, *_: Any) -> str | None:
            raise oom("command not allowed when used memory > 'maxmemory'.")

        lmove = blmove
    r, inbox, seen = _Full(), EventInbox("r1"), []
    r.push(EVENTS, *_steps(2))
    inbox.drain(r, 0.25, seen.append)
    assert [e["index"] for e in seen] == [1, 2] and not r.lists.get(EVENTS)
    assert inbox.moves            # (moved again once Redis has room)
