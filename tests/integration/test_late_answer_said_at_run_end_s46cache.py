"""A model request farm gave up at its timeout may still answer within 60 s for its spend to
be counted; when the run ended first (always so for the last retry of a one-case run) farm.log
said nothing of it. Now the run's end says which request it stopped waiting for. Real
`farm run`, real Chromium, the scripted model server over HTTP."""

from __future__ import annotations

from tests.support.model_server import NEVER_ANSWERS
from tests.integration.test_model_budget import _run, _suite


def test_a_request_given_up_that_never_answered_is_said_at_the_run_end(tmp_path, farm,
                                                                       model_server):
    srv = model_server(lambda body, index: NEVER_ANSWERS)
    run_dir = tmp_path / "run"
    done = _run(farm, _suite(tmp_path / "s", cases=1), run_dir, srv, "openai/gpt-4o-mini",
                FARM_MODEL_TIMEOUT="1", FARM_MODEL_RETRIES="0")
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    log = (run_dir / "farm.log").read_text()
    assert ("model openai/gpt-4o-mini: 1 request given up at its timeout had not answered "
            "when the run ended: its spend is not counted") in log, log
