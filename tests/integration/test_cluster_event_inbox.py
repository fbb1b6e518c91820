"""The run's client reads its workers' events at least once: a case result Redis has handed
the client, whose connection then broke before it read it (a reply lost on the wire), is
read again once the broker answers, not lost. Before (BLPOP), the event was gone with the
reply: the run waited for a result that had come, took the attempt for lost after the lease
grace, named a healthy device as dead and ran the case again. Real redis-server, real `farm
worker`; the break is staged by tests/integration/lose_event_reply.py in the client."""

from __future__ import annotations

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX
from tests.support.farm_cli import results
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PLUGIN = "tests.integration.lose_event_reply"


def test_a_result_whose_reply_the_connection_lost_is_read_again_not_run_again(
        tmp_path, redis_url, workers, farm):
    workers("fake:1")
    run_dir = tmp_path / "run"
    done = farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", redis_url,
                    "--report-dir", run_dir, FARM_DEVICE_PLUGINS=PLUGIN,
                    FARM_TEST_LOSE_EVENT_REPLY="1", **CLUSTER_ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    log = (run_dir / "farm.log").read_text()
    assert "connection lost (FARM_TEST_LOSE_EVENT_REPLY)" in log, log     # (the break came)
    summary = results(run_dir)
    assert summary["counts"]["passed"] == 2, out
    assert not summary["lost"], summary["lost"]
    for case in summary["cases"]:
        assert case["attempt"] == 1 and not case["previous"], case
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    assert not r.keys(f"{PREFIX}:taken:*") and not r.keys(f"{PREFIX}:events:*")
