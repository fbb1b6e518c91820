"""`waitForNetworkIdle` with `continueOnNetworkIdleError: true` (the default) went on past a page
whose network never went idle without a word (Midscene logs a warning); now the case's first
step has a note saying so. Real Chromium through `farm run`, a page with a request that is
never answered while the case runs."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = (b"<!doctype html><html><body><h1>Busy page</h1>"
        b"<script>fetch('/never')</script></body></html>")


def test_a_page_that_never_goes_idle_is_noted_on_the_first_step(tmp_path: Path,
                                                                 farm: FarmCli) -> None:
    released = threading.Event()

    class Site(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/never"):
                released.wait(600)          # (set when the run is over)
                body = b"late"
            else:
                body = PAGE
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    suite = tmp_path / "idle"
    suite.mkdir()
    for name, cont in (("goes_on", ""), ("stops", "\n    continueOnNetworkIdleError: false")):
        (suite / f"{name}.yaml").write_text(
            f"web:\n  url: http://127.0.0.1:{server.server_port}/\n"
            f"  waitForNetworkIdle:\n    timeout: 1000{cont}\n"
            "tasks:\n  - name: t\n    flow:\n      - assertText: Busy page\n")
    try:
        done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "r")
    finally:
        released.set()
        server.shutdown()
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    went_on = cases["idle/goes_on"]
    assert went_on["status"] == "passed", done.stdout + done.stderr
    assert went_on["steps"][0]["notes"] == [
        "the network did not go idle within 1000 ms of opening the page (waitForNetworkIdle): "
        "the case went on (continueOnNetworkIdleError: true)"]
    assert cases["idle/stops"]["status"] != "passed"
