"""A text check that fails says what the page shows instead, in the console line, results.json
and junit.xml alike: the alert a failed sign-in put up, or the text closest to the expected one
("Cart (0)" where "Cart (1)" was expected). Before, only "did not appear within 2s": a CI
log reader had to open the report's screenshot. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body>
<p>Cart (0)</p>
<input aria-label="Password">
<button onclick="var e = document.getElementById('err'); e.hidden = false;
  e.textContent = 'Invalid username or password'">Sign in</button>
<p id="err" role="alert" hidden></p>
</body></html>"""

CASE = """name: hints
web:
  serve: .
  url: page.html
tasks:
  - name: sign in
    continueOnError: true
    flow:
      - aiTap: Sign in
      - waitForText: Welcome back, demo
        timeout: 1500
  - name: cart
    flow:
      - assertText: Cart (1)
"""


def test_a_failed_text_check_names_the_alert_and_the_closest_text(tmp_path: Path,
                                                                 farm: FarmCli):
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "hints.yaml").write_text(CASE)
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir",
                    tmp_path / "run", "--junit-xml", tmp_path / "junit.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    steps = results(tmp_path / "run")["cases"][0]["steps"]
    wait, cart = steps[1]["error"], steps[2]["error"]
    assert wait == ('text "Welcome back, demo" did not appear within 1.5s; the screen shows '
                    '"Invalid username or password" (an alert)'), wait
    assert cart == ('expected text "Cart (1)" is not on screen; the screen shows "Invalid '
                    'username or password" (an alert); the closest text on it is "Cart (0)"'), cart
    assert 'the closest text on it is "Cart (0)"' in done.stdout
    assert "(an alert)" in (tmp_path / "junit.xml").read_text()


def test_an_assert_text_read_while_the_page_waited_for_its_request_says_so(tmp_path: Path,
                                                                          farm: FarmCli):
    """assertText does not wait; one that fails while the page's own request (the order's
    POST) is still under way says so and names the step that waits. Before: only "not on
    screen", the flaky check of many a suite."""
    from tests.support.gate import Gate

    with Gate() as gate:
        (tmp_path / "page.html").write_text(
            f"""<!doctype html><html><body><button onclick="fetch('{gate.url}').then(() =>
            document.getElementById('out').textContent = 'Order placed')">Place order</button>
            <p id="out"></p></body></html>""")
        (tmp_path / "order.yaml").write_text("""name: order
web:
  serve: .
  url: page.html
tasks:
  - name: order
    flow:
      - aiTap: Place order
      - assertText: Order placed
""")
        done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir",
                        tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    error = results(tmp_path / "run")["cases"][0]["steps"][1]["error"]
    assert error == ('expected text "Order placed" is not on screen; the page still had 1 '
                     'request(s) of its own in flight (fetch / XHR) when it was read: '
                     'waitForText waits for a text to come'), error
