"""Through a Redis outage an idle `farm worker` printed Celery's own reconnect errors at the
default log level ("celery.worker.consumer.consumer consumer: Cannot connect to
redis://:**@127.0.0.1:…/0: Error 111 … Trying again in 2.00 seconds... (1/None)", a password
mask of its own) beside farm's "redis unavailable … retrying". Celery's lines are now for
--loglevel INFO only. Real redis-server (the test's own, stopped), two real `farm worker`s:
one at INFO (its Celery lines show Celery did say it), one at the default level."""

from __future__ import annotations

import pytest

from tests.support.cluster import wait_idle
from tests.support.farm_cli import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_celery_s_reconnect_errors_are_not_shown_at_the_default_level(private_redis, workers,
                                                                      farm, tmp_path):
    server = private_redis()
    workers("fake:1", broker=server.url)                         # worker-1.log: default
    workers("fake:1", "--loglevel", "INFO", broker=server.url)   # worker-2.log: INFO
    wait_idle(server.url, 2)
    server.stop()
    quiet, loud = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    wait_for(lambda: loud.read_text().count("Cannot connect to") >= 3, 120,
             "Celery at INFO saying its reconnect attempts")
    wait_for(lambda: "redis unavailable" in quiet.read_text(), 60, "farm's own outage line")
    said = quiet.read_text()
    assert "Cannot connect to" not in said and "Trying again" not in said, said
