"""`farm run suites/demo --model openai/<name> --model-base-url …` against the scripted server:
the demo's ai case passes, tokens land in results.json, the secret never reaches the model."""

from __future__ import annotations

import json

import pytest

from tests.support.agent_scripts import XML_FLOW, by_progress
from tests.support.farm_cli import results

pytestmark = pytest.mark.integration

# the demo's ai step: the password was typed by the zero-token step before it
SHOPPING = [a for a in XML_FLOW if "DEMO_PASSWORD" not in a]


def test_demo_suite_with_a_model_passes_the_ai_case(tmp_path, farm, model_server):
    srv = model_server(by_progress(SHOPPING))
    proc = farm.run("run", "suites/demo", "--devices", "browser:1", "--no-progress",
                    "--report-dir", tmp_path / "run", "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url)
    raws = list(srv.raw)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "LiteLLM" not in proc.stdout + proc.stderr       # no library chatter in the output
    summary = results(tmp_path / "run")
    ai = next(c for c in summary["cases"] if c["case_id"].endswith("ai_shopping"))
    assert ai["status"] == "passed", json.dumps(ai, indent=1)[:3000]
    assert summary["counts"]["skipped"] == 0
    assert ai["tokens"]["prompt"] > 0 and ai["usage"]["calls"] == len(raws)
    step = next(s for s in ai["steps"] if s["kind"] == "ai")
    assert step["usage"]["calls"] == len(raws) and step["tier"] == "text"
    assert raws and all(b"farm-demo-pass" not in r for r in raws)
    junit = (tmp_path / "run" / "junit.xml").read_text()
    assert "tokens.prompt" in junit
