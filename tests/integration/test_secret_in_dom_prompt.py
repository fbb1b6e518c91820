"""``domIncluded: true`` shows the model the page's elements as text: a secret among them is
masked there as in every other prompt, also where CSS shows it upper-cased. A real `farm run`
(Chromium, the scripted model server keeping each request)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer, message_texts

SECRET = "dom-held-9Zq7w"

FARM_YAML = """\
secrets: [SESSION_CODE]
apps:
  site:
    serve: app
    env: SITE_URL
"""
PAGE = f"""<!doctype html><html><body>
<h1>Account</h1>
<p>session {SECRET}</p>
<p style="text-transform: uppercase">your code is {SECRET}</p>
</body></html>"""
CASE = """\
name: dom prompt
web:
  url: ${SITE_URL}/page.html
tasks:
  - name: the model reads the elements
    flow:
      - aiAssert: the account page is open
        domIncluded: true
"""


def test_a_secret_in_the_elements_text_is_masked_for_the_model(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    srv: ModelServer = model_server(['{"pass": true, "thought": "the heading says Account"}'])
    suite = tmp_path / "dom"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "page.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "dom.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url, SESSION_CODE=SECRET)
    case = by_name(results(run_dir))["dom"]
    assert done.returncode == 0, json.dumps(case, indent=1)[:4000] + done.stderr

    # The judge was shown the elements, each secret in them masked.
    asked = [" ".join(message_texts(body)) for body in srv.requests]
    assert len(asked) == 1 and "The page's elements" in asked[0], asked
    assert "session ***" in asked[0] and "YOUR CODE IS ***" in asked[0], asked[0]
    assert not [raw for raw in srv.raw if SECRET.casefold().encode() in raw.lower()]
