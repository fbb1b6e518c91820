"""The model spend of a cluster attempt lost mid-step (its device process killed while an ai
step was planning) is counted: the calls that step made were paid for, yet its worker reports
a step's usage only once the step ends, so the run's results.json, its summary line and
farm_case_tokens_total counted none of them. Real redis-server, real `farm worker`, a scripted
model server."""

from __future__ import annotations

import threading

import psutil
import pytest

from tests.support.agent_scripts import DONE_XML, xml
from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.model_server import Reply
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PROMPT = 1000       # prompt tokens of every reply
KEYS = ["Enter", "Tab", "Escape"]


def test_an_attempt_lost_mid_step_keeps_the_spend_of_that_step(tmp_path, redis_url, workers,
                                                               farm: FarmCli, model_server):
    killed = threading.Event()

    def script(body: dict, index: int) -> Reply:
        """Three planned key presses, then a call held until the device process is killed;
        after that (the retry), done."""
        if index < len(KEYS):
            return Reply(xml("KeyboardPress", {"keyName": KEYS[index]}), prompt_tokens=PROMPT)
        if index == len(KEYS):
            killed.wait(240)
        return Reply(DONE_XML, prompt_tokens=PROMPT)

    server = model_server(script)
    write_case(tmp_path / "s", "c", ["ai: press the keys"])
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker")
    (name, _), = wait_idle(redis_url, 1).items()
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                      "--report-dir", tmp_path / "run", "--no-progress",
                      "--metrics-port", "0",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV,
                         "FARM_METRICS_LINGER_SECONDS": "0"})
    busy, = wait_busy(redis_url)
    wait_for(lambda: len(server.requests) > len(KEYS), 120, "the step's fourth model call")
    psutil.Process(busy["pid"]).kill()          # mid-step: three calls answered, paid for
    killed.set()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    assert (case["status"], case["attempt"]) == ("passed", 2), case
    lost, = case["previous"]
    assert lost["error"]["kind"] == "DeviceLost", lost
    assert lost["usage"]["calls"] == len(KEYS), lost
    assert lost["usage"]["prompt_tokens"] == PROMPT * len(KEYS), lost
    assert lost["tokens"]["prompt"] == PROMPT * len(KEYS), lost
    step, = lost["steps"]
    assert step["usage"]["calls"] == len(KEYS), step       # the step it was in spent them
    assert f"model: {len(KEYS) + 1} call(s)" in out, out
    prom = (tmp_path / "run" / "metrics.prom").read_text()
    assert (f'farm_case_tokens_total{{kind="prompt",platform="web"}} '
            f'{float(PROMPT * (len(KEYS) + 1))}') in prom, prom
