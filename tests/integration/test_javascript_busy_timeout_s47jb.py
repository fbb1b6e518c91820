"""A `javascript` step's own ``timeout:`` stops code that holds the page's main thread (a busy
loop), not only a promise that does not settle: `farm run` in real Chromium. Before, the limit
was kept only by a timer inside the page, which a busy loop holds too: a 3 s loop with
``timeout: 500`` passed after 3 s, and ``while (true) {}`` failed only after 20 s as "the page
stopped responding". Farm now stops the script at its limit over the page's DevTools session
(Runtime.terminateExecution); the page, and its browser, go on with the next step and case."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PAGE = "data:text/html,<p id=p>Still here</p>"
STOPPED = ("javascript did not finish within 0.5s: its code still held the page (a loop that "
           "does not end?); farm stopped it")


def _case(name: str, code: str) -> str:
    """``code`` with timeout: 500 in a continueOnError task, then steps that need the page."""
    return f"""name: {name}
web:
  url: "{PAGE}"
tasks:
  - name: busy
    continueOnError: true
    flow:
      - javascript: "{code}"
        timeout: 500
  - name: after
    flow:
      - javascript: "return document.getElementById('p').textContent + ' ' + (1 + 1)"
        name: after
      - assertText: Still here
"""


def test_a_busy_script_past_its_timeout_is_stopped_and_the_page_goes_on(tmp_path: Path,
                                                                        farm: FarmCli):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "a_forever.yaml").write_text(_case("forever", "while (true) {}"))
    (suite / "b_three_seconds.yaml").write_text(_case(
        "three seconds", "const t = Date.now(); while (Date.now() - t < 3000) {} return 'done'"))
    (suite / "c_next.yaml").write_text(f"""name: next
web:
  url: "{PAGE}"
tasks:
  - name: t
    flow:
      - assertText: Still here
""")
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "r")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "stopped responding" not in out and "timed out" not in out, out
    assert f"/suite/a_forever.yaml:8) — step 1: {STOPPED}\n" in done.stdout, out
    cases = by_name(results(tmp_path / "r"))
    for name in ("a_forever", "b_three_seconds"):
        case = cases[name]
        assert [s["status"] for s in case["steps"]] == ["failed", "passed", "passed"], case
        assert case["steps"][0]["error"] == STOPPED
        assert case["steps"][1]["output"] == "Still here 2"
        assert case["data"]["after"] == "Still here 2"
    assert cases["c_next"]["status"] == "passed"
    # the same browser ran every case: nothing was closed, killed or restarted
    log = (tmp_path / "r" / "farm.log").read_text()
    assert log.count("browser-1: Chromium") == 1
    assert "closing the page" not in log and "restarting" not in out
