"""farm/metrics.py, what a Prometheus sees of a process: series that exist at 0 before their
first increment (rate() and increase() count from a series' first sample), a /metrics port
that binds again at once after a restart, and a metrics.prom that node_exporter's textfile
collector can read next to its own process_* series."""

from __future__ import annotations

import errno
import socket
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from farm import metrics
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore
from farm.runner import Services
from farm.slot import DeviceSlot

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    """An exposition: (sample name, sorted labels) → value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for f in text_string_to_metric_families(text) for s in f.samples}


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return r.read().decode()


def locates(samples: Samples) -> dict[tuple[str, str], float]:
    return {(dict(k)["tier"], dict(k)["result"]): v for (name, k), v in samples.items()
            if name == "farm_locate_attempts_total"}


def caches(samples: Samples) -> dict[tuple[str, str], float]:
    return {(dict(k)["cache"], dict(k)["result"]): v for (name, k), v in samples.items()
            if name == "farm_cache_requests_total"}


# ---- series at 0 before the first increment ----------------------------------------------------
def test_a_device_process_is_scraped_with_every_locate_and_cache_series_at_zero_before_use(
        tmp_path: Path) -> None:
    """The auditor's dashboard said xpath=0 where 5 XPath hits had happened: the series was
    first scraped at 5, and increase() counts from a series' first sample. Once a device's
    slot starts, every tier × result and cache × result is there at 0, so the first hit is an
    increase of 1."""
    metrics.LOCATE_ATTEMPTS.clear()              # as in a process that has just started
    metrics.CACHE_REQUESTS.clear()
    device = FakeDevice(UITree(source="dom", nodes=[
        UINode(id=0, role="button", text="Go", rect=Rect(x=10, y=10, width=50, height=20))]),
        xpaths={"//button": [Rect(x=10, y=10, width=50, height=20)]})
    assert locates(parse(metrics.exposition().decode())) == {}
    slot = DeviceSlot(device, Services(settings=Settings(), artifacts=ArtifactStore(tmp_path),
                                       run_id="r", env={}))
    assert slot.open()
    try:
        server = metrics.MetricsServer(0, "127.0.0.1")
        port = server.start()
        try:
            before = parse(scrape(port))
            from farm.agent.locator import default_chain
            default_chain().locate("Go", device, xpath="//button")
            after = parse(scrape(port))
        finally:
            server.stop()
    finally:
        slot.close()
    every = {(t, r) for t in metrics.LOCATE_TIERS for r in metrics.LOCATE_RESULTS}
    assert locates(before) == dict.fromkeys(every, 0.0)
    assert caches(before) == dict.fromkeys(
        [(c, r) for c, rs in metrics.CACHE_RESULTS.items() for r in rs], 0.0)
    assert ("farm_screenshot_duration_seconds_count", (("platform", device.platform),)) in before
    increase = {k: v - locates(before)[k] for k, v in locates(after).items() if v != 0}
    assert increase == {("xpath", "hit"): 1.0}


def test_the_locate_tiers_created_at_zero_are_the_tiers_farm_has() -> None:
    from farm.agent.locator import TextMatchTier, XPathTier
    from farm.agent.model_tiers import AILocateTier, PlanBboxTier
    from farm.agent.ocr import OcrTier
    from farm.cache.locate import TIER
    names = {PlanBboxTier.name, XPathTier.name, TIER, TextMatchTier.name, OcrTier.name,
             AILocateTier(None, None, None).name, AILocateTier(None, None, None, deep=True).name}
    assert set(metrics.LOCATE_TIERS) == names


def model_outcomes(family: str) -> dict[str, float]:
    return {dict(k)["outcome"]: v for (name, k), v in parse(metrics.exposition().decode()).items()
            if name == "farm_model_requests_total" and dict(k)["family"] == family}


def test_a_model_family_has_every_outcome_at_zero_before_its_first_error() -> None:
    """A model error rate alert needs the error series at 0 before the first error."""
    metrics.model_family("unit-configured")
    assert model_outcomes("unit-configured") == {"ok": 0, "error": 0, "timeout": 0, "interrupted": 0}
    metrics.model_request("unit-unannounced", "ok", 0.5)  # a family nobody announced
    assert model_outcomes("unit-unannounced") == {"ok": 1, "error": 0, "timeout": 0, "interrupted": 0}


def test_a_device_starting_creates_its_configured_model_family_s_outcomes(tmp_path) -> None:
    """The family of FARM_MODEL (and of a separate planner) is there at 0 once a device
    starts, before any request: its first error is an increase, not a first sample."""
    settings = Settings(model="openai/unit-main", model_family="qwen2.5-vl",
                        planning_model="openai/unit-plan", planning_model_family="ui-tars")
    for family in ("qwen2.5-vl", "ui-tars"):         # as in a process that just started
        metrics._MODEL_FAMILIES.discard(family)
        for outcome in metrics.MODEL_OUTCOMES:
            try:
                metrics.MODEL_REQUESTS.remove(family, outcome)
            except KeyError:
                pass
        assert model_outcomes(family) == {}
    slot = DeviceSlot(FakeDevice(UITree(source="dom", nodes=[])), Services(
        settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r", env={}))
    assert slot.open()
    slot.close()
    for family in ("qwen2.5-vl", "ui-tars"):
        assert model_outcomes(family) == {"ok": 0, "error": 0, "timeout": 0, "interrupted": 0}, family


def test_a_run_starts_its_case_duration_and_agent_round_series_at_zero() -> None:
    metrics.run_started({"zero-platform"})
    samples = parse(metrics.exposition().decode())
    for status in metrics.STATUSES:
        key = ("farm_case_duration_seconds_count",
               (("platform", "zero-platform"), ("status", status)))
        assert samples[key] == 0.0
    assert samples[("farm_agent_iterations_count", (("platform", "zero-platform"),))] == 0.0


# ---- the /metrics port ----------------------------------------------------------------------
def scrape_to_the_end(port: int) -> bytes:
    """One scrape read until the server closes the connection (it answers HTTP/1.0): the
    server closes first, so its side of the connection is the one left in TIME_WAIT."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(b"GET /metrics HTTP/1.0\r\nHost: farm\r\n\r\n")
        reply = b""
        while chunk := client.recv(1 << 16):
            reply += chunk
    return reply


def test_a_restarted_server_binds_its_port_again_at_once_after_being_scraped() -> None:
    """A scraped port stays in TIME_WAIT for ~60 s after the server closes it: `farm run
    --metrics-port P` right after another exited 4 ("Address already in use"), and a restarted
    worker moved to the next port, away from its scrape target."""
    first = metrics.MetricsServer(0, "127.0.0.1")
    port = first.start()
    try:
        assert b"farm_" in scrape_to_the_end(port)
    finally:
        first.stop()
    run = metrics.MetricsServer(port, "127.0.0.1")                 # `farm run --metrics-port`
    try:
        assert run.start() == port
    finally:
        run.stop()
    again = metrics.MetricsServer(port, "127.0.0.1", scan=100)     # a worker's scan
    try:
        assert again.start() == port
        with pytest.raises(OSError) as busy:                       # a live listener: never
            metrics.MetricsServer(port, "127.0.0.1").start()       # shared
        assert busy.value.errno == errno.EADDRINUSE
        third = metrics.MetricsServer(port, "127.0.0.1", scan=100)
        try:
            assert third.start() != port                           # it moves on instead
        finally:
            third.stop()
    finally:
        again.stop()


# ---- metrics.prom -------------------------------------------------------------------------
def test_metrics_prom_has_farm_s_own_series_and_no_process_ones(tmp_path: Path) -> None:
    """node_exporter exports its own process_* series and drops a textfile's as "collected
    before" on every scrape; /metrics of a farm process still has them."""
    metrics.run_started({"web"})
    metrics.write_textfile(tmp_path / "metrics.prom")
    written = {f.name for f in text_string_to_metric_families(
        (tmp_path / "metrics.prom").read_text())}
    served = {f.name for f in text_string_to_metric_families(metrics.exposition().decode())}
    assert "farm_cases" in written
    assert [n for n in written if not n.startswith("farm_")] == []
    assert "process_cpu_seconds" in served
