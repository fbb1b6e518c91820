"""Midscene's ``waitForNetworkIdle`` after every action, a model-planned one too: the corpus
site's slow page shows its data only when three requests, each answered after 4 s, are back
(more than the 2 in flight Midscene counts as idle). With the option, the step after a tap that
starts them (an `aiTap`, or a Tap an `ai:` step's model planned) sees the data: the device waits
for the page's requests after the action, not a fixed time. (Without that wait both cases fail:
seen when the device's wait was removed.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.corpus_site import CorpusSite
from tests.support.farm_cli import FarmCli, results

CASE = """\
web:
  url: ${{SLOW_SITE}}/slow.html
  waitForNetworkIdle:
    timeout: 30000
tasks:
  - name: load
    flow:
      - {step}
      - assertText: Data arrived
"""
TAP = ('<thought>the button loads it</thought><action-type>Tap</action-type>'
       '<action-param-json>{"locate": {"prompt": "Load data"}}</action-param-json>')


def test_the_step_after_an_action_sees_what_the_network_brought(farm: FarmCli, model_server,
                                                                tmp_path: Path) -> None:
    def planner(body: dict, index: int) -> str:
        asked = json.dumps(body)
        return TAP if "- " not in asked.split("Task:")[-1] and index == 0 else \
            '<complete success="true">loaded</complete>'
    srv = model_server(planner)
    suite = tmp_path / "idle"
    suite.mkdir()
    (suite / "tap.yaml").write_text(CASE.format(step="aiTap: Load data"))
    (suite / "planned.yaml").write_text(CASE.format(step="ai: load the data"))
    with CorpusSite(tmp_path) as site:
        done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "r",
                        "--model", "openai/scripted", "--model-base-url", srv.base_url,
                        SLOW_SITE=site.url, OPENAI_API_KEY="none")
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    assert {k: c["status"] for k, c in cases.items()} == {
        "idle/tap": "passed", "idle/planned": "passed"}, done.stdout + done.stderr
    assert done.returncode == 0
    assert len(srv.requests) >= 2          # the model planned the tap, then saw it done
