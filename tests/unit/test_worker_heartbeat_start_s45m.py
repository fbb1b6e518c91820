"""A worker whose Redis goes away as it starts (its name claimed, no lease renewed since):
its /metrics had no farm_worker_heartbeat_timestamp_seconds at all (set at a renewal only), so
FarmWorkerNoHeartbeat had nothing to compare and never fired. Now the series exists from the
start, at the time the name was taken, and stands still while Redis is away."""

from __future__ import annotations

import time
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

import worker.main as main
from farm import metrics
from farm.cluster import store


class _RedisGone(Exception):
    """Redis went away right after the name was claimed."""


def _beats() -> dict[str, float]:
    text = metrics.exposition().decode()
    return {s.labels["device"]: s.value for f in text_string_to_metric_families(text)
            for s in f.samples if s.name == "farm_worker_heartbeat_timestamp_seconds"}


def test_the_heartbeat_series_exists_from_the_workers_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def gone(*_: Any) -> Any:
        raise _RedisGone

    monkeypatch.setattr(store, "connect", lambda url: object())
    monkeypatch.setattr(main, "broker_up", lambda *_: True)
    monkeypatch.setattr(main, "claim_name", lambda *_, **__: "fake-1@s45m")
    monkeypatch.setattr(main, "serve_metrics", lambda *_: "")
    monkeypatch.setattr(store, "quarantined", gone)
    monkeypatch.setattr(main, "_log_as", lambda name: None)
    from farm.config import Settings
    settings = Settings(broker_url="redis://127.0.0.1:1/0")
    monkeypatch.setattr("farm.devices.specs.known_kinds", lambda s: {"fake": "web"})
    before = time.time()
    with pytest.raises(_RedisGone):
        main._device_process(main._child_args(["--kind", "fake"]), settings, [])
    assert before <= _beats().get("fake-1@s45m", 0.0) <= time.time()
