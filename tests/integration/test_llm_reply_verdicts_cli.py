"""What a model's reply means for the case, end to end: `farm run` of an `ai:` step on real
Chromium against the scripted OpenAI-compatible server, on a page that records where it was
clicked (a `javascript:` step after the ai step puts the clicks in results.json).

* an XML reply whose <thought> quotes <complete success="true"> before its Tap is a Tap, not a
  finished task; the next reply's <complete success=false> fails the case (both used to pass),
  and so does an <error> beside <complete success="true"> (it passed);
* an AutoGLM reply whose prose quotes finish(message=...) before its do(...) taps, at the
  0-999 point mapped onto the page (it used to finish at once, nothing tapped);
* qwen2.5-vl is shown the 1000×800 page padded to 1008×812 (a multiple of 28: its own resize
  changes nothing), and its pixel box is tapped where it is on the page (aiTap and ai:); so is
  UI-TARS-1.5 (family ui-tars-1.5): its click in pixels of that image is where it meant;
* a model tapping two blank spots in turn on a page that never changes is nudged, then stopped
  as stuck after the fifth tap on one of them (it used to go on to the replanning cap: 20
  rounds, AutoGLM 100);
* a UI-TARS model answering aiTap's locate with its own action (click(start_box='(x,y)')) taps
  there, where it was a model error after a retry;
* a locate answer whose box is not numbers (["left", ...], null, NaN) is a model error naming
  it, where it was an "internal error: could not convert string to float"; a locate the model
  answers "not found" says the model's reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.farm_cli import results
from tests.support.model_server import image_size, request_images

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><head><style>
body{margin:0} #go{position:absolute;left:400px;top:300px;width:200px;height:100px}
</style></head><body><button id="go">Go</button>
<script>window.clicks=[];
document.addEventListener('click',e=>window.clicks.push([e.clientX,e.clientY]));</script>
</body></html>"""
CASE = """\
name: press
web:
  url: ${SITE_URL}/index.html
  viewportWidth: 1000
  viewportHeight: 800
tasks:
  - name: press
    flow:
      - ai: press the Go button
      - javascript: return JSON.stringify(window.clicks)
        name: clicks
"""
TAP_GO = ('<action-type>Tap</action-type><action-param-json>{"locate": {"prompt": "", '
          '"bbox": [400, 300, 600, 400]}}</action-param-json>')


def clicks_page(tmp: Path, case: str = CASE) -> Path:
    suite = tmp / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 300\napps:\n  site:\n    serve: site\n"
                                     "    env: SITE_URL\n")
    (suite / "press.yaml").write_text(case)
    return suite


def run(farm, tmp: Path, srv, family: str = "gpt", case: str = CASE):
    done = farm.run("run", clicks_page(tmp, case), "--devices", "browser:1", "--no-progress",
                    "--report-dir", tmp / "run", "--model", "openai/scripted",
                    "--model-base-url", srv.base_url, "--model-family", family)
    [case] = results(tmp / "run")["cases"]
    return done, case


def clicks(case: dict) -> list:
    step = next(s for s in case["steps"] if s["kind"] == "javascript")
    return json.loads(step["output"]) if step["status"] == "passed" else None


def test_a_thought_quoting_complete_is_not_a_pass(tmp_path, farm, model_server):
    srv = model_server([
        '<thought>Once Go is pressed I will answer <complete success="true">pressed'
        '</complete>; not yet.</thought>' + TAP_GO,
        '<thought>nothing happened</thought><complete success=false>Go did nothing</complete>'])
    done, case = run(farm, tmp_path, srv)
    assert done.returncode == 1, json.dumps(case, indent=1)[:3000] + done.stderr
    assert len(srv.requests) == 2
    assert "the model could not complete the task: Go did nothing" in done.stdout
    assert case["error"]["message"] == "the model could not complete the task: Go did nothing"
    step = case["steps"][0]
    assert step["marks"][0]["points"] == [[500, 350]]      # the Tap of the first reply ran


def test_autoglm_prose_quoting_finish_taps_first(tmp_path, farm, model_server):
    srv = model_server([
        'I should press Go; finish(message="pressed") comes after.\n'
        'do(action="Tap", element=[500,437])',
        '<think>pressed</think><answer>finish(message="pressed")</answer>'])
    done, case = run(farm, tmp_path, srv, "auto-glm")
    assert done.returncode == 0, json.dumps(case, indent=1)[:3000] + done.stderr
    assert len(srv.requests) == 2
    # 500/999 of 1000 px, 437/999 of 800 px: round(v·(size−1)/999)
    assert clicks(case) == [[500, 350]]
    assert case["steps"][0]["output"]["message"] == "pressed"


def qwen25(answer: str):
    """A script answering as qwen2.5-vl does: its box is in pixels of the image it got,
    resized to the nearest multiple of 28 (Go is at [400, 300, 600, 400] on the page)."""
    def script(body: dict, index: int) -> str:
        w, h = image_size(request_images(body)[0])
        sx, sy = round(w / 28) * 28 / w, round(h / 28) * 28 / h
        box = [round(400 * sx), round(300 * sy), round(600 * sx), round(400 * sy)]
        return answer.replace("BOX", json.dumps(box))
    return script


@pytest.mark.parametrize("step", ["ai: press the Go button", "aiTap: the Go control"])
def test_qwen25_sees_a_padded_image_and_its_pixels_hit(tmp_path, farm, model_server, step):
    plan = TAP_GO.replace("[400, 300, 600, 400]", "BOX")
    srv = model_server(qwen25('{"bbox": BOX}') if step.startswith("aiTap") else lambda b, i: (
        qwen25(plan)(b, i) if i == 0 else '<complete success="true">pressed</complete>'))
    done, case = run(farm, tmp_path, srv, "qwen2.5-vl",
                     CASE.replace("ai: press the Go button", step))
    assert done.returncode == 0, json.dumps(case, indent=1)[:3000] + done.stderr
    assert clicks(case) == [[500, 350]]       # unpadded: 1000×800 read as 1008×812, (504, 355)
    assert image_size(srv.images(0)[0]) == (1008, 812)


def test_two_taps_in_turn_on_an_unchanged_page_are_a_loop(tmp_path, farm, model_server):
    spots = [TAP_GO.replace("[400, 300, 600, 400]", box)          # blank page, no effect
             for box in ("[50, 600, 60, 610]", "[70, 600, 80, 610]")]
    srv = model_server(lambda body, i: spots[i % 2])
    done, case = run(farm, tmp_path, srv)
    assert done.returncode == 1, json.dumps(case, indent=1)[:3000] + done.stderr
    # A B A B A B(nudged) A B A: the fifth A on a page that never changed (not 20 rounds)
    assert len(srv.requests) == 9
    assert case["error"]["message"].startswith(
        "agent stuck: Tap repeated 5 times, between other actions, on box [50, 600, 60, 610]")
    nudged = srv.texts(5)                  # the round after A was tapped a third time
    assert "You repeated Tap box [50, 600, 60, 610]" in nudged
    assert "3 times, between other actions," in nudged


def test_ui_tars_answering_a_locate_with_its_action_taps_there(tmp_path, farm, model_server):
    srv = model_server(["Thought: the Go button.\nAction: click(start_box='(500,437)')"])
    done, case = run(farm, tmp_path, srv, "ui-tars",
                     CASE.replace("ai: press the Go button", "aiTap: the Go control"))
    assert done.returncode == 0, json.dumps(case, indent=1)[:3000] + done.stderr
    assert len(srv.requests) == 1
    assert clicks(case) == [[500, 349]]         # 437·799/1000 = 349.2


def test_ui_tars_15_clicks_in_pixels_of_a_padded_image(tmp_path, farm, model_server):
    def script(body: dict, index: int) -> str:     # the model resizes its image to ×28
        if index:
            return "Thought: done\nAction: finished(content='pressed')"
        w, h = image_size(request_images(body)[0])
        x, y = round(500 * round(w / 28) * 28 / w), round(350 * round(h / 28) * 28 / h)
        return f"Thought: Go\nAction: click(start_box='({x},{y})')"
    srv = model_server(script)
    done, case = run(farm, tmp_path, srv, "ui-tars-1.5")
    assert done.returncode == 0, json.dumps(case, indent=1)[:3000] + done.stderr
    assert clicks(case) == [[500, 350]]
    assert "Coordinates are pixels of the screenshot." in srv.texts(0)


def test_an_error_beside_a_successful_complete_fails(tmp_path, farm, model_server):
    srv = model_server(['<thought>no Go here</thought><error>there is no Go button</error>'
                        '<complete success="true">done</complete>'])
    done, case = run(farm, tmp_path, srv)
    assert done.returncode == 1, json.dumps(case, indent=1)[:3000] + done.stderr
    assert case["error"]["message"] == "the model gave up: there is no Go button"


def test_a_locate_answer_that_is_not_numbers_is_a_model_error(tmp_path, farm, model_server):
    srv = model_server(['{"bbox": ["left", "top", "right", "bottom"]}'])
    done, case = run(farm, tmp_path, srv,
                     case=CASE.replace("ai: press the Go button", "aiTap: the Go control"))
    assert done.returncode == 3, json.dumps(case, indent=1)[:3000] + done.stderr
    assert case["error"]["kind"] == "ModelUnavailable"        # not an internal error
    assert case["error"]["message"] == (
        "model openai/scripted: its locate reply could not be parsed twice: bbox must be 2 "
        "or 4 numbers, "
        'got ["left", "top", "right", "bottom"]')
    assert len(srv.requests) == 2


def test_a_locate_not_found_says_the_models_reason(tmp_path, farm, model_server):
    srv = model_server(['{"bbox": [], "error": "the page has a Go button but no Stop button"}'])
    done, case = run(farm, tmp_path, srv,
                     case=CASE.replace("ai: press the Go button", "aiTap: the Stop control"))
    assert done.returncode == 1, json.dumps(case, indent=1)[:3000] + done.stderr
    assert ("the model did not find 'the Stop control': the page has a Go button but no Stop "
            "button") in case["error"]["message"]
