"""The run's client reads its workers' events at least once: a case result Redis has handed
the client, whose connection then broke before it read it (a reply lost on the wire), is
read again once the broker answers, not lost. Before (BLPOP), the event was gone with the
reply: the run waited for a result that had come, took the attempt for lost after the lease
grace, named a healthy device as dead and ran the case again. Real redis-server, real `farm
worker`; the break is staged by tests/integration/lose_event_reply.py in the client."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from farm.executors.event_inbox import EventInbox
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


class _Counting(redis.Connection):
    """A connection that counts its round trips: one write (a command, or a pipeline's)."""

    trips = 0

    def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
        _Counting.trips += 1
        super().send_packed_command(*args, **kwargs)


def _commands(r: redis.Redis) -> dict[str, int]:
    return {name.removeprefix("cmdstat_"): stat["calls"]
            for name, stat in r.info("commandstats").items()}


def test_the_run_reads_an_event_in_one_round_trip(private_redis):
    """The run's client took each of its workers' events in three round trips (BLMOVE, then
    EXPIRE, then LREM once handled) where BLPOP took one: on a remote Redis, three network
    latencies for every step of every case. Now one, its reads at least once still."""
    server = private_redis()
    pool = redis.ConnectionPool.from_url(server.url, connection_class=_Counting,
                                         socket_timeout=5, decode_responses=True)
    client, admin = redis.Redis(connection_pool=pool), redis.Redis(port=server.port)
    inbox, seen = EventInbox("r1"), []
    steps = [json.dumps({"type": "step", "case": "s/c", "attempt": 1, "index": i})
             for i in range(60)]
    client.ping()                   # (connected: its handshake is no event's)
    before, trips = _commands(admin), _Counting.trips
    admin.rpush(inbox.events, *steps[:50])          # a burst: steps of many cases at once
    inbox.drain(client, 0.25, lambda e: seen.append(e["index"]))
    for raw in steps[50:]:                          # one event a read, as a case's steps
        admin.rpush(inbox.events, raw)
        inbox.drain(client, 0.25, lambda e: seen.append(e["index"]))
    assert seen == list(range(60))
    assert _Counting.trips - trips <= 60, _Counting.trips - trips
    used = {k: n - before.get(k, 0) for k, n in _commands(admin).items()}
    assert used.get("blmove", 0) + used.get("lmove", 0) == 60, used
    assert used.get("expire", 0) <= 2 and used.get("lrem", 0) <= 60, used
    assert admin.llen(inbox.taken) <= 1 and not admin.llen(inbox.events)   # the last: next
