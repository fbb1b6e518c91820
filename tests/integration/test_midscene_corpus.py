"""Midscene-format scripts as users bring them (tests/midscene/): every target form, step kind
and option either runs — on Chromium, the simulated phones and the scripted model server, in
one `farm run` — or is refused with file:line (tests/unit/test_midscene_format.py). The batch
file runs its files with its concurrency, as `farm run path/index.yaml` and as its folder."""

from __future__ import annotations

import base64
import json
import shutil
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.support.farm_cli import PLUGIN, ROOT, FarmCli, results
from tests.support.http_site import QuietHandler, serving

CORPUS = ROOT / "tests" / "midscene"


@contextmanager
def _http(answer: Callable[[BaseHTTPRequestHandler], tuple[str, bytes]]) -> Iterator[str]:
    """A local HTTP server (free port) whose GET replies ``answer(request)`` = (type, body)."""
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            kind, body = answer(self)
            self.send_page(body, kind=kind)
    with serving(Handler) as url:
        yield url


@pytest.fixture
def echo_url() -> Iterator[str]:
    """An HTTP server whose page lists the request headers it received."""
    def page(request: BaseHTTPRequestHandler) -> tuple[str, bytes]:
        lines = "".join(f"<li>{k.lower()}: {v}</li>" for k, v in request.headers.items())
        return "text/html", f"<html><body><ul>{lines}</ul></body></html>".encode()
    with _http(page) as url:
        yield url


def _text_of(body: dict) -> str:
    parts = body["messages"][-1]["content"]
    if isinstance(parts, str):
        return parts
    return "\n".join(p.get("text", "") for p in parts if p.get("type") == "text")


def _all_text(body: dict) -> str:
    """Every text the request carries (system prompt, earlier rounds, reference names)."""
    out = []
    for m in body["messages"]:
        parts = m["content"] if isinstance(m["content"], list) else [
            {"type": "text", "text": m["content"]}]
        out += [p.get("text", "") for p in parts if p.get("type") == "text"]
    return "\n".join(out)


PICTURE = [300, 100, 440, 180]       # the picture button of site/images.html, in pixels
NOTE = [300, 200, 440, 230]          # its text box
REFERENCE = "Reference image 'brand mark':"


def _plan_reply(body: dict) -> str:
    """The planner of model/planning.yaml and model/reference_images.yaml: tap the picture
    (twice for a strategy), then complete. The round is read from the steps done so far; a box
    is given only where the system prompt asks for one."""
    text, everything = _text_of(body), _all_text(body)
    done = text.count("\n- ") + text.count("[finished]")   # steps done, or sub-goals (max)
    taps = 1 if "reference picture" in text else 2
    if "reference picture" in text and REFERENCE not in everything:
        return '<complete success="false">no reference image was shown</complete>'
    if done >= taps:
        return '<complete success="true">tapped</complete>'
    locate: dict = {"prompt": "the brand picture"}
    if '"bbox"' in body["messages"][0]["content"]:
        locate["bbox"] = PICTURE
    goals = ""
    if "max -" in text:
        goals = (f'<mark-sub-goal-done>{done + 1}</mark-sub-goal-done>' if done else
                 '<update-plan-content><sub-goal index="1">tap once</sub-goal><sub-goal '
                 'index="2">tap again</sub-goal></update-plan-content>'
                 '<mark-sub-goal-done>1</mark-sub-goal-done>')
    return (f"{goals}<log>tap {done + 1}</log><action-type>Tap</action-type>"
            f"<action-param-json>{json.dumps({'locate': locate})}</action-param-json>")


def _images_of(body: dict) -> int:
    return sum(1 for m in body["messages"] if isinstance(m["content"], list)
               for p in m["content"] if p.get("type") == "image_url")


def corpus_model() -> Callable[[dict, int], str]:
    """Answers by what is asked; aiWaitFor's condition holds from its second check on."""
    waits = {"n": 0}

    def reply(body: dict, index: int) -> str:
        text = _text_of(body)
        if "What is the page's heading?" in text:
            return json.dumps({"data": "Corpus page"})
        if "the zone to double-click" in text:
            return json.dumps({"bbox": [20, 120, 180, 164]})
        if "file chooser button" in text:
            return json.dumps({"pass": "Choose a file" in text, "thought": "from the elements"})
        if "late data has arrived" in text:
            waits["n"] += 1
            return json.dumps({"pass": waits["n"] > 1, "thought": f"check {waits['n']}"})
        if "show the logo" in text:
            return json.dumps({"data": _images_of(body) == 2})
        if "Find the element: Logo" in text or "the button showing the brand" in text:
            found = REFERENCE in text             # only the image says which button is meant
            return json.dumps({"bbox": PICTURE if found else []})
        if "Find the element: the brand picture" in text:
            return json.dumps({"bbox": PICTURE})
        if "Find the element: the box under the brand mark" in text:
            return json.dumps({"bbox": NOTE if REFERENCE in text else []})
        if "picture" in text and "Task:" in text:
            return _plan_reply(body)
        return '<thought>nothing to do</thought><complete success="true">fine</complete>'
    return reply


def test_the_corpus_runs(farm: FarmCli, model_server, echo_url: str, tmp_path: Path) -> None:
    srv = model_server(corpus_model())
    out = tmp_path / "out"
    run = tmp_path / "run"
    done = farm.run("run", CORPUS / "web", CORPUS / "model", CORPUS / "mobile",
                    "--devices", "browser:2,android-sim:1,ios-sim:1", "--no-progress",
                    "--report-dir", run, "--model", "openai/scripted",
                    "--model-base-url", srv.base_url, timeout=400,
                    CORPUS_OUT=str(out), CORPUS_ECHO_URL=echo_url, OPENAI_API_KEY="none")
    summary = results(run)
    cases = {c["case_id"]: c for c in summary["cases"]}
    failed = {k: (c["status"], c.get("error"), [s.get("error") for s in c["steps"]])
              for k, c in cases.items() if c["status"] != "passed"}
    assert not failed and done.returncode == 0, (failed, done.stdout[-2000:], done.stderr)
    assert len(cases) == 11

    # target: loads with one deprecation line naming file:line
    warned = [ln for ln in done.stdout.splitlines() if "deprecated" in ln]
    assert warned == ["farm: warning: tests/midscene/web/target_deprecated.yaml:2:1: `target:` "
                      "is deprecated in Midscene (read as `page:`); rename it to `page:` or "
                      "`browser:`"]

    # every named result lands in the case's data, and output: writes it
    insight = cases["model/insight-steps"]         # agent.testId names the case
    assert insight["data"]["heading"] == "Corpus page"
    # the box, edges included, shaped as Midscene's aiLocate returns it
    assert insight["data"]["zone"]["rect"] == {"left": 20, "top": 120, "width": 161,
                                               "height": 45}
    assert insight["data"]["chooser"]["pass"] is True
    assert insight["data"]["has_logo"] is True
    assert json.loads((out / "insight.json").read_text()) == insight["data"]
    options = cases["web/page_options"]
    assert options["data"] == {"title": "Corpus page", "path": "/second.html"}
    assert json.loads((out / "page_options.json").read_text()) == options["data"]
    log = json.loads((out / "page_options.log.json").read_text())
    assert [s["kind"] for s in log][:2] == ["assertText", "assertText"]
    assert cases["mobile/android_steps"]["data"]["shell"].strip() == "corpus-shell"
    assert cases["mobile/ios_steps"]["data"]["status"]["ready"] is True

    # what the model was shown: domIncluded without a screenshot; the reference image
    chooser = next(b for b in srv.requests if "file chooser" in _text_of(b))
    assert _images_of(chooser) == 0 and "Choose a file" in _text_of(chooser)
    logo = next(b for b in srv.requests if "show the logo" in _text_of(b))
    assert _images_of(logo) == 2
    waits = [b for b in srv.requests if "late data has arrived" in _text_of(b)]
    assert len(waits) == 2                          # checked again until true
    _reference_images_reached_the_model(srv.requests, cases["model/reference_images"])
    _each_planning_strategy_changed_the_requests(srv.requests)


def _reference_images_reached_the_model(requests: list[dict], case: dict) -> None:
    """aiTap / aiLocate / ai / aiInput with {prompt, images}: the image (named) went with each
    request, and "Logo" was not matched by its words: the picture button was tapped, found by
    the model."""
    tap = [b for b in requests if "Find the element: Logo" in _text_of(b)]
    assert len(tap) == 1 and REFERENCE in _text_of(tap[0]) and _images_of(tap[0]) == 2
    typed = [b for b in requests if "Find the element: the box under" in _text_of(b)]
    assert len(typed) == 1 and _images_of(typed[0]) == 2
    assert case["data"]["found"]["rect"] == {"left": 300, "top": 100, "width": 141,
                                             "height": 81}
    plans = [b for b in requests if "reference picture" in _text_of(b)]
    assert len(plans) == 2 and all(REFERENCE in _all_text(b) for b in plans)
    assert [_images_of(b) for b in plans] == [2, 2]    # the screen and the reference, each round
    logo = (CORPUS / "site" / "logo.png").read_bytes()
    sent = next(p["image_url"]["url"] for m in tap[0]["messages"] for p in m["content"]
                if p.get("type") == "image_url" and p["image_url"]["url"].endswith(
                    base64.b64encode(logo).decode()[-40:]))
    assert base64.b64decode(sent.split(",", 1)[1]) == logo


def _each_planning_strategy_changed_the_requests(requests: list[dict]) -> None:
    def plans(name: str) -> list[dict]:
        return [b for b in requests if f"Task: {name} - tap" in _text_of(b)]
    fast, standard, most = plans("fast"), plans("standard"), plans("max")
    assert len(fast) == len(standard) == len(most) == 3      # tap, tap, complete
    # fast: no thought asked for, one screenshot, no earlier round; its boxes are the answer
    assert "<thought>" not in fast[0]["messages"][0]["content"]
    assert [len(b["messages"]) for b in fast] == [2, 2, 2]
    assert [_images_of(b) for b in fast] == [1, 1, 1]
    # standard: thought, no boxes (targets located separately), the two newest screenshots
    assert "<thought>" in standard[0]["messages"][0]["content"]
    assert "give no box" in standard[0]["messages"][0]["content"]
    assert [_images_of(b) for b in standard] == [1, 2, 2]
    # max: sub-goals asked for and sent back, every screenshot of the act
    assert "<update-plan-content>" in most[0]["messages"][0]["content"]
    assert "Sub-goals:" in _text_of(most[2])
    assert [_images_of(b) for b in most] == [1, 2, 3]
    located = [b for b in requests if "Find the element: the brand picture" in _text_of(b)]
    assert len(located) == 4                       # standard's and max's taps, not fast's


@pytest.fixture
def image_host() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server of site/logo.png (the model server cannot reach it: only farm can);
    yields its URL and the paths it was asked for."""
    logo = (CORPUS / "site" / "logo.png").read_bytes()
    asked: list[str] = []

    def image(request: BaseHTTPRequestHandler) -> tuple[str, bytes]:
        asked.append(request.path)
        return "image/png", logo
    with _http(image) as url:
        yield f"{url}/logo.png", asked


def test_http_reference_images_are_fetched_only_when_asked(farm: FarmCli, model_server,
                                                           image_host, tmp_path: Path) -> None:
    """convertHttpImage2Base64: true — farm fetches the image and the model gets its bytes;
    without it the model gets the link as written (farm does not fetch it)."""
    url, asked = image_host
    shutil.copytree(CORPUS / "site", tmp_path / "site")
    case = tmp_path / "http_images.yaml"
    case.write_text(f"""page:
  serve: site
  url: images.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: http images
    flow:
      - aiTap:
        locate:
          prompt: Logo
          images: [{{name: fetched logo, url: "{url}"}}]
          convertHttpImage2Base64: true
      - assertText: picture tapped 1
      - aiAssert:
          prompt: the linked logo is on the page
          images: [{{name: linked logo, url: "{url}"}}]
""")

    def reply(body: dict, index: int) -> str:
        if "Find the element: Logo" in _text_of(body):
            return json.dumps({"bbox": PICTURE if "'fetched logo'" in _text_of(body) else []})
        return json.dumps({"pass": True, "thought": "seen"})
    srv = model_server(reply)
    run = tmp_path / "run"
    done = farm.run("run", case, "--devices", "browser:1", "--no-progress", "--report-dir", run,
                    "--model", "openai/scripted", "--model-base-url", srv.base_url,
                    timeout=300, OPENAI_API_KEY="none")
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr)
    urls = [[p["image_url"]["url"] for m in b["messages"] for p in m["content"]
             if p.get("type") == "image_url"][1:] for b in srv.requests]   # after the screen
    logo = base64.b64encode((CORPUS / "site" / "logo.png").read_bytes()).decode()
    assert urls == [[f"data:image/png;base64,{logo}"], [url]]
    assert asked == ["/logo.png"]                     # fetched once, for the tap only


def test_a_batch_file_runs_its_files_with_its_concurrency(tmp_path: Path) -> None:
    """index.yaml with concurrent: 2 — both waiting files are running at once before either
    may finish (the test opens their gates only after both started); continueOnError: true
    lets every file run past the failing one; the summary lists each file."""
    batch = tmp_path / "batch"
    shutil.copytree(CORPUS / "batch", batch)
    gate = tmp_path / "gate"
    gate.mkdir()
    cli = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN, CORPUS_GATE=str(gate))
    try:
        proc = cli.start("run", batch / "index.yaml", "--devices", "fake:4",
                         "--report-dir", tmp_path / "run")
        proc.wait_for_line("concurrent 2 (--devices fake:2)")
        proc.wait_for_line("start batch/flows/wait_a")
        proc.wait_for_line("start batch/flows/wait_b")
        (gate / "a-go").write_text("")
        (gate / "b-go").write_text("")
        proc.finish()
        assert proc.returncode == 1
        summary = results(tmp_path / "run")
        assert {c["case_id"]: c["status"] for c in summary["cases"]} == {
            "batch/flows/fails": "failed", "batch/flows/plain": "passed",
            "batch/flows/wait_a": "passed", "batch/flows/wait_b": "passed"}
        assert sorted({c["device"] for c in summary["cases"]}) == ["fake-1", "fake-2"]
        files = json.loads((batch / "out" / "summary.json").read_text())
        assert files["total"] == 4 and files["failed"] == 1 and files["passed"] == 3
        # the folder is the batch too: not_listed.yaml is not part of it, and farm says so
        listed = cli.run("run", batch, "--collect-only")
        assert listed.returncode == 0
        assert "4 case(s) collected" in listed.stderr
        assert "batch/flows/not_listed  [" not in listed.stdout
        assert ("flows/not_listed.yaml is in its folder but not in its files:, so it does not "
                "run") in listed.stderr
    finally:
        cli.close()
