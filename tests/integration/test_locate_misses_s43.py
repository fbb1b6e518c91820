"""What a user sees when a target is not quite what the step says, through real `farm run` on
real Chromium (and real RapidOCR for the canvas):

- a step whose `xpath:` matches nothing but whose text finds the button passes, and says so:
  on the console, in results.json (the case's reason), in the report and in farm.log. Before,
  it passed with `tier: text` and nothing anywhere said the XPath was stale;
- `aiInput: User name` on a form labelled "Username" fails as the README shows (`no element
  matches "User name"; the closest on screen is "Username" (label)`). Before, the OCR tier
  (run because the page has an iframe) read "Username" with its spaces dropped and typed there;
- on a page with a canvas beside that form, OCR still finds what the canvas draws, and still
  does not take the form's "Username" for "User name"."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.near_miss_page import FORM, FRAME, FRAMED, TYPO, TYPO_CASE

pytestmark = pytest.mark.integration

# a game drawn on a canvas below the same form: its button's label is in no DOM text
CANVAS = """<!doctype html><html><body><h1>Arcade</h1>""" + FORM + """<div id="said"></div>
<canvas id="game" width="400" height="160"></canvas>
<script>
  const c = document.getElementById('game'), g = c.getContext('2d');
  g.fillStyle = '#1565c0'; g.fillRect(40, 40, 220, 64);
  g.fillStyle = '#fff'; g.font = '28px sans-serif'; g.fillText('Start game', 62, 82);
  c.addEventListener('click', () => { document.getElementById('said').textContent = 'Game on'; });
</script></body></html>"""

CASES = {
    "stale_xpath": """name: stale xpath
web:
  url: ${QA_URL}/framed.html
tasks:
  - name: t
    flow:
      - aiInput: Username
        value: bob
      - aiTap: Log in
        xpath: //button[@id='nope']
      - assertText: Signed in as bob
""",
    "typo": TYPO_CASE,
    "canvas": """name: canvas beside a form
web:
  url: ${QA_URL}/canvas.html
tasks:
  - name: t
    flow:
      - aiTap: Start game
      - assertText: Game on
      - aiInput: User name
        value: x
""",
}
NOTE = ("step 2 (line 9): its xpath //button[@id='nope'] matched nothing; "
        'found "Log in" (button) by the text tier instead')


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str, Path]:
    """One `farm run` of the three cases: (results.json by case id, its output, run dir)."""
    pytest.importorskip("rapidocr_onnxruntime")
    tmp = tmp_path_factory.mktemp("misses")
    suite = tmp / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  qa:\n    serve: app\n"
                                     "    env: QA_URL\n")
    for name, page in (("framed", FRAMED), ("frame", FRAME), ("canvas", CANVAS)):
        (suite / "app" / f"{name}.html").write_text(page)
    for name, case in CASES.items():
        (suite / f"{name}.yaml").write_text(case)
    farm = FarmCli(tmp)
    try:
        done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp / "run")
    finally:
        farm.close()
    cases = {c["case_id"].rsplit("/", 1)[-1]: c for c in results(tmp / "run")["cases"]}
    return cases, done.stdout + done.stderr, tmp / "run"


def test_a_step_whose_xpath_matched_nothing_passes_and_says_so(run) -> None:
    cases, output, run_dir = run
    case = cases["stale_xpath"]
    assert case["status"] == "passed", (case.get("error"), output)
    assert case["steps"][1]["tier"] == "text"
    assert case["reason"] == NOTE                                # results.json
    assert case["steps"][1]["notes"] == [NOTE.split(": ", 1)[1]]     # and on its step
    assert "PASSED suite/stale_xpath" in output and NOTE in output     # the console
    assert NOTE in html.unescape((run_dir / "report.html").read_text())
    log = (run_dir / "farm.log").read_text()
    assert any("WARNING" in line and NOTE in line for line in log.splitlines()), log


def test_a_near_miss_fails_naming_the_closest_element_even_where_ocr_runs(run) -> None:
    cases, output, _ = run
    case = cases["typo"]
    assert case["status"] == "failed", output
    assert case["error"]["message"].splitlines()[0] == TYPO
    assert case["steps"][0]["tier"] is None


def test_ocr_still_reads_a_canvas_but_not_the_form_beside_it(run) -> None:
    cases, output, _ = run
    case = cases["canvas"]
    steps = [(s["status"], s["tier"]) for s in case["steps"]]
    assert steps[:2] == [("passed", "ocr"), ("passed", None)], (case, output)
    assert steps[2][0] == "failed"
    assert case["error"]["message"].splitlines()[0] == TYPO
