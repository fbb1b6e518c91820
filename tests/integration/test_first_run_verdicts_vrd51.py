"""A results history with no earlier run of a case calls none of its failures *new*: the first
night on a fresh state dir (a CI runner's clean workspace) said "8 new failures" of cases that
had never run. A failure is new when the history has a run where the case passed. And the
closest text a failed check names is the whole message it is in: "Payment declined: card
expired" was cut to "Payment declined:", the cause lost, in the console, junit.xml and the
report alike."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.suites import write_case

pytestmark = pytest.mark.integration

# the decline comes a moment after the page loads, as a payment provider's answer does
PAY = ("<title>pay</title><p>Checkout</p><div id='out'></div><script>setTimeout(() => "
       "{document.getElementById('out').textContent = 'Payment declined: card expired'}, 1200)"
       "</script>")
CLOSEST = 'the closest text on it is "Payment declined: card expired"'


def _suite(tmp: Path) -> Path:
    folder = tmp / "shop"
    (folder / "app").mkdir(parents=True)
    (folder / "app" / "pay.html").write_text(PAY)
    (folder / "app" / "cart.html").write_text("<title>cart</title><p>Cart ready</p>")
    (folder / "farm.yaml").write_text("timeout: 300\napps:\n  site:\n    serve: app\n"
                                      "    env: SHOP_URL\n")
    write_case(folder, "pay", ["waitForText: Payment confirmed\n        timeout: 6000"],
               url="${SHOP_URL}/pay.html")
    write_case(folder, "cart", ["assertText: Cart ready"], url="${SHOP_URL}/cart.html")
    return folder


def _run(farm, suite: Path, run_dir: Path) -> tuple[list[str], dict[str, dict]]:
    proc = farm.run("run", suite, "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    cases = json.loads((run_dir / "results.json").read_text())["cases"]
    return proc.stdout.splitlines(), {c["case_id"]: c for c in cases}


def _failed(lines: list[str], case: str) -> str:
    [line] = [x for x in lines if x.startswith(f"FAILED {case} (")]
    return line


def test_a_first_run_calls_no_failure_new_and_names_the_whole_decline(tmp_path, farm):
    suite = _suite(tmp_path)
    lines, cases = _run(farm, suite, tmp_path / "night1")
    pay = _failed(lines, "shop/pay")
    assert pay.endswith(CLOSEST), pay           # no [new failure]: it never ran before
    assert cases["shop/pay"]["since_last"] is None
    [tally] = [x for x in lines if x.startswith("farm: ")]
    assert tally.startswith("farm: 1 passed, 1 failed in "), tally
    page = (tmp_path / "night1" / "report.html").read_text()
    assert 'id="new-count"' not in page and CLOSEST.split(" is ")[1] in page
    [failure] = ET.parse(tmp_path / "night1" / "junit.xml").getroot().iter("failure")
    assert "Payment declined: card expired" in failure.get("message", "")


def test_a_case_that_passed_before_is_a_new_failure_and_so_is_a_new_case(tmp_path, farm):
    """After a first run, a case's verdict is against the runs before: one that passed is a new
    failure, one that failed still failing, and a case new to the suite (no run ran it, in a
    history that has runs) a new failure too, as the history page calls it."""
    suite = _suite(tmp_path)
    _run(farm, suite, tmp_path / "night1")
    (suite / "app" / "cart.html").write_text("<title>cart</title><p>Cart empty</p>")
    write_case(suite, "added", ["assertText: Wishlist"], url="${SHOP_URL}/cart.html")
    lines, cases = _run(farm, suite, tmp_path / "night2")
    assert _failed(lines, "shop/cart").endswith("[new failure]")
    assert _failed(lines, "shop/pay").endswith(f"{CLOSEST} [still failing]")
    assert _failed(lines, "shop/added").endswith("[new failure]")
    assert [cases[c]["since_last"] for c in ("shop/cart", "shop/pay", "shop/added")] == [
        "new failure", "still failing", "new failure"]
    [tally] = [x for x in lines if x.startswith("farm: ")]
    assert tally.startswith("farm: 3 failed (2 new) in "), tally
    page = (tmp_path / "night2" / "report.html").read_text()
    new_count = page[page.index('id="new-count"'):]
    assert "<b>2</b> new failures</a>" in new_count[:new_count.index("</li>")]
