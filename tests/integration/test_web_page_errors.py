"""An error the page's scripts threw and nothing caught (Playwright's "pageerror") is said by the
step that then fails: "the page threw an uncaught TypeError: … (shop.js:3)". Before, a Pay
button whose handler threw only failed with the text that did not appear. A case whose page
throws but whose steps pass still passes. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

SCRIPT = """function pay() {
  var cart = undefined;
  document.getElementById('out').textContent = 'Paid ' + cart.total;
}
function later() { Promise.reject(new Error('card service unreachable')); }
"""

PAGE = """<!doctype html><html><head><script src="shop.js?v=3"></script></head><body>
<button onclick="pay()">Pay</button> <button onclick="later()">Check card</button>
<p id="out">Your cart</p>
</body></html>"""

CASE = """name: {name}
web:
  serve: .
  url: page.html
tasks:
  - name: pay
    flow:
{steps}"""


def test_a_failed_step_names_the_error_the_page_threw(tmp_path: Path, farm: FarmCli):
    (tmp_path / "shop.js").write_text(SCRIPT)
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "pay.yaml").write_text(CASE.format(name="pay", steps=(
        "      - aiTap: Check card\n      - aiTap: Pay\n"
        "      - waitForText: Paid\n        timeout: 1500\n")))
    (tmp_path / "fine.yaml").write_text(CASE.format(name="fine", steps=(
        "      - aiTap: Pay\n      - assertText: Your cart\n")))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    assert cases["fine"]["status"] == "passed", cases["fine"]
    error = cases["pay"]["steps"][2]["error"]
    assert error == ('text "Paid" did not appear within 1.5s (the page threw an uncaught '
                     "TypeError: Cannot read properties of undefined (reading 'total') "
                     "(shop.js:3); 1 more before)"), error
    assert "the page threw an uncaught TypeError" in done.stdout
