"""What a `farm worker` leaves in Redis and its log. Each device's own queue (farm.dev.<device>,
the name carrying its host) left two kombu keys with no TTL for good: each pod a Deployment
replaced added two. A device that stops cleanly forgets them; a worker starting forgets those
of devices gone for a day. Its per-case log line names the run. Real redis-server, real
`farm worker` on the test plugin's ``fake`` kind, `farm run --broker`."""

from __future__ import annotations

import re
import signal
import time

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX, wait_idle
from tests.support.farm_cli import PLUGIN
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

C = f"{PREFIX}:celery:"


def bindings(r, device: str) -> list[str]:
    return [k for k in (f"{C}_kombu.binding.farm.dev.{device}",
                        f"{C}_kombu.binding_permanent.farm.dev.{device}") if r.exists(k)]


def plant(r, device: str) -> None:
    """The keys a device process killed long ago left: its bindings and a message."""
    member = f"farm.dev.{device}\x06\x16\x06\x16farm.dev.{device}"
    r.sadd(f"{C}_kombu.binding.farm.dev.{device}", member)
    r.sadd(f"{C}_kombu.binding_permanent.farm.dev.{device}", member)
    r.rpush(f"{C}farm.dev.{device}", "{}")


def test_a_device_forgets_its_queue_as_it_stops_and_a_start_sweeps_departed_ones(
        tmp_path, redis_url, workers, farm):
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    plant(r, "fake-1@pod-gone")         # its lease gone for two days (a sweep noted it then)
    r.hset(f"{PREFIX}:queues:gone", "fake-1@pod-gone", time.time() - 2 * 86400)
    plant(r, "fake-1@pod-recent")       # no sweep has seen it gone yet: kept for a day
    worker = workers("fake:1", "--loglevel", "INFO")
    name = next(iter(wait_idle(redis_url, 1)))
    assert bindings(r, name)            # (kombu's, as its consumer started)
    assert not bindings(r, "fake-1@pod-gone") and not r.exists(f"{C}farm.dev.fake-1@pod-gone")
    assert len(bindings(r, "fake-1@pod-recent")) == 2
    assert r.exists(f"{C}farm.dev.fake-1@pod-recent")
    assert list(r.hgetall(f"{PREFIX}:queues:gone")) == ["fake-1@pod-recent"]

    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", redis_url,
                    "--devices", "fake:1", "--report-dir", tmp_path / "run",
                    FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    run_id = re.search(r"\(run (\S+)\)", done.stdout).group(1)

    worker.send_signal(signal.SIGTERM)
    assert worker.wait(60) == 0
    assert bindings(r, name) == []
    assert f"{name} farm.worker s/c00 attempt 1: passed (run {run_id})" in farm.worker_logs()
