"""Text a page keeps for screen readers alone is not on screen for text checks: Bootstrap's
`visually-hidden` / Tailwind's `sr-only` (a 1 px box that clips it), a clip-path that clips
it away whole, a transform that squashes it to nothing. Before, assertNoText failed on the
"Loading..." of a spinner and assertText passed on a nav's "(current)" that nobody sees; text
that shows (an anchored tooltip in a transformed box of no size) still counts. Real
`farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><head><style>
.visually-hidden { position: absolute !important; width: 1px !important; height: 1px !important;
  padding: 0 !important; margin: -1px !important; overflow: hidden !important;
  clip: rect(0, 0, 0, 0) !important; white-space: nowrap !important; border: 0 !important; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip-path: inset(50%); white-space: nowrap; border-width: 0; }
</style></head><body>
<div class="spinner"><span class="visually-hidden">Loading...</span></div>
<nav><a href="#">Home <span class="sr-only">(current)</span></a></nav>
<p style="clip-path: inset(100%)">Clipped away</p>
<p style="transform: scale(0)">Squashed</p>
<div style="position: absolute; top: 300px; left: 300px; transform: translate(-10px, -10px)">
  <p style="position: absolute; white-space: nowrap">Anchored tooltip</p></div>
</body></html>"""
CHECKS = ["assertNoText: 'Loading...'", "assertNoText: '(current)'",
          "assertNoText: Clipped away", "assertNoText: Squashed", "assertText: Home",
          "assertText: Anchored tooltip"]


def test_screen_reader_only_text_is_not_on_screen(tmp_path: Path, farm: FarmCli) -> None:
    root = tmp_path / "suite"
    (root / "app").mkdir(parents=True)
    (root / "app" / "index.html").write_text(PAGE)
    (root / "farm.yaml").write_text("timeout: 60\nretries: 0\napps:\n  site:\n"
                                    "    serve: app\n    env: SITE_URL\n")
    tasks = "".join(f"  - name: check {i}\n    continueOnError: true\n    flow:\n"
                    f"      - {check}\n" for i, check in enumerate(CHECKS))
    (root / "hidden.yaml").write_text(
        f"name: hidden\nweb:\n  url: ${{SITE_URL}}/index.html\ntasks:\n{tasks}")
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    wrong = {s["label"]: s["error"] for s in case["steps"] if s["status"] != "passed"}
    assert wrong == {}, done.stdout + done.stderr
    assert (done.returncode, case["status"]) == (0, "passed"), done.stdout + done.stderr
