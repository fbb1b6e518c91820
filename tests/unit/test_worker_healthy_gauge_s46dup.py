"""farm_device_healthy of a `farm worker`'s device: 1 while it serves, 0 while its broker is
away (its /ready is 503), 1 again once the broker answers; a device not serving yet is left
as its state set it."""

from __future__ import annotations

from types import SimpleNamespace

from farm import metrics
from worker.runtime import _device_healthy


def _healthy(device: str) -> float | None:
    return metrics.REGISTRY.get_sample_value("farm_device_healthy",
                                             {"platform": "web", "device": device})


def test_the_healthy_gauge_follows_the_broker_while_the_device_serves():
    metrics.device_state("web", "s46dup-1", "idle")
    runtime = SimpleNamespace(platform="web", name="s46dup-1", state={"state": "idle"},
                              ready=lambda: True)
    assert _healthy("s46dup-1") == 1
    _device_healthy(runtime, False)                 # Redis away
    assert _healthy("s46dup-1") == 0
    _device_healthy(runtime, None)                  # back: as /ready says
    assert _healthy("s46dup-1") == 1


def test_a_device_not_serving_is_not_called_healthy():
    metrics.device_state("web", "s46dup-2", "starting")
    runtime = SimpleNamespace(platform="web", name="s46dup-2", state={"state": "starting"},
                              ready=lambda: True)
    _device_healthy(runtime, None)
    assert _healthy("s46dup-2") == 0
