"""A frame of another origin than the page's (a payment form, an embedded sign-in widget) is
located in as a frame of the page's origin is, with no model: the zero-token tiers find its
field and button by their label and text, aiInput fills the field in one go, the tap reaches
the button, and a secret typed there is drawn as discs and kept out of the run's files.
Before, the frame was one opaque element: "needs a model (set FARM_MODEL): no zero-token
match", while waitForText read its text. Real `farm run`, real Chromium, two origins: the
page on 127.0.0.1, the frame on localhost, each its own server on a free port."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

# keys: key events the field saw (aiInput fills in one go: none); shown: how the field draws
# its text when Pay is pressed (farm draws a secret as discs, as a password field does)
CARD = """<!doctype html><html><body style="margin:0">
<label for="cc" style="position:absolute; left:0; top:0">Card number</label>
<input id="cc" style="position:absolute; left:20px; top:30px; width:200px; height:24px;
  border:0; padding:0" onkeydown="window.keys = (window.keys || 0) + 1">
<button style="position:absolute; left:240px; top:30px" onclick="
  const cc = document.getElementById('cc');
  const shown = getComputedStyle(cc).webkitTextSecurity === 'disc' ? 'discs' : 'text';
  document.getElementById('r').textContent = 'Paid with the card ending '
    + cc.value.slice(-4) + ', ' + (window.keys || 0) + ' keys, shown as ' + shown">Pay</button>
<p id="r" style="position:absolute; left:0; top:70px"></p>
</body></html>"""

PAGES = {
    # the frame where the page puts it
    "page": """<!doctype html><html><body style="margin:0"><h1>Checkout</h1>
<iframe src="{other}/card.html" style="position:absolute; left:100px; top:200px;
  width:400px; height:150px; border:0"></iframe></body></html>""",
    # the card form in a frame of the page's origin inside a widget of another origin, on
    # a zoomed page, the widget's frame with a border and padding
    "nested": """<!doctype html><html><body style="margin:0"><h1>Checkout</h1>
<div style="position:absolute; left:50px; top:100px; zoom:1.5">
<iframe src="{other}/widget.html?back={own}" style="width:500px; height:300px;
  border:5px solid black; padding:3px"></iframe></div></body></html>""",
    # beside it, frames of another origin that go away and come back, or load again, all the
    # time (ads, a widget polling): a read they go away under reads the rest
    "busy": """<!doctype html><html><body style="margin:0"><h1>Checkout</h1>
<iframe src="{other}/card.html" style="position:absolute; left:100px; top:200px;
  width:400px; height:150px; border:0"></iframe>
<iframe src="{other}/again.html" style="position:absolute; left:600px; top:400px"></iframe>
<div id="ads" style="position:absolute; left:600px; top:200px"></div>
<script>setInterval(() => { document.getElementById('ads').innerHTML = '<iframe src="{other}'
  + '/again.html?' + Math.random() + '" width="200" height="100"></iframe>'; }, 100);</script>
</body></html>""",
}
WIDGET = """<!doctype html><html><body style="margin:0"><p>Pay with your card</p>
<iframe id="f" style="position:absolute; left:30px; top:40px; width:400px; height:150px;
  border:0"></iframe>
<script>document.getElementById('f').src =
  new URLSearchParams(location.search).get('back') + '/card.html';</script>
</body></html>"""
AGAIN = """<!doctype html><html><body><button>Ad</button>
<script>setTimeout(() => location.reload(), 50)</script></body></html>"""

CASE = """name: pay in a frame of another origin
web:
  url: {own}/{page}.html
tasks:
  - name: pay
    flow:
      - aiInput: Card number
        value: "{value}"
        mode: {mode}
      - aiTap: Pay
      - waitForText: Paid with the card ending 4242, {keys} keys, shown as {shown}
        timeout: 5000
"""


@pytest.fixture
def origins() -> Iterator[tuple[str, str]]:
    """(the page's origin, the frame's): two servers on free ports, the second named by
    localhost (another origin than 127.0.0.1), each serving the pages above."""
    class Pages(QuietHandler):
        def do_GET(self) -> None:
            name = self.path.split("?")[0].lstrip("/")
            body = {"card.html": CARD, "widget.html": WIDGET, "again.html": AGAIN}.get(name)
            page = {**PAGES, "covered": COVERED}.get(name.removesuffix(".html"))
            if body is None and page is not None:
                body = page.replace("{own}", own).replace("{other}", other)
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    with ExitStack() as stack:
        own = stack.enter_context(serving(Pages))
        other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield own, other


def _run(farm: FarmCli, tmp_path: Path, case: str, **env: str) -> dict:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "pay.yaml").write_text(case)
    # OCR off: the only zero-token tier that saw into such a frame before, from its pixels
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    FARM_LOCATE_OFF="ocr", **env)
    [result] = results(tmp_path / "run")["cases"]
    assert (done.returncode, result["status"]) == (0, "passed"), \
        (result.get("error"), done.stdout + done.stderr)
    return result


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_frame_of_another_origin_is_filled_and_tapped_with_no_model(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str], page: str) -> None:
    own, _ = origins
    result = _run(farm, tmp_path, CASE.format(own=own, page=page, value="4242424242424242",
                                              mode="replace", keys=0, shown="text"))
    located = [(s["kind"], s["tier"]) for s in result["steps"] if s["kind"] != "waitForText"]
    assert located == [("aiInput", "text"), ("aiTap", "text")]


COVERED = """<!doctype html><html><body style="margin:0">
<iframe src="{other}/card.html" style="position:absolute; left:100px; top:200px;
  width:400px; height:150px; border:0"></iframe>
<div style="position:absolute; left:330px; top:220px; width:100px; height:60px;
  background:red">Chat with us</div></body></html>"""


def test_a_tap_on_a_frame_s_button_under_the_page_s_banner_fails_the_step(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str]) -> None:
    """The page's own banner over the frame's button takes the tap: the step fails saying so,
    as for a button of the page (it does not pass with the click gone to the banner)."""
    own, _ = origins
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "pay.yaml").write_text(CASE.format(own=own, page="covered", value="4242",
                                                mode="replace", keys=0, shown="text"))
    farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
             FARM_LOCATE_OFF="ocr")
    [result] = results(tmp_path / "run")["cases"]
    steps = [(s["kind"], s["status"]) for s in result["steps"]]
    assert steps[:2] == [("aiInput", "passed"), ("aiTap", "failed")], result
    assert 'is covered by <div> "Chat with us"' in result["error"]["message"]


@pytest.mark.parametrize("mode", ["replace", "typeOnly"])
def test_a_secret_typed_into_a_frame_of_another_origin_is_veiled_and_kept_out(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str], mode: str) -> None:
    """The field draws the secret as discs (no report image shows it), filled in one go or
    typed key by key, and no file of the run holds it."""
    own, _ = origins
    secret = "4000056655664242"
    _run(farm, tmp_path, CASE.format(own=own, page="page", value="${CARD_SECRET}", mode=mode,
                                     keys=0 if mode == "replace" else len(secret),
                                     shown="discs"), CARD_SECRET=secret)
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
