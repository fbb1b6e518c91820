"""A quarantined device's process, waiting for its release, tells of a Redis outage as every
other part of a worker does: once as it starts, once every 30 s, once when Redis answers
again. Before, it logged 'cannot read the quarantine of ...' at every heartbeat (a line every
2 s, for as long as the outage lasted)."""

from __future__ import annotations

import logging
from typing import Any

import worker.main as main
import worker.outbox as outbox
from farm.cluster import store
from worker.outbox import REFUSED, Outage

ReadOnlyError = REFUSED[1]      # redis-py's (unit tests import no redis)


class _AwayThenReleased:
    """Redis refusing every command ``away`` times, then answering: the device released."""

    def __init__(self, away: int) -> None:
        self.away = away

    def _call(self) -> None:
        if self.away:
            self.away -= 1
            raise ReadOnlyError("You can't write against a read only replica.")

    def set(self, *_: Any, **__: Any) -> bool:
        self._call()
        return True

    def get(self, *_: Any) -> str:
        return "epoch-1"

    def hgetall(self, *_: Any) -> dict:
        return {}


def test_an_outage_while_quarantined_is_said_once_and_its_end_once(monkeypatch, caplog):
    monkeypatch.setattr(store, "HEARTBEAT_S", 0.0)
    monkeypatch.setattr(outbox, "OUTAGE", Outage())
    monkeypatch.setattr(main, "OUTAGE", outbox.OUTAGE)
    caplog.set_level(logging.WARNING, logger="farm.worker")
    lease = {"platform": "web", "device": "fake-1@h"}
    assert main.wait_released(_AwayThenReleased(20), "fake-1@h", lease, "redis://:pw@h:1/0")
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert said[0].startswith("redis unavailable (reading the quarantine of fake-1@h: You "
                              "can't write against a read only replica.)"), said
    assert said[1].startswith("redis answers again after"), said
