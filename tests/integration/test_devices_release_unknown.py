"""`farm devices --broker URL --release NAME` with a name no device of the cluster has (a typo,
a host name left out) said "NAME: was not quarantined" and exited 0: a CI step meant to bring
a device back passed while the device stayed quarantined. Real redis-server."""

from __future__ import annotations

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_releasing_a_device_the_cluster_has_not_says_so_and_exits_4(redis_url, farm):
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    name = "fake-1@ci-host"
    r.hset(f"{PREFIX}:quarantine", name, "3 infrastructure errors in a row")
    done = farm.run("devices", "--broker", redis_url, "--release", "fake-1", timeout=60,
                    **CLUSTER_ENV)
    assert done.returncode == 4, done.stdout + done.stderr
    assert ("fake-1: no device of that name in the cluster (its devices are listed below)"
            in done.stdout.splitlines()), done.stdout
    assert f"  {name}" in done.stdout      # the name to give instead
    assert done.stderr.strip() == "farm: error: --release fake-1: no such device in the cluster"
    assert r.hexists(f"{PREFIX}:quarantine", name)
    done = farm.run("devices", "--broker", redis_url, "--release", name, timeout=60,
                    **CLUSTER_ENV)
    assert done.returncode == 0 and f"{name}: released" in done.stdout, done.stderr
