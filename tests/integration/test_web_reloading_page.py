"""A page that reloads itself over and over (a meta refresh of 0.3 s, which Chromium takes as
0: as fast as the server answers; a script calling location.reload() every 300 ms): the
report's image after each step is of the page as it was shown, or left out with farm.log
saying why, and the case goes on. Before, the capture taken again after a navigation was
never answered when the page navigated under it too, and the case hung there until its
timeout killed the browser (about one run in three), and the PNG a locate or the model
needs waited 15 s and failed as the browser's fault. Its text checks pass: a read that lands
on a new document still being parsed waits for it (it read what had come: nothing, and the
check failed). Real `farm run`, real Chromium."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

PAGES = {
    "/meta.html": """<!doctype html><meta http-equiv="refresh" content="0.3">
<title>Reloading</title><body><h1>Reloading page</h1><button>Press me</button></body>""",
    "/timer.html": """<!doctype html><title>Reloading</title><body><h1>Reloading page</h1>
<button onclick="this.textContent = 'Pressed'">Press me</button>
<script>setTimeout(() => location.reload(), 300);</script></body>""",
}
# steps that only wait and show the page: each one's image goes through the capture (and the
# next step waits for it), and none depends on what a read of the page finds
SHOWN = ["sleep: 300", "logScreenshot: shown"] * 4
LEFT_OUT = "a report image left out"


@pytest.fixture
def site() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = PAGES.get(self.path.split("?")[0], "not found").encode()
            try:
                self.send_response(200 if self.path in PAGES else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass      # the browser went on to the next load before reading this one

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_page_that_keeps_reloading_gets_its_step_images_and_the_case_ends(
        tmp_path: Path, farm: FarmCli, site: str) -> None:
    suite = tmp_path / "reloading"
    for page in ("meta", "timer"):
        write_case(suite, f"{page}_shown", SHOWN, url=f"{site}/{page}.html")
    for page in ("meta", "timer"):       # steps that read the page, and may need its PNG
        write_case(suite, f"{page}_steps", ["assertText: Reloading page", "aiTap: Press me"] * 2
                   + ["assertText: Reloading page"] * 4, url=f"{site}/{page}.html")
    # a case's timeout far above what its steps take (seconds), and no retry: a case the
    # capture holds up ends at its timeout, as an error
    (suite / "farm.yaml").write_text("timeout: 60\nretries: 0\n")
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    timeout=600)
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out
    log = (tmp_path / "run" / "farm.log").read_text()
    for name, case in by_name(results(tmp_path / "run")).items():
        # ended by its steps, not by its timeout nor taken for the browser's failure (run
        # again on another device); a text check reads the page as shown: a document still
        # being parsed is not read (it was, blank, and the check failed: most runs, under load)
        assert case["attempt"] == 1 and case["status"] == "passed", (name, case["error"], out)
        ran = [s for s in case["steps"] if s["status"] in ("passed", "failed")]
        assert ran, (name, case)
        for step in ran:      # an image of the page, or farm.log says why there is none
            assert step["after"] or LEFT_OUT in log, (name, step, log)


def test_the_png_of_a_page_that_keeps_reloading_is_taken_or_the_step_fails_saying_why(
        browser, site: str) -> None:
    """The PNG a locate or the model looks at: a capture the page navigated under is taken
    again, briefly; a page that navigates under every one fails the step saying so. It
    waited 15 s, then failed as the browser's fault (DeviceError: the case was run again on
    another device, and the browser counted towards its quarantine)."""
    from farm.errors import StepFailed
    from farm.suite.model import WebTarget

    browser.start_session(WebTarget(url=f"{site}/meta.html"))
    try:
        for _ in range(3):
            try:
                png = browser.screenshot()
            except StepFailed as exc:
                assert "the page navigated under each of" in str(exc), exc
            else:
                assert png[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        browser.end_session()
