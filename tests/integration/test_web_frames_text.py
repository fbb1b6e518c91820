"""Text checks see what a user sees inside shadow roots (open and closed) and frames (same
origin, and another origin: a payment form, an embedded widget), and text that shows up there
later; hidden text there stays out. Before, assertText failed and assertNoText passed on such
text. Real `farm run`, real Chromium; the other origin is the same server as ``localhost``."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

MAIN = """<!doctype html><html><body>
<h1>Shop</h1>
<div id="open"></div><div id="closed"></div>
<iframe id="same" src="/same.html" width="300" height="80"></iframe>
<iframe src="http://localhost:{port}/other.html" width="300" height="80"></iframe>
<iframe src="/hidden.html" style="display:none"></iframe>
<script>
const open = document.getElementById('open').attachShadow({mode: 'open'});
open.innerHTML = '<p>Open shadow text</p>';
const closed = document.getElementById('closed').attachShadow({mode: 'closed'});
closed.innerHTML = '<p>Closed shadow text</p><p style="display:none">Hidden shadow text</p>';
function later() {
  setTimeout(() => { open.innerHTML += '<p>Late shadow text</p>'; }, 400);
  setTimeout(() => document.getElementById('same').contentDocument.body.insertAdjacentHTML(
    'beforeend', '<p>Late frame text</p>'), 1200);
}
</script></body></html>"""

FRAMES = {"same.html": "<p>Same origin frame text</p>",
          "other.html": "<p>Other origin frame text</p>",
          "hidden.html": "<p>Hidden frame text</p>"}

CASE = """name: frames and shadow roots
web:
  url: http://127.0.0.1:{port}/index.html
tasks:
  - name: read
    flow:
      - assertText: Open shadow text
      - assertText: Closed shadow text
      - assertText: Same origin frame text
      - assertText: Other origin frame text
      - assertNoText: Hidden shadow text
      - assertNoText: Hidden frame text
      - javascript: later()
      - waitForText: Late shadow text
        timeout: 10000
      - waitForText: Late frame text
        timeout: 10000
"""


@pytest.fixture
def site(tmp_path: Path) -> Iterator[int]:
    root = tmp_path / "site"
    root.mkdir()
    for name, body in FRAMES.items():
        (root / name).write_text(f"<!doctype html><html><body>{body}</body></html>")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    # bound on every interface of the loopback: 127.0.0.1 and localhost are two origins
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Quiet, directory=str(root)))
    port = server.server_address[1]
    (root / "index.html").write_text(MAIN.replace("{port}", str(port)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield port
    server.shutdown()
    server.server_close()


def test_text_in_shadow_roots_and_frames_is_on_screen(farm: FarmCli, tmp_path, site) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "frames.yaml").write_text(CASE.replace("{port}", str(site)))
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    case = results(tmp_path / "run")["cases"][0]
    assert done.returncode == 0, (case.get("error"), done.stdout + done.stderr)
