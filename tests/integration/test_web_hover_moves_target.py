"""A tap whose target moves or gets covered when the mouse arrives (a hover effect) follows
it, as Playwright retries, or fails its own step. Before, the click went where the target had
been and the step passed; the case failed later on a text check that did not say why. Real
`farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

DONE = "document.getElementById(\"o\").textContent=\"Caught it\""
PAGES = {
    # moves once, on the first hover: followed, and the tap lands
    "once.html": "<button style='position:absolute;top:50px;left:50px' onmouseenter="
                 "'this.style.left=\"400px\"' onclick='" + DONE + "'>Run away</button>",
    # moves whenever the mouse moves over it: never reachable
    "always.html": "<button style='position:absolute;top:50px;left:50px' onmousemove="
                   "'this.style.left = this.style.left === \"400px\" ? \"50px\" : \"400px\"' "
                   "onclick='" + DONE + "'>Run away</button>",
    # re-rendered by its hover (a new node in the same place): tapped as before
    "rerender.html": "<button style='position:absolute;top:50px;left:50px' onmouseenter="
                     "'this.removeAttribute(\"onmouseenter\"); "
                     "this.replaceWith(this.cloneNode(true))' "
                     "onclick='" + DONE + "'>Run away</button>",
    # a hover panel that covers the button
    "cover.html": "<button style='position:absolute;top:50px;left:50px' onmouseenter="
                  "'document.getElementById(\"p\").style.display=\"block\"' onclick='" + DONE
                  + "'>Buy now</button><div id='p' style='display:none;position:fixed;top:0;"
                  "left:0;width:400px;height:200px;background:#eee'>Hover panel</div>",
}


def test_a_target_that_moves_under_the_mouse_is_followed_or_fails_its_tap(
        tmp_path: Path, farm: FarmCli) -> None:
    root = tmp_path / "suite"
    (root / "app").mkdir(parents=True)
    for name, html in PAGES.items():
        (root / "app" / name).write_text(
            f"<!doctype html><html><body>{html}<p id='o'>Waiting</p></body></html>")
    (root / "farm.yaml").write_text("timeout: 60\nretries: 0\napps:\n  site:\n"
                                    "    serve: app\n    env: SITE_URL\n")
    for page, target in (("once", "Run away"), ("always", "Run away"), ("cover", "Buy now"),
                         ("rerender", "Run away")):
        (root / f"{page}.yaml").write_text(
            f"name: {page}\nweb:\n  url: ${{SITE_URL}}/{page}.html\ntasks:\n  - name: t\n"
            f"    flow:\n      - aiTap: {target}\n      - assertText: Caught it\n")
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    cases = by_name(results(tmp_path / "run"))
    assert cases["once"]["status"] == "passed", cases["once"]
    # the report marks the tap where it went: on the button at its new place (left 400 px),
    # not where the button was read (left 50 px)
    (x, y), = cases["once"]["steps"][0]["marks"][0]["points"]
    assert x >= 400 and 50 <= y <= 90, cases["once"]["steps"][0]["marks"]
    assert cases["rerender"]["status"] == "passed", cases["rerender"]
    always, cover = cases["always"], cases["cover"]
    assert always["error"] == {
        "kind": "StepFailed", "step": 1,
        "message": "the target moves away each time the mouse reaches it (its hover "
                   "effect?): no tap reaches it"}, always
    assert (cover["error"]["kind"], cover["error"]["step"]) == ("StepFailed", 1), cover
    said = cover["error"]["message"]
    assert said.startswith("the target moved when the mouse reached it (its hover "
                           "effect?): a tap at ("), said
    assert said.endswith(') would hit <div> "Hover panel"'), said
