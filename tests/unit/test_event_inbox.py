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
    """The list commands the inbox sends, on lists in memory; ``old``: a Redis before 6.2."""

    def __init__(self, old: bool = False) -> None:
        self.lists: dict[str, list[str]] = {}
        self.old = old
        self.fail_lrem = 0      # removals that fail (the connection drops) before any is done

    def push(self, name: str, *events: dict[str, Any]) -> None:
        self.lists.setdefault(name, []).extend(json.dumps(e) for e in events)

    def lmove(self, src: str, dst: str, *_: Any) -> str | None:
        if self.old:
            raise Exception("unknown command 'LMOVE', with args beginning with: ")
        if not self.lists.get(src):
            return None
        raw = self.lists[src].pop(0)
        self.lists.setdefault(dst, []).append(raw)
        return raw

    def blmove(self, src: str, dst: str, timeout: float, *_: Any) -> str | None:
        if self.old:
            raise Exception("unknown command 'BLMOVE', with args beginning with: ")
        return self.lmove(src, dst)

    def expire(self, name: str, seconds: int) -> None:
        pass

    def lrange(self, name: str, *_: Any) -> list[str]:
        return list(self.lists.get(name, []))

    def lrem(self, name: str, count: int, raw: str) -> int:
        if self.fail_lrem:
            self.fail_lrem -= 1
            raise Dropped("connection reset")
        if raw not in self.lists.get(name, []):
            return 0
        self.lists[name].remove(raw)
        return 1

    def blpop(self, names: list[str], timeout: float) -> tuple[str, str] | None:
        raw = self.lpop(names[0])
        return (names[0], raw) if raw else None

    def lpop(self, name: str) -> str | None:
        return self.lists[name].pop(0) if self.lists.get(name) else None


EVENTS = "farm:events:r1"


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
    assert [e["index"] for e in seen] == [1, 2, 3]
    assert not r.lists.get("farm:taken:r1") and not r.lists[EVENTS]


def test_an_event_handled_whose_removal_failed_is_not_handled_twice():
    r, inbox, seen = _Lists(), EventInbox("r1"), []
    r.push(EVENTS, *_steps(2))
    r.fail_lrem = 1
    with pytest.raises(Dropped):
        inbox.drain(r, 0.25, seen.append)
    inbox.drain(r, 0.25, seen.append)
    assert [e["index"] for e in seen] == [1, 2]
    assert not r.lists.get("farm:taken:r1")


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
    assert [e["index"] for e in seen] == [1, 2] and not r.lists[EVENTS]
    assert inbox.moves            # (moved again once Redis has room)
