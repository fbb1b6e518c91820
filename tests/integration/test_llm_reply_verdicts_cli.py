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

One `farm run` per model family (a run has one): the gpt cases run together on two browsers,
each answered and counted by its own script (tests/support/per_case_model.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.support.farm_cli import FarmCli, by_name
from tests.support.farm_cli import results as read_results
from tests.support.model_server import ModelServer, image_size, request_images
from tests.support.per_case_model import PerCase

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
PRESS = ("Task: press the Go button", "ai: press the Go button")
GO = ("Find the element: the Go control.", "aiTap: the Go control")


def case_with(step: str) -> str:
    return CASE.replace("ai: press the Go button", step)


def clicks_suite(tmp: Path, cases: dict[str, str]) -> Path:
    suite = tmp / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 300\napps:\n  site:\n    serve: site\n"
                                     "    env: SITE_URL\n")
    for stem, case in cases.items():
        (suite / f"{stem}.yaml").write_text(case)
    return suite


class Ran:
    """One family's run: its exit and output, its cases by name, what each case was asked."""

    def __init__(self, done: Any, cases: dict[str, dict], model: PerCase) -> None:
        self.done, self.cases, self.model = done, cases, model

    def case(self, name: str) -> dict:
        case = self.cases[name]
        assert not self.model.unrouted, self.model.unrouted
        return case

    def why(self, name: str) -> str:
        return json.dumps(self.cases[name], indent=1)[:3000] + self.done.stderr


# Each family's cases: name -> (the marker its requests carry, its step, its script).
FAMILIES: dict[str, dict[str, tuple[str, str, Any]]] = {}


@pytest.fixture(scope="module")
def family_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Ran]]:
    """``family_run(family)``: the family's cases run once for the module, on a browser per
    two cases."""
    cli, done = FarmCli(tmp_path_factory.mktemp("farm")), {}

    def ran(family: str) -> Ran:
        if family not in done:
            cases = FAMILIES[family]
            tmp = tmp_path_factory.mktemp(family)
            model = PerCase(**{name: (marker, script)
                               for name, (marker, _, script) in cases.items()})
            with ModelServer(model) as srv:
                proc = cli.run("run", clicks_suite(tmp, {n: case_with(step) for n, (_, step, _)
                                                         in cases.items()}),
                               "--devices", f"browser:{min(len(cases), 2)}", "--no-progress",
                               "--report-dir", tmp / "run", "--model", "openai/scripted",
                               "--model-base-url", srv.base_url, "--model-family", family)
            done[family] = Ran(proc, by_name(read_results(tmp / "run")), model)
        return done[family]
    yield ran
    cli.close()


def clicks(case: dict) -> list:
    step = next(s for s in case["steps"] if s["kind"] == "javascript")
    return json.loads(step["output"]) if step["status"] == "passed" else None


FAMILIES["gpt"] = {
    "thought": (*PRESS, [
        '<thought>Once Go is pressed I will answer <complete success="true">pressed'
        '</complete>; not yet.</thought>' + TAP_GO,
        '<thought>nothing happened</thought><complete success=false>Go did nothing</complete>']),
}


def test_a_thought_quoting_complete_is_not_a_pass(family_run):
    ran = family_run("gpt")
    case = ran.case("thought")
    assert case["status"] == "failed", ran.why("thought")      # a test failure: exit 1
    assert ran.model.asked("thought") == 2
    assert "the model could not complete the task: Go did nothing" in ran.done.stdout
    assert case["error"]["message"] == "the model could not complete the task: Go did nothing"
    step = case["steps"][0]
    assert step["marks"][0]["points"] == [[500, 350]]      # the Tap of the first reply ran


FAMILIES["auto-glm"] = {
    "glm": (*PRESS, [
        'I should press Go; finish(message="pressed") comes after.\n'
        'do(action="Tap", element=[500,437])',
        '<think>pressed</think><answer>finish(message="pressed")</answer>']),
}


def test_autoglm_prose_quoting_finish_taps_first(family_run):
    ran = family_run("auto-glm")
    case = ran.case("glm")
    assert ran.done.returncode == 0, ran.why("glm")
    assert ran.model.asked("glm") == 2
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


FAMILIES["qwen2.5-vl"] = {
    "ai": (*PRESS, lambda b, i: (qwen25(TAP_GO.replace("[400, 300, 600, 400]", "BOX"))(b, i)
                                 if i == 0 else '<complete success="true">pressed</complete>')),
    "aiTap": (*GO, qwen25('{"bbox": BOX}')),
}


@pytest.mark.parametrize("step", ["ai", "aiTap"])
def test_qwen25_sees_a_padded_image_and_its_pixels_hit(family_run, step):
    ran = family_run("qwen2.5-vl")
    case = ran.case(step)
    assert case["status"] == "passed", ran.why(step)
    assert clicks(case) == [[500, 350]]       # unpadded: 1000×800 read as 1008×812, (504, 355)
    assert image_size(request_images(ran.model.bodies[step][0])[0]) == (1008, 812)


SPOTS = [TAP_GO.replace("[400, 300, 600, 400]", box)          # blank page, no effect
         for box in ("[50, 600, 60, 610]", "[70, 600, 80, 610]")]
FAMILIES["gpt"]["loop"] = ("Task: tap the blank spots in turn", "ai: tap the blank spots in turn",
                           lambda body, i: SPOTS[i % 2])


def test_two_taps_in_turn_on_an_unchanged_page_are_a_loop(family_run):
    ran = family_run("gpt")
    case = ran.case("loop")
    assert case["status"] == "failed", ran.why("loop")
    # A B A B A B(nudged) A B A: the fifth A on a page that never changed (not 20 rounds)
    assert ran.model.asked("loop") == 9
    assert case["error"]["message"].startswith(
        "agent stuck: Tap repeated 5 times, between other actions, on box [50, 600, 60, 610]")
    nudged = ran.model.texts("loop", 5)     # the round after A was tapped a third time
    assert "You repeated Tap box [50, 600, 60, 610]" in nudged
    assert "3 times, between other actions," in nudged


FAMILIES["ui-tars"] = {
    "tap": (*GO, ["Thought: the Go button.\nAction: click(start_box='(500,437)')"]),
}


def test_ui_tars_answering_a_locate_with_its_action_taps_there(family_run):
    ran = family_run("ui-tars")
    case = ran.case("tap")
    assert ran.done.returncode == 0, ran.why("tap")
    assert ran.model.asked("tap") == 1
    assert clicks(case) == [[500, 349]]         # 437·799/1000 = 349.2


def ui_tars_15(body: dict, index: int) -> str:     # the model resizes its image to ×28
    if index:
        return "Thought: done\nAction: finished(content='pressed')"
    w, h = image_size(request_images(body)[0])
    x, y = round(500 * round(w / 28) * 28 / w), round(350 * round(h / 28) * 28 / h)
    return f"Thought: Go\nAction: click(start_box='({x},{y})')"


FAMILIES["ui-tars-1.5"] = {"click": (*PRESS, ui_tars_15)}


def test_ui_tars_15_clicks_in_pixels_of_a_padded_image(family_run):
    ran = family_run("ui-tars-1.5")
    case = ran.case("click")
    assert ran.done.returncode == 0, ran.why("click")
    assert clicks(case) == [[500, 350]]
    assert "Coordinates are pixels of the screenshot." in ran.model.texts("click", 0)


FAMILIES["gpt"]["gave_up"] = (
    "Task: find a Go button and press it", "ai: find a Go button and press it",
    ['<thought>no Go here</thought><error>there is no Go button</error>'
     '<complete success="true">done</complete>'])


def test_an_error_beside_a_successful_complete_fails(family_run):
    ran = family_run("gpt")
    case = ran.case("gave_up")
    assert case["status"] == "failed", ran.why("gave_up")
    assert case["error"]["message"] == "the model gave up: there is no Go button"


FAMILIES["gpt"]["not_numbers"] = (*GO, ['{"bbox": ["left", "top", "right", "bottom"]}'])


def test_a_locate_answer_that_is_not_numbers_is_a_model_error(family_run):
    ran = family_run("gpt")
    case = ran.case("not_numbers")
    assert case["status"] == "error", ran.why("not_numbers")   # exit 3 on its own
    assert case["error"]["kind"] == "ModelUnavailable"        # not an internal error
    assert case["error"]["message"] == (
        "model openai/scripted: its locate reply could not be parsed twice: bbox must be 2 "
        "or 4 numbers, "
        'got ["left", "top", "right", "bottom"]')
    assert ran.model.asked("not_numbers") == 2


FAMILIES["gpt"]["not_found"] = (
    "Find the element: the Stop control.", "aiTap: the Stop control",
    ['{"bbox": [], "error": "the page has a Go button but no Stop button"}'])


def test_a_locate_not_found_says_the_models_reason(family_run):
    ran = family_run("gpt")
    case = ran.case("not_found")
    assert case["status"] == "failed", ran.why("not_found")
    assert ("the model did not find 'the Stop control': the page has a Go button but no Stop "
            "button") in case["error"]["message"]
