"""`farm run --broker` whose Redis refuses writes for a while (a replica after a failover:
READONLY; over its maxmemory: OOM): the run waits for it as for an outage
(FARM_CLUSTER_OUTAGE_SECONDS), connecting again after a READONLY (to the new primary), and
goes on once it takes writes. Before, the first such error ended the run: 'farm: internal
error: ReadOnlyError', every result lost."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from worker.outbox import REFUSED

OutOfMemoryError, ReadOnlyError = REFUSED      # redis-py's (unit tests import no redis)


class _Refusing:
    """A Redis whose every write is refused with ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.reconnects = 0
        self.connection_pool = self

    def disconnect(self) -> None:
        self.reconnects += 1

    def set(self, *_: Any, **__: Any) -> None:
        raise self.error


@pytest.mark.parametrize("error, reconnects", [
    (ReadOnlyError("You can't write against a read only replica."), 1),
    (OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), 0)])
def test_a_redis_refusing_writes_is_waited_for_as_an_outage(tmp_path, caplog, error,
                                                           reconnects):
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [])
    ex.r = _Refusing(error)
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": [job]}, {case.id}
    caplog.set_level(logging.WARNING, logger="farm.cluster")
    ex._step()
    assert f"broker unreachable ({error}): waiting up to" in caplog.text
    assert ex._queue["web"] == [job] and not ex.ledger.final
    assert ex.r.reconnects == reconnects
