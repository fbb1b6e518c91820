"""A Midscene user's model variables, and nothing of farm's: `farm run` takes the model from
them (an OpenAI-compatible endpoint, as Midscene calls it) and the model step runs, where it
used to be skipped with "needs a model (set FARM_MODEL)"."""
from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer

KEY = "sk-midscene-integration-77"
CASE = """\
web:
  url: ${SHOP_URL}/index.html
tasks:
  - name: look
    flow:
      - aiAssert: the cart is empty
"""


def test_a_run_with_only_midscene_variables_runs_the_model_step(
        farm: FarmCli, tmp_path: Path, model_server, demo_app: str) -> None:
    srv: ModelServer = model_server(['{"pass": true, "thought": "Cart (0)"}'])
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "look.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, SHOP_URL=demo_app,
                    MIDSCENE_MODEL_NAME="scripted-vl", MIDSCENE_MODEL_BASE_URL=srv.base_url,
                    MIDSCENE_MODEL_API_KEY=KEY, MIDSCENE_MODEL_FAMILY="qwen3-vl")
    case = by_name(results(run_dir))["look"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert case["status"] == "passed" and case["steps"][0]["status"] == "passed"
    assert srv.requests and srv.requests[0]["model"] == "scripted-vl"
    assert srv.headers[0]["authorization"] == f"Bearer {KEY}"
    told = [line for line in done.stderr.splitlines() if line.startswith("farm: model from")]
    assert told == [f"farm: model from MIDSCENE_MODEL_NAME=scripted-vl (MIDSCENE_MODEL_BASE_URL "
                    f"{srv.base_url}, MIDSCENE_MODEL_API_KEY, MIDSCENE_MODEL_FAMILY=qwen3-vl): "
                    "openai/scripted-vl; FARM_MODEL and FARM_MODEL_* win over them"]
    assert KEY not in done.stdout + done.stderr
