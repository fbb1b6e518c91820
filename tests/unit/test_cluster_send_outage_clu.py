"""`farm run --broker` when the broker goes away just as the run hands a case to it (the tick
read Redis, then the send found it gone): the run waits for the broker as for any outage
(FARM_CLUSTER_OUTAGE_SECONDS) and sends the case once it is back. Before, Celery's result
backend gave up after ~20 s with a RuntimeError that ended the run with a traceback, and a
send that failed otherwise dropped the case: in no queue and not in flight, the run never
ended (or its results had no row for it)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from farm import __version__
from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

DEVICE = "browser-1@h"


class _RunState:
    """What a tick reads of Redis, served from memory (the run's own state store is up; the
    broker the jobs are sent through, 127.0.0.1:1, is not)."""

    def __init__(self) -> None:
        lease = {"device": DEVICE, "platform": "web", "group": "browser", "state": "idle",
                 "version": __version__}
        import json
        self.data: dict[str, Any] = {f"farm:lease:{DEVICE}": json.dumps(lease)}
        self.replies: list[Any] = []        # a pipeline's, of the commands that answer here

    def set(self, name: str, value: Any, **_: Any) -> bool:
        self.data.setdefault(name, value)
        return True

    def get(self, name: str) -> Any:
        return self.data.get(name)

    def scan_iter(self, match: str, count: int = 0) -> list[str]:
        return [k for k in self.data if k.startswith(match.rstrip("*"))]

    def mget(self, names: list[str]) -> list[Any]:
        return [self.data.get(n) for n in names]

    def hgetall(self, name: str) -> dict:
        return {}

    def pipeline(self, transaction: bool = True) -> "_RunState":
        return self

    def hset(self, *_: Any, **__: Any) -> None:
        pass

    expire = zadd = zremrangebyscore = hset

    def execute(self, raise_on_error: bool = True) -> list:
        replies, self.replies = self.replies, []
        return replies

    def zrangebyscore(self, *_: Any, **__: Any) -> list:
        return []

    def blmove(self, *_: Any, **__: Any) -> None:
        self.replies.append(None)           # no event: the worker has not been sent one

    lmove = blmove

    def llen(self, *_: Any) -> None:
        self.replies.append(0)


def test_a_broker_gone_as_a_case_is_sent_is_waited_for_and_the_case_sent_once_back(
        tmp_path, caplog, monkeypatch):
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0", cluster_prefix="farm")   # refused
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [])
    ex.limit = {"web": 1}
    ex.r = _RunState()
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": [job]}, {case.id}
    caplog.set_level(logging.WARNING, logger="farm.cluster")
    ex._step()
    assert "broker unreachable" in caplog.text          # waited for, as any outage
    assert ex._queue["web"] == [job] and not ex._inflight and not ex.ledger.final
    sent: list[str] = []
    monkeypatch.setattr(ex.app, "send_task", lambda *a, **kw: sent.append(kw["queue"]))
    ex._step()                                          # back: the case goes
    assert "broker reachable again" in caplog.text
    assert sent == ["farm.web"] and list(ex._inflight) == [case.id]
