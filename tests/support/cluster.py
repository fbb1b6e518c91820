"""What a cluster's Redis says about its `farm worker`s: their device leases.

Test processes use the key prefix ``PREFIX`` (FARM_CLUSTER_PREFIX) so a stray key is easy to
tell from a real cluster's.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.farm_cli import wait_for

PREFIX = "farmtest"
CLUSTER_ENV = {"FARM_CLUSTER_PREFIX": PREFIX}


def leases(url: str) -> dict[str, dict[str, Any]]:
    """Live device leases: device name → lease (state, case, pid, ...)."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    out = {}
    try:
        for k in r.scan_iter(match=f"{PREFIX}:lease:*"):
            raw = r.get(k)
            if raw:
                out[k.split(":lease:", 1)[1]] = json.loads(raw)
    except (redis.ConnectionError, redis.TimeoutError):
        return {}           # Redis restarting: no lease is visible
    finally:
        r.close()
    return out


def runs(url: str) -> list[str]:
    """Ids of the runs whose clients are competing for the cluster's devices right now."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        return list(r.zrange(f"{PREFIX}:runs", 0, -1))
    finally:
        r.close()


def events(url: str, run_id: str) -> list[dict[str, Any]]:
    """The events workers have pushed for a run that its client has not taken yet."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        return [json.loads(e) for e in r.lrange(f"{PREFIX}:events:{run_id}", 0, -1)]
    except (redis.ConnectionError, redis.TimeoutError):
        return []           # Redis restarting: no event is visible
    finally:
        r.close()


def wait_idle(url: str, n: int, timeout: float = 90) -> dict[str, dict[str, Any]]:
    """Wait until ``n`` workers have opened their device and wait for work."""
    def idle() -> dict[str, dict[str, Any]] | None:
        found = leases(url)
        return found if sum(v.get("state") == "idle" for v in found.values()) >= n else None
    return wait_for(idle, timeout, f"{n} idle worker(s)")


def wait_busy(url: str, n: int = 1, timeout: float = 60) -> list[dict[str, Any]]:
    """Wait until ``n`` workers are running a case; their leases."""
    def busy() -> list[dict[str, Any]] | None:
        found = [v for v in leases(url).values() if v.get("state") == "busy"]
        return found if len(found) >= n else None
    return wait_for(busy, timeout, f"{n} busy worker(s)")
