"""Text a web page draws only in a visible <canvas> (a chart's labels, a Flutter web app) is read
by the text checks, by OCR of a screenshot as on phones: assertText of it passes, assertNoText of
it fails saying it is on screen, read by OCR. Before, the checks read the rendered DOM text
alone: assertText said "not on screen" and assertNoText passed with the text in plain sight.
A page whose canvas does not show (hidden, scrolled out, too small for text) and a page without
one are read as before, with no OCR. Real `farm run`, real Chromium, real RapidOCR; the pages on
127.0.0.1, a frame of another origin on localhost, each server on a free port."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

# a canvas of ``style`` drawing "Revenue 4200", with DOM text beside it
CHART = """<!doctype html><html><body style="margin:0">{before}<h1>Quarterly report</h1>
<canvas id="c" width="600" height="120" style="{style}"></canvas>
<script>
const g = document.getElementById("c").getContext("2d");
g.fillStyle = "#fff"; g.fillRect(0, 0, 600, 120);
g.fillStyle = "#000"; g.font = "bold 48px sans-serif"; g.fillText("Revenue 4200", 20, 75);
</script></body></html>"""
PAGES = {
    "chart.html": CHART.format(before="", style=""),
    "plain.html": """<!doctype html><html><body><h1>Quarterly report</h1>
<p>Orders 17</p></body></html>""",
    "hidden.html": CHART.format(before="", style="visibility:hidden"),
    "below.html": CHART.format(before='<div style="height:3000px"></div>', style=""),
    "tiny.html": CHART.format(before="", style="width:30px; height:10px"),
    "framed.html": """<!doctype html><html><body><h1>Quarterly report</h1>
<iframe src="{other}/chart.html" style="width:640px; height:200px; border:0"></iframe>
</body></html>""",
}

CASE = """name: {name}
web:
  url: {own}/{page}
tasks:
  - name: check
    flow:
{steps}"""
OCR = "read by OCR of a screenshot"


def _steps(*steps: str) -> str:
    return "".join(f"      - {step}\n" for step in steps)


CASES = {
    # the canvas's text is on screen: assertText passes, assertNoText of text not drawn too
    "drawn": ("chart.html", _steps("assertText: Quarterly report", "assertText: Revenue 4200",
                                   "assertNoText: Orders 17")),
    "drawn not expected": ("chart.html", _steps("assertNoText: Revenue 4200")),
    "drawn in a frame": ("framed.html", _steps("assertText: Revenue 4200")),
    # no canvas, or none that shows: the DOM text alone, as before (no OCR)
    "no canvas": ("plain.html", _steps("assertText: Orders 17",
                                       "assertNoText: Revenue 4200",
                                       "assertText: Revenue 4200")),
    "hidden canvas": ("hidden.html", _steps("assertText: Revenue 4200")),
    "canvas below the fold": ("below.html", _steps("assertText: Revenue 4200")),
    "canvas too small": ("tiny.html", _steps("assertText: Revenue 4200")),
}


@pytest.fixture
def origins() -> Iterator[tuple[str, str]]:
    """(the pages' origin, the frame's): two servers on free ports, the second named by
    localhost (another origin than 127.0.0.1)."""
    class Pages(QuietHandler):
        def do_GET(self) -> None:
            body = PAGES.get(self.path.split("?")[0].lstrip("/"))
            self.send_page(body.replace("{other}", other).encode() if body else b"",
                           200 if body else 404)

    with ExitStack() as stack:
        own = stack.enter_context(serving(Pages))
        other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield own, other


def test_text_checks_read_what_a_visible_canvas_draws(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str]) -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    suite = tmp_path / "suite"
    suite.mkdir()
    for i, (name, (page, steps)) in enumerate(CASES.items()):
        (suite / f"c{i}.yaml").write_text(CASE.format(name=name, own=origins[0], page=page,
                                                      steps=steps))
    farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    run = {case["name"]: case for case in results(tmp_path / "run")["cases"]}
    _canvas_read(run)
    _read_as_before(run)


def _canvas_read(run: dict[str, Any]) -> None:
    for name in ("drawn", "drawn in a frame"):
        assert run[name]["status"] == "passed", (name, run[name].get("error"))
    failed = run["drawn not expected"]
    assert failed["status"] == "failed"
    assert failed["error"]["message"].startswith(
        'text "Revenue 4200" is on screen but should not be: '
        'the screen shows it in "Revenue 4200" (' + OCR), failed["error"]


def _read_as_before(run: dict[str, Any]) -> None:
    for name in ("no canvas", "hidden canvas", "canvas below the fold", "canvas too small"):
        result = run[name]
        assert result["status"] == "failed", (name, result.get("error"))
        error = result["error"]["message"]
        assert error.startswith('expected text "Revenue 4200" is not on screen'), (name, error)
        assert OCR not in error, (name, error)
    assert run["no canvas"]["error"]["step"] == 3       # (steps 1 and 2 passed)
