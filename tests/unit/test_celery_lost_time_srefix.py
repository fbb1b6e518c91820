"""A worker killed 4 s into an 8 s case: its lost attempt said 'ERROR (will retry) … 12.5s',
the time until the run saw its lease expire (the lease outlives the worker by up to its
10 s TTL). Now the attempt's time ends at its worker's last heartbeat."""

from __future__ import annotations

import time
from types import SimpleNamespace

from farm.cluster import store
from farm.executors.celery import CeleryExecutor, _last_beat
from farm.executors.inflight import Inflight
from farm.schedule import Job


def test_the_last_beat_is_when_the_worker_last_renewed_its_lease():
    now = 1000.0
    assert _last_beat({"beat": time.time() - 3.0}, now) <= now - 2.9
    assert _last_beat({"beat": time.time() - 3.0}, now) >= now - 3.5
    # a clock skewed far behind: no further back than the lease's TTL
    assert _last_beat({"beat": time.time() - 3600}, now) == now - store.LEASE_TTL_S
    assert _last_beat({}, now) == now          # a lease of an older farm: as before


def test_a_lost_attempt_s_time_ends_at_its_worker_s_last_heartbeat(monkeypatch):
    inf = Inflight(Job("s/s8", "web", 8.0), sent=100.0, device="browser-1@h", seen=114.0,
                   began=100.0, alive=104.0)
    got = []
    run = SimpleNamespace(_so_far=lambda inf, status, until, error: got.append(until) or "r",
                          _record=lambda job, result, device: None)
    CeleryExecutor._lost(run, inf, "worker of browser-1@h stopped answering mid-case")
    assert got == [104.0]
    # no heartbeat seen since it began: until the last sighting, as before
    inf.alive = 99.0
    CeleryExecutor._lost(run, inf, "lost")
    assert got[-1] == 114.0
