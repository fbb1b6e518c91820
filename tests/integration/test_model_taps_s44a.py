"""What a step the model located says, through a real run on real Chromium with a scripted
model server:

- a tap on a button a modal's backdrop covers fails naming the cover, as the cache and text
  tiers' finds do (before, the model's box was tapped unchecked: the tap hit the backdrop, the
  step passed and the case failed a step later with nothing about the modal);
- the same button with no modal in front is tapped and the case passes;
- a model that finds no such element says why on the failure's first line (the console's,
  results.json's message), before the closest element on screen, its words cut short and any
  secret in them masked (before, only the closest element was on that line);
- `aiTap: Buy now` the model found on a button renamed "Purchase" passes with a note (the
  step's notes, the console's line and end-of-run warning, results.json's reason), where it
  passed silently; a described target ("the blue buy button") gets no such note."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run
from tests.support.farm_cli import by_name, results
from tests.support.model_server import ModelServer, message_texts

pytestmark = pytest.mark.integration

BUY = [100, 100, 220, 140]          # where the blue button is drawn (CSS px = image px)
MODAL = ('<div id="modal" style="position:fixed;left:0;top:0;width:800px;height:600px;'
         'background:rgba(0,0,0,.5)"><div style="background:#fff;position:absolute;'
         'left:250px;top:200px;width:300px;height:150px">We updated our terms '
         '<button onclick="document.getElementById(\'modal\').remove()">Accept</button>'
         '</div></div>')
PAGE = """<!doctype html><html><body style="margin:0;font-family:sans-serif">
<button id="buy" style="position:absolute;left:100px;top:100px;width:120px;height:40px;
background:#1565c0;color:#fff;border:0" onclick="say('Bought 1')">%s</button>
<p id="st" style="position:absolute;left:100px;top:450px">Ready</p>%s
<script>function say(t) { document.getElementById('st').textContent = t; }</script>
</body></html>"""
CASE = """web:
  serve: site
  url: %s
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: t
    flow:
      - aiTap: %s
      - assertText: Bought 1
"""
PAGES = {"plain.html": PAGE % ("Buy now", ""), "modal.html": PAGE % ("Buy now", MODAL),
         "renamed.html": PAGE % ("Purchase", "")}
CASES = {"covered": ("modal.html", "the blue buy button"),
         "clear": ("plain.html", "the blue buy button"),
         "missed": ("plain.html", "the big blue buy button"),
         "renamed": ("renamed.html", "Buy now")}
KEY = "sk-s44a-model-key"           # the model's key: a secret of the run
MISSED = f"I see no such button (my key is {KEY}) " + "and nothing like it " * 30


def model(body: dict, index: int) -> str:
    """Finds the blue button wherever it is asked for it, but not a big one."""
    if "big" in message_texts(body)[-1]:
        return json.dumps({"bbox": [], "error": MISSED})
    return json.dumps({"bbox": BUY})


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    """One run of every case: (results by case, the console's output)."""
    tmp = tmp_path_factory.mktemp("taps")
    (tmp / "s" / "site").mkdir(parents=True)
    for name, page in PAGES.items():
        (tmp / "s" / "site" / name).write_text(page)
    for name, (url, target) in CASES.items():
        (tmp / "s" / f"{name}.yaml").write_text(CASE % (url, target))
    with ModelServer(model) as srv:
        settings = load_settings(report_dir=tmp / "run", state_dir=tmp / "state",
                                 model="openai/scripted", model_base_url=srv.base_url,
                                 model_api_key=KEY, cache="off")
        out = io.StringIO()
        run([tmp / "s"], "browser:1", settings, progress=False, out=out)
    return by_name(results(tmp / "run")), out.getvalue()


def test_a_model_located_tap_on_a_covered_button_fails_naming_the_cover(ran):
    cases, said = ran
    case = cases["covered"]
    assert case["status"] == "failed"
    cover = ('"the blue buy button" is covered by <div id="modal"> "We updated our terms '
             'Accept": a tap there would hit that')
    assert case["error"]["message"].startswith(cover), case["error"]
    assert f"step 1: {cover}" in said, said


def test_a_model_located_tap_on_a_clear_button_passes(ran):
    cases, _ = ran
    assert cases["clear"]["status"] == "passed", cases["clear"]["error"]
    assert cases["clear"]["steps"][0]["tier"] == "ai"
    assert not cases["clear"]["steps"][0].get("notes")


def test_a_model_that_finds_nothing_says_why_on_the_first_line(ran):
    cases, said = ran
    first = cases["missed"]["error"]["message"].splitlines()[0]
    assert first.startswith('no element matches "the big blue buy button"; the model did not '
                            "find 'the big blue buy button': I see no such button (my key is "
                            "***) and nothing like it"), first
    assert first.endswith('…; the closest on screen is "Buy now" (button)'), first
    assert KEY not in first and len(first) < 320, first
    assert f"step 1: {first}" in said, said


def test_a_label_the_model_found_renamed_passes_saying_so(ran):
    cases, said = ran
    case = cases["renamed"]
    assert case["status"] == "passed", case["error"]
    note = ('the model found "Purchase" (button) for "Buy now", which shares no word with it: '
            "if the app renamed it, change the step")
    assert case["steps"][0]["tier"] == "ai" and case["steps"][0]["notes"] == [note]
    assert f"step 1 (line 9): {note}" in case["reason"], case["reason"]
    assert "farm: warning: s/renamed (" in said and note in said.split("farm: warning")[-1], said
