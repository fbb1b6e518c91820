"""A payment form whose fields a frame of another origin than the page's draws a moment after
it loads (Stripe Elements and the like: the frame first, its fields once its own request
comes back) is found with no model once they show: a locate that missed waits for the frame
to change as it waits for the page, and for the frame's own request in flight (a model, when
there is one, is not asked while that request is under way). Before, a change inside such a
frame did not wake the wait and its requests were not counted: the step waited out its time
and failed "needs a model" (with a model: the model was asked after the page's 0.3 s of
quiet, about a screen still coming). A frame the page's script mounts after the page
loaded (Stripe Elements' mount()) while its server is slow to send it counts as a request in
flight until its document loads, and its load as a change: before, the wait saw a quiet page
and a frame with nothing in it. Real `farm run`, real Chromium, two origins on free
ports: the page on 127.0.0.1, the frame on localhost."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving
from tests.support.model_server import ModelServer

pytestmark = pytest.mark.integration

# The frame's server takes this long to answer the frame's request for its form: farm's first
# look, right after the page loaded, finds no field (the scenario, not a synchronisation:
# a look that came later would find it at once, and the test would pass as well).
FORM_DELAY_S = 1.5

PAGE = """<!doctype html><html><body style="margin:0"><h1>Checkout</h1>
<iframe src="{other}/{frame}.html" style="position:absolute; left:100px; top:200px;
  width:400px; height:150px; border:0"></iframe></body></html>"""
# the page's script puts the frame in once the page has loaded (Stripe Elements' mount()):
# opening the page does not wait for the frame's document, which its server is slow to send
MOUNTED = """<!doctype html><html><body style="margin:0"><h1>Checkout</h1><script>
addEventListener("load", () => setTimeout(() => {
  const frame = document.createElement("iframe");
  frame.src = "{other}/card.html?slow";
  frame.style.cssText = "position:absolute; left:100px; top:200px; width:400px; height:150px;"
    + " border:0";
  document.body.appendChild(frame);
}, 0));</script></body></html>"""
FORM = """<label for="cc" style="position:absolute; left:0; top:0">Card number</label>
<input id="cc" style="position:absolute; left:20px; top:30px; width:200px; height:24px">
<button style="position:absolute; left:240px; top:30px" onclick="
  document.getElementById('r').textContent = 'Paid with the card ending '
    + document.getElementById('cc').value.slice(-4)">Pay</button>
<p id="r" style="position:absolute; left:0; top:70px"></p>"""
FRAMES = {
    # the frame's script draws the fields its request brings
    "drawn": """<!doctype html><html><body style="margin:0"><p>Loading</p><script>
fetch('/form').then((r) => r.text()).then((html) => { document.body.innerHTML = html; });
</script></body></html>""",
    # the frame loads its form page once its request is back (it navigates during the wait)
    "navigates": """<!doctype html><html><body style="margin:0"><p>Loading</p><script>
fetch('/form').then(() => { location.replace('/card.html'); });</script></body></html>""",
}
CARD = f"<!doctype html><html><body style='margin:0'>{FORM}</body></html>"

CASE = """name: pay in a frame that draws its form late
web:
  url: {url}
tasks:
  - name: pay
    flow:
      - aiInput: Card number
        value: "4242424242424242"
      - aiTap: Pay
      - waitForText: Paid with the card ending 4242
        timeout: 5000
"""


@pytest.fixture
def origins() -> Iterator[tuple[str, str]]:
    """(the page's origin, the frame's): two servers on free ports, the second named by
    localhost (another origin than 127.0.0.1)."""
    class Pages(QuietHandler):
        def do_GET(self) -> None:
            name, _, query = self.path.lstrip("/").partition("?")
            name = name.removesuffix(".html")
            if name == "form" or query == "slow":
                threading.Event().wait(FORM_DELAY_S)    # the frame's slow server
            body = {"page": PAGE.replace("{own}", own).replace("{other}", other)
                    .replace("{frame}", query.removeprefix("frame=")),
                    "mounted": MOUNTED.replace("{other}", other),
                    "form": FORM, "card": CARD, **FRAMES}.get(name)
            self.send_page(body.encode() if body else b"", 200 if body else 404)

    with ExitStack() as stack:
        own = stack.enter_context(serving(Pages))
        other = stack.enter_context(serving(Pages)).replace("127.0.0.1", "localhost")
        yield own, other


def _run(farm: FarmCli, tmp_path: Path, own: str, frame: str, **env: str) -> dict:
    """farm run of CASE on the page with ``frame`` ("mounted": the page that mounts one)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    url = f"{own}/mounted.html" if frame == "mounted" else f"{own}/page.html?frame={frame}"
    (suite / "pay.yaml").write_text(CASE.format(url=url))
    # OCR off: it would read the field from the frame's pixels instead
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run",
                    FARM_LOCATE_OFF="ocr", **env)
    [result] = results(tmp_path / "run")["cases"]
    assert (done.returncode, result["status"]) == (0, "passed"), \
        (result.get("error"), done.stdout + done.stderr)
    return result


@pytest.mark.parametrize("frame", [*sorted(FRAMES), "mounted"])
def test_a_field_a_frame_of_another_origin_draws_late_is_found_with_no_model(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str], frame: str) -> None:
    own, _ = origins
    result = _run(farm, tmp_path, own, frame)
    located = [(s["kind"], s["tier"]) for s in result["steps"] if s["kind"] != "waitForText"]
    assert located == [("aiInput", "text"), ("aiTap", "text")]


@pytest.mark.parametrize("frame", ["drawn", "mounted"])
def test_the_model_is_not_asked_while_the_frame_s_request_is_under_way(
        farm: FarmCli, tmp_path: Path, origins: tuple[str, str], frame: str) -> None:
    """With a model: the page stays quiet, but the frame waits for its request (its form's;
    or, mounted by the page's script after the page loaded, its own document's); the field
    it then draws is found by the text tier, and the model is never asked."""
    own, _ = origins
    with ModelServer() as model:
        result = _run(farm, tmp_path, own, frame, FARM_MODEL="openai/scripted",
                      FARM_MODEL_BASE_URL=model.base_url)
    located = [(s["kind"], s["tier"]) for s in result["steps"] if s["kind"] != "waitForText"]
    assert (located, len(model.requests)) == ([("aiInput", "text"), ("aiTap", "text")], 0)
