"""A `farm worker`'s device changing state (busy -> idle) while its broker was away set
farm_device_healthy back to 1 while /ready said 503: the state's gauge now holds only while
the worker's check (its broker answers) holds too."""

from __future__ import annotations

from farm import metrics
from worker.outbox import OUTAGE


def _healthy(device: str) -> float | None:
    return metrics.REGISTRY.get_sample_value("farm_device_healthy",
                                             {"platform": "web", "device": device})


def test_a_state_change_while_the_broker_is_away_keeps_the_device_unhealthy(monkeypatch):
    monkeypatch.setattr(metrics, "_SERVES", [])
    metrics.serves_only_if(lambda: OUTAGE.since is None)     # as a DeviceRuntime sets it
    monkeypatch.setattr(OUTAGE, "since", 1.0)                # Redis away
    metrics.device_state("web", "s46-h1", "busy")
    metrics.device_state("web", "s46-h1", "idle")
    assert _healthy("s46-h1") == 0
    monkeypatch.setattr(OUTAGE, "since", None)               # back
    metrics.device_state("web", "s46-h1", "busy")
    assert _healthy("s46-h1") == 1
    metrics.device_state("web", "s46-h1", "dead")
    assert _healthy("s46-h1") == 0


def test_a_local_run_without_the_check_keeps_the_state_alone(monkeypatch):
    monkeypatch.setattr(metrics, "_SERVES", [])
    metrics.device_state("web", "s46-h2", "idle")
    assert _healthy("s46-h2") == 1
