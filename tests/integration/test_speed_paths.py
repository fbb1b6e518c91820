"""The fast paths keep farm honest (issue 14): a step that navigates is waited for before the
next DOM read (with no screenshot to hide the race), ``--screenshots all|on-failure|off`` leave
exactly the images they promise, the after-image of ``waitForText`` shows the page after the
wait, and ``aiInput`` fills in one go while ``mode: typeOnly`` types key by key.

One small site of our own (`SlowSite`): its /slow.html answers only after a second, so a DOM
read right after the click that goes there would still see the old page without the wait; its
/parsing.html keeps its parser waiting for a script until the test lets it go (and its `load`
for good), so a read waits for the parse, and only the page's own event ends that wait.
"""

from __future__ import annotations

import http.server
import io
import threading
import time
from pathlib import Path

import pytest

from tests.support.farm_cli import by_name, results
from tests.support.suites import write_case

SLOW_SECONDS = 1.0     # how long /slow.html takes to answer: the site's behaviour, not a wait
HOLD_AT_MOST = 30.0    # /held.js and /late.png are held until released, never longer

PAGES = {
    "/start.html": """<!doctype html><title>Start</title><body><h1>Start page</h1>
<p><a href="/slow.html?via=link">Go slow by link</a></p>
<p><button onclick="location.href='/slow.html?via=script'">Go slow by script</button></p>
<form action="/slow.html"><input type="hidden" name="via" value="form">
<button type="submit">Go slow by form</button></form>
<form id="quiet" action="/slow.html"><input type="hidden" name="via" value="submit"></form>
<p><button onclick="document.getElementById('quiet').submit()">Go slow by form.submit()</button>
</p><form onsubmit="event.preventDefault(); document.getElementById('said').textContent =
'Stayed on the start page'"><button type="submit">Stay by a cancelled form</button></form>
<p id="said"></p>
<p><a href="/nothing">Go nowhere</a> <a href="/file.bin">Download a file</a></p>
<p><a href="/parsing.html">Go to a page that parses slowly</a></p></body>""",
    # the parser waits for /held.js; `load` comes only after /late.png, seconds later still
    "/parsing.html": """<!doctype html><title>Parsing</title><body><h1>Parsing page</h1>
<script src="/held.js"></script><p>Parsed to the end</p>
<img src="/late.png" alt="late"></body>""",
    "/held.js": "document.title = 'Parsing (script ran)';",
    "/slow.html": """<!doctype html><title>Slow</title><body><h1>Arrived at the slow page</h1>
</body>""",
    "/late.html": """<!doctype html><title>Late</title><body style="background:#ffffff">
<p id="status">Loading</p><script>function later(ms) { setTimeout(() => {
  document.body.style.background = '#00c000';
  document.getElementById('status').textContent = 'Done loading';
}, ms); }</script></body>""",
    "/keys.html": """<!doctype html><title>Keys</title><body><label for="field">Field</label>
<input id="field"><p id="out">keys 0 value</p><script>
const field = document.getElementById('field'); let keys = 0;
const show = () => { document.getElementById('out').textContent =
  'keys ' + keys + ' value ' + field.value; };
field.addEventListener('keydown', () => { keys++; show(); });
field.addEventListener('input', show);</script></body>""",
}


class SlowSite:
    def __init__(self) -> None:
        # /held.js (the parser of /parsing.html waits for it) until a test lets it go;
        # /late.png (its `load` waits for it) until the site closes
        self.release_script = threading.Event()
        self.closing = threading.Event()
        held = {"/held.js": self.release_script, "/late.png": self.closing}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path in ("/nothing", "/file.bin"):   # no new document: the page stays
                    self.send_response(204 if path == "/nothing" else 200)
                    if path == "/file.bin":
                        self.send_header("Content-Type", "application/octet-stream")
                        self.send_header("Content-Disposition", "attachment; filename=f.bin")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if path == "/slow.html":
                    time.sleep(SLOW_SECONDS)     # the page is slow to answer
                if path in held:
                    held[path].wait(HOLD_AT_MOST)
                body = PAGES.get(path, "not found").encode()
                try:
                    self.send_response(200 if path in PAGES else 404)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass      # the browser went away

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.closing.set()
        self.release_script.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def site():
    s = SlowSite()
    yield s
    s.close()


@pytest.fixture(scope="module")
def suite(site, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("speed") / "speed"
    start = f"{site.url}/start.html"
    arrived = "assertText: Arrived at the slow page"
    write_case(folder, "nav_link", ["aiTap: Go slow by link", arrived], url=start)
    write_case(folder, "nav_script", ["aiTap: Go slow by script", arrived], url=start)
    write_case(folder, "nav_form", ["aiTap: Go slow by form", arrived], url=start)
    # form.submit() fires no submit event; a cancelled submit navigates nowhere
    write_case(folder, "nav_form_script", ["aiTap: Go slow by form.submit()", arrived],
               url=start)
    write_case(folder, "nav_form_cancelled", ["aiTap: Stay by a cancelled form",
                                              "assertText: Stayed on the start page"], url=start)
    write_case(folder, "nav_javascript", ['javascript: "location.href = \'/slow.html\'"',
                                          arrived], url=start)
    # a navigation that brings no new document (204, a download): farm goes on with the page
    write_case(folder, "nav_nothing", ["aiTap: Go nowhere", "assertText: Start page"], url=start)
    write_case(folder, "nav_download", ["aiTap: Download a file", "assertText: Start page"],
               url=start)
    write_case(folder, "late_text", ["javascript: later(1500)", "waitForText: Done loading"],
               url=f"{site.url}/late.html")
    write_case(folder, "keys", ["aiInput: Field\n        value: hello",
                                "assertText: keys 0 value hello",
                                "aiInput: Field\n        value: abc\n        mode: typeOnly",
                                "assertText: keys 3 value helloabc"],
               url=f"{site.url}/keys.html")
    write_case(folder, "failing", ["aiTap: Go slow by link",
                                   "assertText: Text that is nowhere"], url=start)
    return folder


@pytest.fixture(scope="module")
def runs(suite, tmp_path_factory):
    """The suite once per --screenshots mode: {mode: (process, run dir)}."""
    from tests.support.farm_cli import FarmCli
    tmp = tmp_path_factory.mktemp("runs")
    farm = FarmCli(tmp)
    out = {}
    try:
        for mode in ("off", "on-failure", "all"):
            run_dir = tmp / mode
            proc = farm.run("run", suite, "--devices", "browser:2", "--report-dir", run_dir,
                            "--screenshots", mode)
            out[mode] = (proc, run_dir)
    finally:
        farm.close()
    return out


def _images(run_dir: Path) -> list[Path]:
    """Screenshots (JPEG) and marked copies (SVG) written."""
    return sorted(p for p in (run_dir / "artifacts").rglob("*") if p.is_file())


def _steps(case: dict) -> list[dict]:
    return case["steps"]


@pytest.mark.parametrize("mode", ["off", "on-failure", "all"])
def test_every_mode_passes_what_passes_and_fails_what_fails(runs, mode):
    """With screenshots off nothing waits by accident: a step that navigates (a link, a script,
    a form, a javascript step) is still followed by a DOM read of the NEW page; after a
    navigation that brings none (a 204, a download) the next step goes on with the page."""
    proc, run_dir = runs[mode]
    cases = by_name(results(run_dir))
    assert proc.returncode == 1, proc.stdout + proc.stderr   # the one failing case
    for name in ("nav_link", "nav_script", "nav_form", "nav_form_script", "nav_form_cancelled",
                 "nav_javascript", "nav_nothing", "nav_download", "late_text", "keys"):
        assert cases[name]["status"] == "passed", (name, cases[name]["error"])
    failing = cases["failing"]
    assert failing["status"] == "failed"
    assert "Text that is nowhere" in failing["error"]["message"]
    assert "Execution context was destroyed" not in proc.stdout + proc.stderr


def test_screenshots_off_leaves_no_image(runs):
    _, run_dir = runs["off"]
    assert _images(run_dir) == []
    for case in results(run_dir)["cases"]:
        assert case["screenshot"] is None
        assert all(s["before"] is None and s["after"] is None for s in _steps(case))
    assert "artifacts/" not in (run_dir / "report.html").read_text()


def test_screenshots_on_failure_keeps_only_the_failing_steps_image(runs):
    _, run_dir = runs["on-failure"]
    cases = by_name(results(run_dir))
    failing = cases["failing"]
    shot = _steps(failing)[1]["after"]
    assert shot and failing["screenshot"] == shot
    assert _steps(failing)[0]["after"] is None
    assert _images(run_dir) == [run_dir / shot]
    for name, case in cases.items():
        if name != "failing":
            assert all(s["after"] is None for s in _steps(case)), name
    assert shot in (run_dir / "report.html").read_text()


def test_screenshots_all_gives_every_step_an_after_image(runs):
    _, run_dir = runs["all"]
    report = (run_dir / "report.html").read_text()
    for case in results(run_dir)["cases"]:
        steps = _steps(case)
        assert steps[0]["before"], case["name"]         # the case's first image
        for step in steps:
            assert step["after"] and (run_dir / step["after"]).is_file(), (case["name"], step)
            assert step["after"] in report
        # the JPEG is Chromium's, stored as it came: a real JPEG of the viewport
        assert (run_dir / steps[-1]["after"]).read_bytes()[:3] == b"\xff\xd8\xff"


def _centre(path: Path) -> tuple[int, int, int]:
    from PIL import Image
    img = Image.open(io.BytesIO(path.read_bytes())).convert("RGB")
    return img.getpixel((img.width // 2, img.height // 2))


def test_the_after_image_of_wait_for_text_shows_the_page_after_the_wait(runs):
    """The text (and the green) come 1.5 s after a javascript step: the image from before
    the wait is white, the one after it green."""
    _, run_dir = runs["all"]
    step = _steps(by_name(results(run_dir))["late_text"])[1]
    assert step["after"] != step["before"]
    r, g, b = _centre(run_dir / step["after"])
    assert g > 150 and r < 80 and b < 80, f"after the wait the page is green, got {(r, g, b)}"


def test_after_images_show_the_page_a_navigation_led_to(runs):
    """The image after a tap that navigates is of the new page (the capture waits for it)."""
    _, run_dir = runs["all"]
    steps = _steps(by_name(results(run_dir))["nav_link"])
    assert steps[0]["after"] != steps[0]["before"]
    # the assertText after it looked only: same screen, the same image, not a second capture
    assert steps[1]["after"] == steps[0]["after"]


@pytest.mark.parametrize("link", ["Go nowhere", "Download a file"])
def test_a_navigation_that_brings_no_document_leaves_the_page_as_it_was(browser, site, link):
    """A link answered by a 204 or a download: the page stays, and is not left marked as
    unloading (else every later action would wait a second for a navigation to come)."""
    from farm.suite.model import WebTarget

    browser.start_session(WebTarget(url=f"{site.url}/start.html"))
    try:
        for _ in range(2):
            target = next(n for n in browser.hierarchy().nodes if n.text == link)
            browser.tap(*target.rect.center)
            assert "Start page" in browser.hierarchy().visible_text()
            assert browser.run_script("window.__farm.leaving", 5) is False
    finally:
        browser.end_session()


def test_a_page_still_parsing_is_read_when_its_document_is_parsed(browser, site, monkeypatch):
    """After a tap, a DOM read waits while the new document is still being parsed: the page's
    own event (its DOM is parsed) ends that wait, not a timer (made far longer than the test
    here, so a wait that only a timer ends shows), nor the page's `load` (held until the site
    closes: an image never comes). The parser's script is let go once the read waits."""
    from farm.devices.web import page_wait
    from farm.suite.model import WebTarget

    browser.start_session(WebTarget(url=f"{site.url}/start.html"))
    try:
        wait = browser._wait
        link = next(n for n in browser.hierarchy().nodes
                    if n.text == "Go to a page that parses slowly")
        monkeypatch.setattr(page_wait, "POLL_S", 60.0)
        pause = wait._pause

        def waiting(page, seen):        # the read waits for the parse: let the script come
            site.release_script.set()
            pause(page, seen)
        monkeypatch.setattr(wait, "_pause", waiting)
        site.release_script.clear()
        wait.pauses.clear()
        browser.tap(*link.rect.center)
        text = browser.hierarchy().visible_text()
        assert "Parsed to the end" in text, text
        assert site.release_script.is_set()      # the read did wait for the parse
        assert wait.pauses["timed out"] == 0 and wait.pauses["polled"] == 0, wait.pauses
        assert browser.run_script("document.readyState", 5) == "interactive"
    finally:
        browser.end_session()
