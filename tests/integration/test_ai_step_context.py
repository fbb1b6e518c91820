"""Midscene's per-step `context:` on `ai:` / `aiAct:` in a real `farm run` (Chromium, the demo
shop, the scripted model over HTTP): the planner reads the step's own context in place of the
file's `agent: aiActContext:`, and a step without one still gets the file's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.agent_scripts import DONE_XML
from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import ModelServer, message_texts

CASE = """\
web:
  url: ${SHOP_URL}/index.html
agent:
  aiActContext: the file says cookies are fine
tasks:
  - name: two acts
    flow:
      - ai: look at the first product
        context: the step says prices are in euros
      - ai: look at the cart
"""


def test_an_ai_steps_context_reaches_the_model_in_place_of_the_files(
        farm: FarmCli, tmp_path: Path, model_server, demo_app: str) -> None:
    srv: ModelServer = model_server(lambda body, index: DONE_XML)
    (tmp_path / "case.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", tmp_path / "case.yaml", "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/planner-vlm",
                    "--model-base-url", srv.base_url, SHOP_URL=demo_app)
    [case] = results(run_dir)["cases"]
    assert done.returncode == 0, json.dumps(case, indent=1)[:3000] + done.stderr
    asked = {" ".join(message_texts(b)) for b in srv.requests}
    first = [a for a in asked if "look at the first product" in a]
    second = [a for a in asked if "look at the cart" in a]
    assert first and second, asked
    assert all("prices are in euros" in a and "cookies are fine" not in a for a in first)
    assert all("cookies are fine" in a and "prices are in euros" not in a for a in second)
