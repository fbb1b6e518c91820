"""A page that breaks its own renderer is the case's failure, not the browser's: `farm run` in real
Chromium. A renderer that crashed (out of memory) used to read as the browser's crash (an
error, retried, the browser restarted); a click handler that never returns used to cost the
case's whole timeout plus the watchdog's grace, then a browser kill."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUTTON = ("<button style='position:absolute;left:20px;top:20px;width:160px;height:40px' "
          "onclick='{js}'>{label}</button>")
PAGES = {
    "hog.html": BUTTON.format(label="Eat memory", js="let a = []; while (true) "
                              "a.push(new Array(1e6).fill(1.5))"),
    "loop.html": BUTTON.format(label="Freeze", js="while (true) {}"),
    "fine.html": "<p>All fine here</p>",
}
# a small V8 heap for the run's browser: the hog runs out of memory in a fraction of a second,
# not after gigabytes
SMALL_HEAP = '["--js-flags=--max-old-space-size=32"]'


def suite(root: Path, cases: dict[str, tuple[str, str]]) -> Path:
    """A suite serving PAGES, one case per ``name: (page, flow)``, run in that order."""
    (root / "app").mkdir(parents=True)
    for name, html in PAGES.items():
        (root / "app" / name).write_text(f"<!doctype html><html><body>{html}</body></html>")
    (root / "farm.yaml").write_text("timeout: 120\nretries: 0\napps:\n  site:\n"
                                    "    serve: app\n    env: SITE_URL\n")
    for i, (name, (page, flow)) in enumerate(cases.items()):
        (root / f"{i}_{name}.yaml").write_text(
            f"name: {name}\nweb:\n  url: ${{SITE_URL}}/{page}\ntasks:\n{flow}")
    return root


def flow(*steps: str, optional: bool = False) -> str:
    return (f"  - name: steps\n    continueOnError: {str(optional).lower()}\n    flow:\n"
            + "".join(f"      - {step}\n" for step in steps))


FINE = ("fine.html", flow("assertText: All fine here"))


def launches(run: Path) -> int:
    """How many times the run started a Chromium (its log says so for each)."""
    return (run / "farm.log").read_text().count("browser-1: Chromium")


def test_a_crashed_renderer_fails_its_case_and_the_browser_goes_on(tmp_path: Path,
                                                                   farm: FarmCli) -> None:
    root = suite(tmp_path / "suite", {
        "hog": ("hog.html", flow("aiTap: Eat memory", "assertText: Eat memory")),
        "fine": FINE})
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    FARM_BROWSER_ARGS=SMALL_HEAP)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out           # a failed case, not an infrastructure error (3)
    cases = by_name(results(tmp_path / "run"))
    hog = cases["0_hog"]
    assert (hog["status"], hog["attempt"]) == ("failed", 1), hog       # not retried
    assert hog["error"] == {"kind": "StepFailed", "step": 1,
                            "message": "the page's renderer crashed during tap (out of "
                                       "memory?)"}
    assert [s["status"] for s in hog["steps"]] == ["failed", "skipped"]
    assert cases["1_fine"]["status"] == "passed"
    # the same browser ran the next case: not restarted, not counted against it
    assert "restarting" not in out and "RETRY (" not in out, out
    assert launches(tmp_path / "run") == 1


def test_a_page_that_stops_responding_fails_its_step_and_the_browser_goes_on(
        tmp_path: Path, farm: FarmCli) -> None:
    root = suite(tmp_path / "suite", {
        "click": ("loop.html", flow("aiTap: Freeze", "assertText: Freeze")),
        "script": ("fine.html", flow('javascript: "while (true) {}"', optional=True)
                   + flow("assertText: All fine here")),
        "fine": FINE})
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "timed out" not in out, out        # the step's own limit, not the case's timeout
    cases = by_name(results(tmp_path / "run"))
    click, script = cases["0_click"], cases["1_script"]
    assert (click["status"], click["error"]["step"]) == ("failed", 1), click
    said = click["error"]["message"]
    assert said.startswith("the page stopped responding during tap: a script of the page did "
                           "not return for "), said
    assert said.endswith(" s (an endless loop?); farm closed the page"), said
    assert [s["status"] for s in click["steps"]] == ["failed", "skipped"]
    # a javascript step that never returns: its step fails the same way; the next task runs,
    # on a page that is gone
    first, after = script["steps"]
    assert first["status"] == "failed", script
    assert first["error"].startswith("the page stopped responding during javascript: "), first
    assert (after["status"], after["error"]) == ("failed", first["error"])
    assert cases["2_fine"]["status"] == "passed"
    # recovered by closing the page: the browser was neither killed nor restarted
    assert "restarting" not in out, out
    assert "killing" not in (tmp_path / "run" / "farm.log").read_text()
    assert launches(tmp_path / "run") == 1
