"""An error the page's scripts threw and nothing caught (Playwright's "pageerror") is said by the
step that then fails: "the page threw an uncaught TypeError: … (shop.js:3)", and so is the last
of its API calls the server answered with an error ("the page's request POST /api/pay answered
500 Internal Server Error"). Before, a Pay button whose handler threw, or whose backend failed,
only failed with the text that did not appear. A case whose page throws but whose steps pass
still passes. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

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


API_PAGE = b"""<!doctype html><html><body>
<button onclick="fetch('/api/cart?token=abc').then(() => {
  var x = new XMLHttpRequest(); x.open('POST', '/api/pay'); x.send('{}');
  var c = new AbortController(); fetch('/api/slow', {signal: c.signal}).catch(() => {});
  c.abort(); })">Pay</button>
<p>Your cart</p></body></html>"""


class Api(QuietHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/api/cart"):
            self.send_page(b"{}", 404, "application/json")
        else:
            self.send_page(API_PAGE)

    def do_POST(self) -> None:
        self.send_page(b"oops", 500, "text/plain")


def test_a_failed_step_names_the_api_call_the_server_failed(tmp_path: Path, farm: FarmCli):
    with serving(Api) as url:
        (tmp_path / "api.yaml").write_text(f"""name: api
web:
  url: {url}/
tasks:
  - name: pay
    flow:
      - aiTap: Pay
      - waitForText: Paid
        timeout: 1500
""")
        done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir",
                        tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    error = results(tmp_path / "run")["cases"][0]["steps"][1]["error"]
    # the aborted call is the page's own doing: not counted; the query is left out
    assert error == ('text "Paid" did not appear within 1.5s (the page\'s request POST '
                     '/api/pay answered 500 Internal Server Error; 1 more before)'), error
