"""Elements inside a frame of the page's own origin (and inside a closed shadow root) (an embedded form, an editor, a legacy
page in an iframe) are located like the page's own: the zero-token tiers find them by their
label or text, aiInput fills them in one go, a tap reaches them, and what a model found there is
kept in the locate cache (the next night asks no model). Before, a frame was one opaque element:
"needs a model (set FARM_MODEL): no zero-token match", and what the model found was never cached,
so every night paid for it again. Real `farm run`, real Chromium, the scripted model server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import ModelServer

MAIN = """<!doctype html><html><body style="margin:0">
<h1>Checkout</h1>
<iframe src="coupon.html" style="position:absolute; left:100px; top:200px; width:400px;
  height:150px; border:0"></iframe>
</body></html>"""

# keys: how many key events the field saw (aiInput fills without any); the far button sits
# below the frame's own viewport (the frame scrolls to it)
FRAME = """<!doctype html><html><body style="margin:0">
<label for="cc" style="position:absolute; left:0; top:0">Coupon code</label>
<input id="cc" style="position:absolute; left:20px; top:30px; width:200px; height:24px;
  border:0; padding:0" onkeydown="window.keys = (window.keys || 0) + 1">
<button style="position:absolute; left:240px; top:30px" onclick="
  document.getElementById('r').textContent = 'Coupon ' + document.getElementById('cc').value
  + ' applied'">Apply</button>
<p id="r" style="position:absolute; left:0; top:70px"></p>
<button style="position:absolute; left:0; top:900px" onclick="
  document.getElementById('r').textContent = 'Far button pressed'">Far button</button>
</body></html>"""

ZERO_TOKEN = """name: coupon in a frame
web:
  serve: .
  url: main.html
tasks:
  - name: coupon
    flow:
      - aiInput: Coupon code
        value: SAVE10
      - aiTap: Apply
      - waitForText: Coupon SAVE10 applied
        timeout: 5000
      - javascript: document.querySelector('iframe').contentWindow.keys || 0
        name: keys
      - aiTap: Far button
      - waitForText: Far button pressed
        timeout: 5000
"""

BY_MODEL = """name: coupon by description
web:
  serve: .
  url: main.html
tasks:
  - name: coupon
    flow:
      - aiInput: the field for discount codes
        value: SAVE10
      - aiTap: Apply
      - waitForText: Coupon SAVE10 applied
        timeout: 5000
"""


def _site(folder: Path, case: str) -> Path:
    folder.mkdir()
    (folder / "main.html").write_text(MAIN)
    (folder / "coupon.html").write_text(FRAME)
    (folder / "case.yaml").write_text(case)
    return folder / "case.yaml"


def test_a_frame_s_fields_and_buttons_are_found_filled_and_tapped_with_no_model(
        tmp_path: Path, farm: FarmCli):
    case = _site(tmp_path / "site", ZERO_TOKEN)
    done = farm.run("run", case, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = results(tmp_path / "run")["cases"]
    located = [(s["label"].split(" = ")[0], s["tier"]) for s in result["steps"]
               if s["kind"] in ("aiInput", "aiTap")]
    assert located == [('aiInput "Coupon code"', "text"), ('aiTap "Apply"', "text"),
                       ('aiTap "Far button"', "text")]
    assert result["data"]["keys"] == 0          # filled in one go, no key events


# the page drawn zoomed, or the frame drawn scaled: the frame's pixels are not the page's
SCALED = {"zoomed page": MAIN.replace('<body style="margin:0">',
                                      '<body style="margin:0; zoom:1.5">'),
          "scaled frame": MAIN.replace('border:0"', 'border:0; transform:scale(0.75); '
                                       'transform-origin:0 0"')}


@pytest.mark.parametrize("how", sorted(SCALED))
def test_a_frame_drawn_zoomed_or_scaled_is_filled_and_tapped_where_it_shows(
        tmp_path: Path, farm: FarmCli, how: str):
    """A frame inside a CSS-zoomed page, or one drawn with transform: scale, had its
    elements' rects taken at their unscaled size and place: the text was typed and the taps
    went beside the frame's controls, and each step passed."""
    case = _site(tmp_path / "site", ZERO_TOKEN.replace(
        "      - aiTap: Far button\n", "      - aiTap: the apply button\n"
        "        xpath: //button[text()='Apply']\n      - aiTap: Far button\n"))
    (tmp_path / "site" / "main.html").write_text(SCALED[how])
    done = farm.run("run", case, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr


def test_what_a_model_found_in_a_frame_is_cached_for_the_next_run(tmp_path: Path,
                                                                  farm: FarmCli):
    case = _site(tmp_path / "site", BY_MODEL)
    # the field: the frame's (100, 200) plus the field's (20, 30), 200 x 24, in pixels
    with ModelServer([json.dumps({"bbox": [120, 230, 320, 254]})]) as srv:
        model = {"FARM_MODEL": "openai/scripted", "FARM_MODEL_BASE_URL": srv.base_url}
        first = farm.run("run", case, "--devices", "browser:1", "--report-dir",
                         tmp_path / "first", **model)
        asked = len(srv.requests)
        second = farm.run("run", case, "--devices", "browser:1", "--report-dir",
                          tmp_path / "second", **model)
        assert first.returncode == second.returncode == 0, first.stdout + second.stdout
        assert (asked, len(srv.requests)) == (1, 1)     # the second run asked nothing
    tiers = [results(tmp_path / run)["cases"][0]["steps"][0]["tier"]
             for run in ("first", "second")]
    assert tiers == ["ai", "cache"]


CLOSED = """<!doctype html><body><x-login></x-login><p id="out"></p>
<script>
customElements.define('x-login', class extends HTMLElement { constructor() { super();
  const root = this.attachShadow({mode: 'closed'});
  root.innerHTML = '<label>Email <input id="e"></label><button>Log in</button>';
  root.querySelector('#e').onkeydown = () => { window.keys = (window.keys || 0) + 1; };
  root.querySelector('button').onclick = () => {
    document.getElementById('out').textContent = 'Hello ' + root.querySelector('#e').value; };
} });
</script></body>"""

IN_CLOSED = """name: a closed shadow root's form
web:
  serve: .
  url: main.html
tasks:
  - name: log in
    flow:
      - aiInput: Email
        value: ada@example.com
      - aiTap: Log in
      - waitForText: Hello ada@example.com
        timeout: 5000
      - javascript: window.keys || 0
        name: keys
"""


def test_a_closed_shadow_root_s_form_is_found_by_its_label_and_filled(tmp_path: Path,
                                                                      farm: FarmCli):
    """A design system's component with a closed shadow root: its field and button were found
    only by OCR (seconds, and typed key by key); now by the text tier, and filled in one go."""
    case = _site(tmp_path / "site", IN_CLOSED)
    (tmp_path / "site" / "main.html").write_text(CLOSED)
    done = farm.run("run", case, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = results(tmp_path / "run")["cases"]
    assert [s["tier"] for s in result["steps"][:2]] == ["text", "text"]
    assert result["data"]["keys"] == 0
