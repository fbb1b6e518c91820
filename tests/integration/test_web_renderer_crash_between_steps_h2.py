"""A page whose renderer crashes while no call is waiting on it (a timer runs it out of memory
during a `sleep` step) fails its case at once as a crashed renderer, and the same browser runs
the next case. Before, the next call sent to the page (the step's screenshot) never returned:
the case hung until its timeout and the watchdog killed the browser, and it read as "case timed
out after 20s: waiting for the device's screenshot (screenshot) after the step" (an error,
exit 3, the browser restarted). `farm run` in real Chromium with a small V8 heap."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, by_name, results

HOG = ("<p>Hog page</p><script>setTimeout(() => { let a = []; "
       "while (true) a.push(new Array(1e6).fill(1.5)) }, 300)</script>")
FINE = "<p>All fine here</p>"
SMALL_HEAP = '["--js-flags=--max-old-space-size=32"]'   # out of memory in well under a second


def test_a_renderer_that_crashed_between_steps_fails_its_case_at_once(tmp_path: Path,
                                                                      farm: FarmCli) -> None:
    root = tmp_path / "suite"
    (root / "app").mkdir(parents=True)
    for name, html in (("hog", HOG), ("fine", FINE)):
        (root / "app" / f"{name}.html").write_text(f"<!doctype html><html><body>{html}"
                                                   "</body></html>")
    (root / "farm.yaml").write_text("timeout: 60\napps:\n  site:\n    serve: app\n"
                                    "    env: SITE_URL\n")
    (root / "a_hog.yaml").write_text("web:\n  url: ${SITE_URL}/hog.html\ntasks:\n  - name: t\n"
                                     "    flow:\n      - sleep: 3000\n"
                                     "      - assertText: Hog page\n")
    (root / "b_fine.yaml").write_text("web:\n  url: ${SITE_URL}/fine.html\ntasks:\n"
                                      "  - name: t\n    flow:\n"
                                      "      - assertText: All fine here\n")
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    FARM_BROWSER_ARGS=SMALL_HEAP)
    out = done.stdout + done.stderr
    cases = by_name(results(tmp_path / "run"))
    hog = cases["a_hog"]
    assert (hog["status"], hog["attempt"], hog["error"]["kind"]) == (
        "failed", 1, "StepFailed"), out
    assert hog["error"]["message"].startswith("the page's renderer crashed"), hog["error"]
    assert cases["b_fine"]["status"] == "passed", out
    assert done.returncode == 1, out        # a failed case, not an infrastructure error (3)
    # the same browser ran the next case: neither killed by the watchdog nor restarted
    assert "restarting" not in out, out
    assert (tmp_path / "run" / "farm.log").read_text().count("browser-1: Chromium") == 1
