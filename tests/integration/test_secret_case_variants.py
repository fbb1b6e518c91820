"""A secret a page shows cased by CSS (``text-transform: uppercase`` / ``capitalize``) is
masked as the secret itself is: the page's visible text holds ``FARM-DEMO-PASS`` where the
suite declares ``farm-demo-pass``, and a real `farm run` (Chromium, the scripted model server
keeping every request body) quotes that text in a step's output, a failed text check, the
model's feedback and the cache. None of them, nor any file of the run, holds it in any case."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.agent_scripts import DONE_XML, xml
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer, image_size, message_texts, request_images

SECRET = "farm-demo-pass"           # the demo suite's DEMO_PASSWORD
SHOWN = {"uppercase": "FARM-DEMO-PASS", "capitalize": "Farm-Demo-Pass"}   # as Chromium shows it

FARM_YAML = """\
secrets: [DEMO_PASSWORD]
vars:
  DEMO_PASSWORD: farm-demo-pass
apps:
  site:
    serve: app
    env: SITE_URL
"""

PAGE = f"""<!doctype html><html><head><style>
.up {{ text-transform: uppercase; }}  .cap {{ text-transform: capitalize; }}
</style></head><body>
<p class="up" id="reminder">Password reminder: {SECRET}</p>
<p class="cap">your code is {SECRET}</p>
<button onclick="this.textContent='opened'">Open account</button>
</body></html>"""

CASE = """\
name: cased secret
web:
  url: ${SITE_URL}/page.html
tasks:
  - name: the page's text quoted
    continueOnError: true
    flow:
      - javascript: document.body.innerText
      - assertText: "Password reminder: farm-demo-past"
  - name: the model reads the page's text
    flow:
      - ai: open the password reminder
"""


def model(body: dict, index: int) -> str:
    """The AI locate tier misses, so the text tier's near candidates (the reminder line)
    become the planner's feedback; then the task is done."""
    texts = message_texts(body)
    if texts[0].startswith("Find the element"):
        return '{"bbox": [], "error": "not there"}'
    if "Feedback on the last action" in texts[-1]:
        return DONE_XML
    return xml("Tap", {"locate": {"prompt": "password reminder line"}})


def write_suite(root: Path) -> Path:
    suite = root / "cased"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "page.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "cased.yaml").write_text(CASE)
    return suite


def holds_secret(text: str) -> bool:
    """Whether ``text`` holds the secret in any case (CSS can produce several)."""
    return SECRET.casefold() in text.casefold()


def test_a_secret_the_page_upper_cases_is_masked_in_outputs_errors_and_the_prompt(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    srv: ModelServer = model_server(model)
    run_dir = tmp_path / "run"
    done = farm.run("run", write_suite(tmp_path), "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url)
    case = by_name(results(run_dir))["cased"]
    steps = case["steps"]
    # the failed checks were in continueOnError tasks: the case fails (Midscene: partialFailed)
    assert done.returncode == 1, json.dumps(case, indent=1)[:4000] + done.stderr

    # The leaks were provoked: the page's text, cased, was quoted in each place ...
    text, check, ai = steps[0], steps[1], steps[2]
    assert text["status"] == "passed" and "PASSWORD REMINDER: ***" in text["output"], text
    assert "Your Code Is ***" in text["output"], text
    assert check["status"] == "failed" and '"PASSWORD REMINDER: ***"' in check["error"], check
    assert ai["status"] == "passed", ai
    plans = [" ".join(message_texts(b)) for b in srv.requests
             if "Feedback on the last action" in " ".join(message_texts(b))]
    assert plans and "PASSWORD REMINDER: ***" in plans[0], plans

    # ... and masked there: no request to the model, file of the run, cache or output holds
    # the secret, whatever its case.
    leaked = [i for i, raw in enumerate(srv.raw) if holds_secret(raw.decode(errors="replace"))]
    assert not leaked, f"requests {leaked} hold the secret"
    written = [p for p in (*run_dir.rglob("*"), *(tmp_path / "state").rglob("*"))
               if p.is_file() and p.suffix != ".jpg"]
    assert {p.name for p in written} >= {"results.json", "report.html", "farm.log"}
    for path in written:
        assert not holds_secret(path.read_bytes().decode(errors="replace")), path
    assert not holds_secret(done.stdout + done.stderr)


SHORT = "Qx7Rm2"    # a secret shorter than MIN_SECRET_CHARS, in mixed case
BUTTON_PAGE = f"""<!doctype html><html><head><style>
body {{ margin: 0; font: 16px sans-serif; }}
button {{ position: absolute; left: 40px; top: 40px; width: 400px; height: 40px; }}
</style></head><body><div><span>Row {SHORT}</span>
<button onclick="this.dataset.copied='yes'">Copy</button></div>
<button id="copy-code" style="top: 120px">Copy {SHORT}</button>
</body></html>"""
BUTTON_CASE = """\
name: cached element
web:
  url: ${SITE_URL}/page.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: tap a button that shows the secret
    flow:
      - aiTap: the second copy button
      - aiTap: the first copy button
"""


def test_the_cache_keeps_no_secret_an_element_shows_not_even_case_folded(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    """The locate cache keeps an element's strings (and those of its row) case-folded, to
    compare them later; a secret among them, whatever its length, is left out."""
    def answer(body: dict, index: int) -> str:
        w, h = image_size(request_images(body)[-1])
        top = 120 if "second" in message_texts(body)[0] else 40
        return json.dumps({"bbox": [round(40 * w / 800), round(top * h / 600),
                                    round(440 * w / 800), round((top + 40) * h / 600)]})
    srv: ModelServer = model_server(answer)
    suite = tmp_path / "short"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "page.html").write_text(BUTTON_PAGE)
    (suite / "farm.yaml").write_text("secrets: [ROW_CODE]\n" + FARM_YAML.split("\n", 3)[3])
    (suite / "cached.yaml").write_text(BUTTON_CASE)
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress", "--report-dir",
                    tmp_path / "run", "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url, ROW_CODE=SHORT)
    steps = by_name(results(tmp_path / "run"))["cached"]["steps"]
    assert done.returncode == 0 and [s["tier"] for s in steps] == ["ai", "ai"], steps

    # the database and its write-ahead log (entries written last may be there alone)
    cache = b"".join(p.read_bytes() for p in (tmp_path / "state").glob("cache.db*"))
    assert b"copy" in cache                     # the entries are there ...
    assert SHORT.casefold().encode() not in cache.lower()   # ... without the secret
