"""A target found only by an element's id, through real `farm run` on real Chromium.

`aiTap: Greet` on a page with `<button id="greet">Forgot password?</button>` tapped "Forgot
password?" and the step passed saying nothing (tier text): a renamed or wrong target was
visible only as the next step's failure. The step now says it went by the id and what the
button reads, in results.json, the report and the terminal; and what an element shows wins
over another element's id ("Login" taps "Login with Google", not the "Sign up" button whose
id is "login")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<p id="out"></p>
<button id="greet" onclick="say('clicked-forgot')">Forgot password?</button>
<button id="b1" onclick="say('clicked-b1')">Say hello</button>
<button data-testid="buy" onclick="say('clicked-purchase')">Purchase</button>
<button id="login" onclick="say('clicked-signup')">Sign up</button>
<button onclick="say('clicked-google')">Login with Google</button>
<script>function say(t) { document.getElementById('out').textContent = t; }</script>
</body></html>"""

CASE = """name: by id
web:
  url: ${QA_URL}/index.html
tasks:
  - name: t
    flow:
      - aiTap: Greet
      - assertText: clicked-forgot
      - aiTap: buy
      - assertText: clicked-purchase
      - aiTap: Login
      - assertText: clicked-google
      - aiTap: Say hello
      - assertText: clicked-b1
"""
GREET = 'matched by its id "greet"; it reads "Forgot password?"'
BUY = 'matched by its id "buy"; it reads "Purchase"'


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str, str]:
    """One `farm run` of the page with no model and no cache: (the case's results, the
    terminal's output, report.html)."""
    tmp = tmp_path_factory.mktemp("byid")
    suite = tmp / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  qa:\n    serve: app\n"
                                     "    env: QA_URL\n")
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "byid.yaml").write_text(CASE)
    farm = FarmCli(tmp)
    try:
        done = farm.run("run", suite, "--devices", "browser:1", "--cache", "off",
                        "--report-dir", tmp / "out")
    finally:
        farm.close()
    case = results(tmp / "out")["cases"][0]
    return case, done.stdout + done.stderr, Path(tmp / "out" / "report.html").read_text()


def test_a_tap_by_id_alone_says_what_the_element_reads(run) -> None:
    case, output, report = run
    assert case["status"] == "passed", (case, output)
    steps = case["steps"]
    assert steps[0]["tier"] == "text" and steps[0]["notes"] == [GREET], steps[0]
    assert steps[2]["notes"] == [BUY], steps[2]
    assert f"step 1: {GREET}" in output and f"step 3: {BUY}" in output, output
    assert "Forgot password?" in report and "matched by its id" in report


def test_what_a_button_shows_wins_over_another_buttons_id(run) -> None:
    """Step 5 passed only when it tapped "Login with Google" (step 6 checks), and neither it
    nor a tap by the button's own words says anything."""
    case, output, _ = run
    assert case["status"] == "passed", (case, output)
    assert not case["steps"][4].get("notes") and not case["steps"][6].get("notes"), case["steps"]
