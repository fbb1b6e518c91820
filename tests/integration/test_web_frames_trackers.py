"""A page's hidden or tiny frames of another origin (analytics and ad pixels: 1x1 px, display:
none, visibility:hidden, 0x0) are not on screen: their text is not the page's for a text check,
their fields are not the page's to fill, while a payment form's frame of another origin beside
them is filled and tapped as before. Before, a 1x1 frame's text was read as on screen
(assertNoText of it failed), and each such frame cost three to five round trips a read. Real
`farm run`, real Chromium, two origins: the page on 127.0.0.1, the frames on localhost, each
its own server on a free port."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

# a tracker's document: text a check looks for and a field named as the page's own
TRACKER = """<!doctype html><html><body style="margin:0"><p>Tracker pixel loaded</p>
<label>Name <input id="n"></label></body></html>"""
CARD = """<!doctype html><html><body style="margin:0">
<label for="cc">Card number</label> <input id="cc">
<button onclick="document.getElementById('r').textContent = 'Paid with the card ending '
  + document.getElementById('cc').value.slice(-4)">Pay</button>
<p id="r"></p></body></html>"""
TRACKERS = ["width:1px; height:1px; border:0", "display:none", "visibility:hidden",
            "width:0; height:0; border:0", "width:1px; height:1px; border:0; opacity:0",
            "width:1px; height:1px; border:0; position:absolute; left:-10px"]
PAGE = """<!doctype html><html><body><h1>Shop</h1>
<label>Name <input id="n"></label>
<button onclick="document.getElementById('o').textContent = 'Done '
  + document.getElementById('n').value">Go</button><div id="o"></div>
<iframe src="{other}/card.html" style="width:400px; height:120px; border:0"></iframe>
""" + "".join(f'<iframe src="{{other}}/tracker.html?{i}" style="{style}"></iframe>\n'
              for i, style in enumerate(TRACKERS)) + "</body></html>"

CASE = """name: shop beside trackers
web:
  url: {own}/page.html
tasks:
  - name: buy
    flow:
      - aiInput: Name
        value: bob
      - aiTap: Go
      - waitForText: Done bob
        timeout: 5000
      - aiInput: Card number
        value: "4242424242424242"
      - aiTap: Pay
      - waitForText: Paid with the card ending 4242
        timeout: 5000
      - assertNoText: Tracker pixel loaded
"""


@pytest.fixture
def origins() -> Iterator[tuple[str, str]]:
    """(the page's origin, the frames'): two servers on free ports, the second named by
    localhost (another origin than 127.0.0.1)."""
    class Pages(QuietHandler):
        def do_GET(self) -> None:
            name = self.path.split("?")[0].lstrip("/")
            body = {"card.html": CARD, "tracker.html": TRACKER,
                    "page.html": PAGE.replace("{other}", other)}.get(name)
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    with ExitStack() as stack:
        own = stack.enter_context(serving(Pages))
        other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield own, other


def test_hidden_frames_of_another_origin_are_not_on_screen(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str]) -> None:
    own, _ = origins
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "shop.yaml").write_text(CASE.format(own=own))
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    FARM_LOCATE_OFF="ocr")
    [result] = results(tmp_path / "run")["cases"]
    assert (done.returncode, result["status"]) == (0, "passed"), \
        (result.get("error"), done.stdout + done.stderr)
    located = [(s["kind"], s["tier"]) for s in result["steps"] if s["kind"].startswith("ai")]
    assert located == [("aiInput", "text"), ("aiTap", "text")] * 2
