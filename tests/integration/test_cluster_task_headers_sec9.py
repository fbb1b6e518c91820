"""A case's task message keeps its environment (its secrets) in its body only, never in a
header Celery fills with the arguments' repr (``argsrepr``): Redis keeps that header readable
with the message (and in its append-only file), `celery inspect` and Flower show it, a
worker's DEBUG log prints it. Real redis-server, the run's real send."""

from __future__ import annotations

import base64
import json

import pytest
import redis

from tests.support.cluster import PREFIX

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

VALUE = "S3CR3T-7-casesec-headers"


def queued(url: str) -> list[dict]:
    """Every message waiting in the broker's lists (kombu's queues), parsed."""
    r = redis.Redis.from_url(url)
    out = []
    for name in r.scan_iter(f"{PREFIX}*"):
        if r.type(name) == b"list":
            out += [json.loads(m) for m in r.lrange(name, 0, -1)]
    return out


def test_a_sent_case_s_secret_is_in_no_header_of_its_message(tmp_path, redis_url):
    from farm.attempts import RetryPolicy
    from farm.config import Settings
    from farm.executors.celery import CeleryExecutor
    from farm.results import ArtifactStore
    from farm.runner import Services
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    case = Case(id="s/c", name="c", file=tmp_path / "c.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="about:blank"), secrets=["CASE_SEC"],
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url=redis_url, cluster_prefix=PREFIX)
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r-headers", env={"CASE_SEC": VALUE})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [])
    ex._send(Job(case.id, "web", 1.0), "farm.web")
    [message] = queued(redis_url)
    body = base64.b64decode(message["body"]).decode()
    assert VALUE in body      # (the worker needs it: this is the message the test meant)
    outside = json.dumps({k: v for k, v in message.items() if k != "body"})
    assert VALUE not in outside and "CASE_SEC" not in outside
    assert message["headers"]["argsrepr"] == "(run r-headers, case s/c, attempt 1)"
