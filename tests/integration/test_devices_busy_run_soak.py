"""`farm devices --broker` names the run a busy device works for, as `farm worker`'s drain line
does: `busy demo/login_success` alone did not say whose case it was with two runs sharing the
cluster. Real redis-server, the lease a device process writes."""

from __future__ import annotations

import json

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_busy_device_names_its_case_and_run(redis_url, farm):
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    lease = {"device": "browser-3@vm", "kind": "browser", "platform": "web", "group": "browser",
             "state": "busy", "run": "20261207-061544-436a", "case": "demo/login_success",
             "attempt": 1}
    r.set(f"{PREFIX}:lease:browser-3@vm", json.dumps(lease), px=120_000)
    out = farm.run("devices", "--broker", redis_url, timeout=60, **CLUSTER_ENV).stdout
    line = next(ln for ln in out.splitlines() if "browser-3@vm" in ln)
    assert "busy demo/login_success (run 20261207-061544-436a)" in line, out
