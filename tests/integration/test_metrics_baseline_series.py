"""`farm run --pushgateway` with local devices and a model: the baseline it pushes as it starts
holds its model, locate, cache and screenshot series at 0, not its case series alone, so that
Prometheus sees the model spend of a host's first run rise from 0 (a CI runner whose host name
is new at every job has only first runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import PLUGIN, FarmCli, wait_for
from tests.support.prometheus import Pushgateway
from tests.support.suites import write_case

PROMPT = ("farm_model_tokens_total", (("family", "gpt"), ("kind", "prompt")))
COST = ("farm_model_cost_usd_total", (("family", "gpt"),))
TEXT_HITS = ("farm_locate_attempts_total", (("result", "hit"), ("tier", "text")))
SHOTS = ("farm_screenshot_duration_seconds_count", (("platform", "web"),))
PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))


@pytest.fixture
def gateway(tmp_path: Path):
    gateway = Pushgateway(tmp_path).start()
    yield gateway
    gateway.stop()


def test_a_local_runs_baseline_has_its_model_and_device_series_at_zero(
        gateway: Pushgateway, tmp_path: Path, farm: FarmCli, model_server) -> None:
    """The baseline held farm_cases_total alone: farm_model_tokens_total, the cost, the locate
    attempts and the screenshots reached the gateway first at the run's end, with their
    values, and `increase()` (which counts from a series' second sample) saw none of them."""
    srv = model_server(["<complete success=\"true\">done</complete>"])
    gate = tmp_path / "go"
    suite = tmp_path / "s"
    write_case(suite, "held", [f"javascript: farm-test:wait-for:{gate}"])
    proc = farm.start("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                      tmp_path / "run", "--pushgateway", gateway.url, "--model",
                      "openai/gpt-4o-mini", "--model-base-url", srv.base_url,
                      FARM_DEVICE_PLUGINS=PLUGIN, FARM_MODEL_API_KEY="sk-test-0000")
    wait_for(lambda: gateway.held("farm_run").get(PASSED) == 0, 120,
             "the run's baseline at the gateway")
    baseline = gateway.held("farm_run")
    gate.touch()                                # only now may the case end
    out = proc.finish()
    assert proc.returncode == 0, out
    assert [baseline.get(k) for k in (PROMPT, COST, TEXT_HITS, SHOTS)] == [0, 0, 0, 0], out
    assert gateway.held("farm_run")[PASSED] == 1
