"""After a Redis outage each device printed two recovery lines of different durations
('redis answers again after 6s', then 'after 9s': its heartbeat's and its outbox's), then
Celery's 'consumer: Connection to broker lost…' at WARNING. Now one recovery line, and
Celery's line only at --loglevel INFO."""

from __future__ import annotations

import logging

from worker import main
from worker.outbox import Outage


class Clock:
    t = 100.0

    def __call__(self) -> float:
        return self.t


def test_an_outage_the_heartbeat_and_the_outbox_both_met_ends_in_one_line(caplog):
    clock = Clock()
    heartbeat, outbox = Outage(clock), Outage(clock)
    heartbeat.peer, outbox.peer = outbox, heartbeat
    caplog.set_level(logging.WARNING, logger="farm.worker")
    outbox.failed("events waiting")
    clock.t += 3
    heartbeat.failed("heartbeat: refused")
    clock.t += 6
    heartbeat.answered()
    clock.t += 1
    outbox.answered()
    backs = [r.getMessage() for r in caplog.records if "answers again" in r.getMessage()]
    assert backs == ["redis answers again after 6s"]
    # a later outage only the outbox met is said to end, by it
    outbox.failed("events waiting")
    clock.t += 2
    outbox.answered()
    backs = [r.getMessage() for r in caplog.records if "answers again" in r.getMessage()]
    assert backs == ["redis answers again after 6s", "redis answers again after 2s"]


def test_celery_s_broker_lost_line_is_not_shown_at_the_default_level():
    lost = logging.LogRecord("celery.worker.consumer.consumer", logging.WARNING, __file__, 1,
                             "%s (%r)", ("consumer: Connection to broker lost. Trying to "
                                         "re-establish the connection...", OSError()), None)
    other = logging.LogRecord("celery.worker.consumer.consumer", logging.WARNING, __file__, 1,
                              "something else", (), None)
    assert main._broker_lost_unsaid(lost) is False
    assert main._broker_lost_unsaid(other) is True
