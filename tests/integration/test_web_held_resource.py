"""A page with a resource its server never answers (a tracking pixel, a font from a CDN that
hangs): the case starts after the load grace with a warning, and its steps then go at their
usual pace. Before, every report image waited 1.5 s more for the load event that had not come
at the start, a step; a case of 14 taps took over 30 s and hit its 22 s timeout. Real
`farm run`, real Chromium."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body><p>Shop</p><img src="/held.png" width="10" height="10">
<button onclick="this.textContent = 'Taps: ' + (++window.n || (window.n = 1))">Tap me</button>
</body></html>"""
TAPS = 14


@pytest.fixture
def site(tmp_path: Path) -> Iterator[int]:
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(PAGE)
    release = threading.Event()

    class Holding(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/held.png":
                release.wait()          # answered only when the test is over
                return
            super().do_GET()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Holding, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    release.set()
    server.shutdown()


def test_steps_on_a_page_whose_load_never_ends_do_not_wait_for_it(
        tmp_path: Path, farm: FarmCli, site: int) -> None:
    steps = "".join("      - aiTap: Tap me\n" if i == 0 else f"      - aiTap: 'Taps: {i}'\n"
                    for i in range(TAPS))
    (tmp_path / "taps.yaml").write_text(
        f"name: taps\nweb:\n  url: http://127.0.0.1:{site}/index.html\ntasks:\n"
        f"  - name: tap\n    flow:\n{steps}      - assertText: 'Taps: {TAPS}'\n")
    (tmp_path / "farm.yaml").write_text("timeout: 45\nretries: 0\n")
    done = farm.run("run", tmp_path / "taps.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    out = done.stdout + done.stderr
    (case,) = results(tmp_path / "run")["cases"]
    assert (done.returncode, case["status"]) == (0, "passed"), out
    assert "has not finished loading after 10 s" in (tmp_path / "run" / "farm.log").read_text()
    assert all(s["after"] for s in case["steps"][:TAPS]), case["steps"]   # every image taken
