"""A device process whose Redis failed over (its connection now goes to a replica: READONLY)
connects again for its next heartbeat, so its lease comes back on the new primary. Before,
it kept writing to the replica, every heartbeat refused: its lease gone for good, runs took
the device for dead, and it served nothing until someone restarted it."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from farm.cluster import store
import worker.runtime as runtime_module
from worker.outbox import REFUSED
from worker.runtime import DeviceRuntime

ReadOnlyError = REFUSED[1]      # redis-py's (unit tests import no redis)


class _FailedOver:
    """The connection pool of a client whose server became a replica: writes are refused
    until the pool connects again (to the new primary)."""

    def __init__(self) -> None:
        self.reconnects = 0

    def disconnect(self) -> None:
        self.reconnects += 1


def test_a_heartbeat_refused_by_a_replica_connects_again(monkeypatch):
    monkeypatch.setattr(store, "HEARTBEAT_S", 0.01)
    monkeypatch.setattr(runtime_module.metrics, "heartbeat", lambda *_: None)  # (no series)
    pool, stop, written = _FailedOver(), threading.Event(), []

    def write_lease() -> None:
        if not pool.reconnects:
            raise ReadOnlyError("You can't write against a read only replica.")
        written.append(True)
        stop.set()

    runtime = SimpleNamespace(_stop=stop, _write_lease=write_lease, target_key="",
                              name="fake-1@h", r=SimpleNamespace(connection_pool=pool))
    beat = threading.Thread(target=DeviceRuntime._heartbeat, args=(runtime,), daemon=True)
    beat.start()
    beat.join(60)
    assert written and pool.reconnects == 1


def test_a_device_that_lost_its_name_stops_its_heartbeat_metric(monkeypatch):
    """A device process another holds its name from drains (its lease is not renewed): its
    farm_worker_heartbeat_timestamp_seconds went on moving, so a dashboard's staleness alert
    saw a live device; it now stands at the last renewal."""
    monkeypatch.setattr(store, "HEARTBEAT_S", 0.01)
    beats, stop, leases = [], threading.Event(), []
    monkeypatch.setattr(runtime_module.metrics, "heartbeat", lambda name, when: beats.append(name))
    runtime = SimpleNamespace(_stop=stop, target_key="", name="fake-1@h", name_lost=False)
    runtime._beat = lambda: DeviceRuntime._beat(runtime)

    def write_lease() -> None:          # the first renewal holds; then another has the name
        leases.append(True)
        if len(leases) == 2:
            runtime.name_lost = True
        if len(leases) == 4:
            stop.set()
    runtime._write_lease = write_lease
    beat = threading.Thread(target=DeviceRuntime._heartbeat, args=(runtime,), daemon=True)
    beat.start()
    beat.join(60)
    assert len(leases) == 4 and beats == ["fake-1@h"]
