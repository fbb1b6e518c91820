"""Ctrl-C during a model call, as a user presses it: `farm run` (a fake device, litellm over HTTP
against the scripted model server) stops waiting for the model and sends it nothing more. It used
to wait out FARM_MODEL_TIMEOUT and send the retries after the interrupt."""

from __future__ import annotations

import signal
import threading

import pytest

from tests.support.agent_scripts import SIGN_IN_CASE as CASE
from tests.support.farm_cli import PLUGIN, results
from tests.support.model_server import NEVER_ANSWERS

pytestmark = pytest.mark.integration



def test_ctrl_c_stops_the_model_call_and_its_retries(farm, model_server, tmp_path):
    asked = threading.Event()

    def script(body: dict, index: int):
        asked.set()
        return NEVER_ANSWERS
    srv = model_server(script)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    # each request waits 10 s, then a retry: without the fix two more go out after Ctrl-C
    # before the run gives up waiting for its device (30 s)
    proc = farm.start("run", tmp_path / "s", "--devices", "fake:1", "--no-progress",
                      "--report-dir", run_dir, FARM_DEVICE_PLUGINS=PLUGIN,
                      FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=srv.base_url,
                      FARM_MODEL_TIMEOUT="10", FARM_MODEL_RETRIES="2",
                      FARM_MODEL_BACKOFF="0.1")
    assert asked.wait(90), proc.output
    proc.send_signal(signal.SIGINT)
    out = proc.finish(timeout=120)
    assert proc.returncode == 2, out
    assert len(srv.requests) == 1, out              # nothing sent after Ctrl-C
    [case] = results(run_dir)["cases"]
    assert case["status"] == "interrupted", case
    assert "Traceback" not in out
