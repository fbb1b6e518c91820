"""A device plugin for test_cluster_event_inbox.py: the ``fake`` kind of tests/support/devices.py,
in a `farm run` whose connection to Redis breaks the moment Redis has handed it the first case
result of the run: the event has left the list its workers push to, and the client never
reads it (a reply lost on the wire, a connection reset) — the moment no timing can hit.

    FARM_DEVICE_PLUGINS=tests.integration.lose_event_reply FARM_TEST_LOSE_EVENT_REPLY=1 \
        farm run SUITE --broker URL

Every command that can take an event off a Redis list (BLPOP, LPOP, BLMOVE, LMOVE) is
watched, whichever the client uses, alone or in a pipeline (the run moves an event in one
with the removal of the one before: the whole round trip's replies are lost); only the first
result is lost, in `farm run` only (a `farm worker`'s device process, also loading the
plugin, takes no events).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import redis

from tests.support.devices import farm_device_kinds  # noqa: F401  (the kind: fake)

_lost: list[str] = []


def _lose(client: Any, raw: Any) -> None:
    """The connection breaks if ``raw`` is the run's first case result."""
    if (not _lost and isinstance(raw, str) and '"type": "case_finished"' in raw
            and "worker.runtime" not in sys.modules):
        _lost.append(raw)
        client.connection_pool.disconnect()
        raise redis.ConnectionError("connection lost (FARM_TEST_LOSE_EVENT_REPLY)")


def _losing(method: Any) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        got = method(self, *args, **kwargs)
        _lose(self, got[1] if isinstance(got, (list, tuple)) else got)
        return got
    return call


def _losing_pipeline(execute: Any) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        sent = [str(cmd[0]).upper() for cmd, _ in self.command_stack]
        got = execute(self, *args, **kwargs)
        for name, reply in zip(sent, got):
            if name in ("BLMOVE", "LMOVE"):
                _lose(self, reply)
        return got
    return call


if os.environ.get("FARM_TEST_LOSE_EVENT_REPLY"):
    for _name in ("blpop", "lpop", "blmove", "lmove"):
        setattr(redis.Redis, _name, _losing(getattr(redis.Redis, _name)))
    redis.client.Pipeline.execute = _losing_pipeline(redis.client.Pipeline.execute)
