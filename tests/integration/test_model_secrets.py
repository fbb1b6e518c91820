"""What a model reads and what it can make a device do, in a real `farm run` (Chromium, the
scripted model server logging every request body):

* a declared secret in an aiTap / aiInput target, an `ai:` task, an aiAssert statement and in
  text a page echoes back never reaches the model, raw or encoded: the model reads
  ``${TOKEN}`` (the zero-token tiers miss on purpose, so the AI locate tier is asked);
* a ``${VAR}`` the suite does not declare, written by the model, is typed as written (not
  expanded from the environment) and the step says so.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote, quote_plus

from tests.support.agent_scripts import DONE_XML, xml
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer, image_size, message_texts, request_images

SECRET = "Tok en/s3cr+t=9Zq"
ENV_ONLY = "from-the-environment-7Hx"      # a variable of farm's environment, not declared

FARM_YAML = """\
secrets: [TOKEN]
apps:
  accounts:
    serve: app
    env: ACCOUNTS_URL
"""

# CSS pixels of the page at 800x600; the model answers in pixels of the screenshot it saw.
ROW, NOTE = (40, 40, 440, 80), (40, 120, 340, 150)
PAGE = f"""<!doctype html><html><head><style>
body {{ margin: 0; font: 16px sans-serif; }}
#row {{ position: absolute; left: 40px; top: 40px; width: 400px; height: 40px; }}
#note {{ position: absolute; left: 40px; top: 120px; width: 300px; height: 30px;
         box-sizing: border-box; }}
#status {{ position: absolute; left: 40px; top: 200px; }}
</style></head><body>
<div id="row" role="button" onclick="document.getElementById('status').textContent='opened'"
>Account {SECRET}</div>
<input id="note" aria-label="Note">
<div id="status">closed</div>
</body></html>"""

TARGETS = """\
name: secret targets
web:
  url: ${ACCOUNTS_URL}/page.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: targets the zero-token tiers cannot find
    flow:
      - aiTap: the row for account ${TOKEN}
      - waitForText: opened
        timeout: 5000
      - aiInput: the note field for account ${TOKEN}
        value: ${TOKEN}
      - javascript: "document.querySelector('#note').value === '${TOKEN}'"
  - name: the model's own steps
    flow:
      - ai: check account ${TOKEN}
      - aiAssert: account ${TOKEN} is opened
"""

UNDECLARED = """\
name: undeclared variable
web:
  url: ${ACCOUNTS_URL}/page.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: the model types a variable nobody declared
    flow:
      - ai: write the deploy key into the note
      - javascript: "document.querySelector('#note').value"
"""


def encodings(secret: str) -> dict[str, str]:
    """The secret as an HTTP client, a JSON writer or a page could spell it."""
    data = secret.encode()
    return {"raw": secret, "quote": quote(secret, safe=""), "quote /": quote(secret),
            "quote_plus": quote_plus(secret), "json": json.dumps(secret)[1:-1],
            "base64": base64.b64encode(data).decode().rstrip("="),
            "base64url": base64.urlsafe_b64encode(data).decode().rstrip("=")}


def box(css: tuple[int, int, int, int], body: dict) -> str:
    """``css`` in pixels of the screenshot this request carries, as a locate answer."""
    w, h = image_size(request_images(body)[-1])
    sx, sy = w / 800, h / 600
    return json.dumps({"bbox": [round(css[0] * sx), round(css[1] * sy),
                                round(css[2] * sx), round(css[3] * sy)]})


def model(body: dict, index: int) -> str:
    """Answers by what is asked: locate requests, the judge, and the two `ai:` tasks."""
    texts = message_texts(body)
    first, last = texts[0], texts[-1]
    if first.startswith("Find the element: the row for account"):
        return box(ROW, body)
    if first.startswith("Find the element: the note field"):
        return box(NOTE, body)
    if first.startswith("Find the element"):     # the ai step's own target: not found
        return '{"bbox": [], "error": "not there"}'
    if first.startswith("Judge this statement"):
        return '{"pass": true, "thought": "the status says opened"}'
    if "Task: write the deploy key" in last:
        if "Steps done so far:" in last:
            return DONE_XML
        return xml("Input", {"value": "${DEPLOY_KEY}", "locate": {"prompt": "Note"}})
    if "Feedback on the last action" in last:
        return DONE_XML
    # no box: the planned target goes down the chain to the AI locate tier, which misses,
    # and the text tier's near candidates (the row shows the secret) become feedback
    return xml("Tap", {"locate": {"prompt": "account ${TOKEN} row"}})


def write_suite(root: Path) -> Path:
    suite = root / "model_secrets"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "page.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "targets.yaml").write_text(TARGETS)
    (suite / "undeclared.yaml").write_text(UNDECLARED)
    return suite


def test_the_model_reads_placeholders_and_types_only_declared_variables(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    srv: ModelServer = model_server(model)
    run_dir = tmp_path / "run"
    done = farm.run("run", write_suite(tmp_path), "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url, TOKEN=SECRET, DEPLOY_KEY=ENV_ONLY)
    cases = by_name(results(run_dir))
    targets, undeclared = cases["targets"], cases["undeclared"]
    assert done.returncode == 0, json.dumps(cases, indent=1)[:4000] + done.stderr

    # The leaks were provoked: the targets went down to the AI locate tier, the ai step's
    # target missed there too (its near candidates quote the page), the judge was asked.
    steps = targets["steps"]
    assert [s["tier"] for s in steps[:4]] == ["ai", None, "ai", None], steps
    assert steps[3]["output"] is True                 # the device got the value typed
    asked = [message_texts(body)[0] for body in srv.requests]
    assert "Find the element: the row for account ${TOKEN}." in " ".join(asked)
    assert "Find the element: the note field for account ${TOKEN}." in " ".join(asked)
    assert "Find the element: account ${TOKEN} row." in " ".join(asked)
    plans = [" ".join(message_texts(b)) for b in srv.requests if "Task: check account" in
             " ".join(message_texts(b))]
    assert "Task: check account ${TOKEN}" in plans[0]
    assert any("Feedback on the last action" in p and '"Account ***"' in p for p in plans), plans
    assert any("Statement: account ${TOKEN} is opened" in a for a in asked)

    # ... and no request body holds the secret, in any spelling.
    for name, form in encodings(SECRET).items():
        leaked = [i for i, raw in enumerate(srv.raw) if form.encode() in raw]
        assert not leaked, f"requests {leaked} hold the secret ({name})"

    # The model's ${DEPLOY_KEY} was typed as written, and the step says why.
    ai_step = next(s for s in undeclared["steps"] if s["kind"] == "ai")
    assert ai_step["output"]["notes"] == ["not expanded: ${DEPLOY_KEY} is not declared"]
    assert undeclared["steps"][-1]["output"] == "${DEPLOY_KEY}"
    assert ENV_ONLY not in (run_dir / "results.json").read_text()
