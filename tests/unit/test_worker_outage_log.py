"""A device's process tells of a Redis outage once when it starts, once every 30 s while it
lasts, and once when Redis answers again: before, each heartbeat, retry and queued event that
found it away logged a line (115 lines in a minute's outage, two devices) and nothing said
when it came back."""

from __future__ import annotations

import logging

from worker.outbox import Outage


class Clock:
    t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_minute_s_outage_is_three_lines_and_its_end_one(caplog):
    clock = Clock()
    outage = Outage(clock)
    caplog.set_level(logging.WARNING, logger="farm.worker")
    outage.answered()                                  # Redis there all along: nothing said
    for _ in range(121):                               # two threads, a failure a second each
        outage.failed("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        clock.t += 0.5
    outage.answered()
    outage.answered()
    why = "(Error 111 connecting to 127.0.0.1:6379. Connection refused.): retrying"
    assert [r.getMessage() for r in caplog.records] == [
        f"redis unavailable {why}",
        f"redis still unavailable after 30s {why}",
        f"redis still unavailable after 60s {why}",
        "redis answers again after 60s"]
