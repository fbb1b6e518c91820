"""`farm run --broker` while its Redis is away: the terminal hears that the run waits for the
broker (and for how long), and then that it is back, or that the run gave up; as it hears
"waiting for a web worker". Before, only farm.log said "broker unreachable (…): waiting up
to 60s", and the terminal stayed silent through the outage. The broker's password is never
said. Real redis-server of the test's own (stopped and started again), real `farm worker`."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PASSWORD = "s43-broker-pw"


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def test_a_run_says_it_waits_for_the_broker_and_that_it_is_back(tmp_path, private_redis,
                                                                workers, farm):
    server = private_redis(password=PASSWORD)
    masked = server.url.replace(PASSWORD, "***")
    go = tmp_path / "go"
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{go}"])
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    proc = run_on(farm, server.url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1",
                  FARM_CLUSTER_OUTAGE_SECONDS="900")
    wait_busy(server.url, 1)
    server.stop()
    waits = proc.wait_for_line("farm: the broker ", 120)
    assert waits.startswith(f"farm: the broker {masked} does not answer ("), waits
    assert waits.endswith("): the run waits up to 900s for it (FARM_CLUSTER_OUTAGE_SECONDS)")
    server.start()
    back = proc.wait_for_line("answers again", 120)
    assert back.startswith("farm: the broker answers again after ") and back.endswith(
        "s: the run goes on"), back
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    assert results(tmp_path / "run")["cases"][0]["status"] == "passed", out
    assert out.count("does not answer") == 1 and out.count("answers again") == 1, out
    assert PASSWORD not in out, out


def test_a_run_says_it_gave_up_on_the_broker(tmp_path, private_redis, farm):
    server = private_redis(password=PASSWORD)
    masked = server.url.replace(PASSWORD, "***")
    write_case(tmp_path / "s", "c00", ["sleep: 1"])
    proc = run_on(farm, server.url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1",
                  FARM_CLUSTER_DEVICE_WAIT="600", FARM_CLUSTER_OUTAGE_SECONDS="3")
    proc.wait_for_line("farm: waiting for a web worker", 60)
    server.stop()
    out = proc.finish()
    assert proc.returncode == 3, out
    said = [ln for ln in out.splitlines() if ln.startswith("farm: ") and "broker" in ln]
    assert said[0].startswith(f"farm: the broker {masked} does not answer ("), said
    assert said[1] == (f"farm: error: the broker {masked} did not answer for 3s "
                       "(FARM_CLUSTER_OUTAGE_SECONDS): the cases left end as errors"), said
    assert PASSWORD not in out, out
