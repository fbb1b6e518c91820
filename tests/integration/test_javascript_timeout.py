"""A `javascript` step's own `timeout:` fails that step, as `waitForText`'s does: `farm run` in
real Chromium on the demo shop. It used to end the case as a case timeout (an infrastructure
error, exit 3, continueOnError ignored, "case timed out after 600s")."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.suites import demo_copy

SLOW_SCRIPT = """javascript: "return new Promise(r => setTimeout(() => r('done'), 60000))"
        timeout: 1000"""
NEVER_SHOWN = """waitForText: Never appears
        timeout: 1000"""


def case(name: str, step: str, optional: bool) -> str:
    """One case: ``step`` alone in a task (continueOnError or not), then a check that runs."""
    return f"""name: {name}
web:
  url: ${{FARM_DEMO_URL}}/index.html
tasks:
  - name: slow
    continueOnError: {str(optional).lower()}
    flow:
      - {step}
  - name: check
    flow:
      - assertText: Sign in
"""


def test_a_script_past_its_own_timeout_fails_its_step_like_wait_for_text(tmp_path: Path,
                                                                         farm: FarmCli):
    suite = demo_copy(tmp_path / "demo")
    for stem, step in (("js", SLOW_SCRIPT), ("wft", NEVER_SHOWN)):
        (suite / f"{stem}_optional.yaml").write_text(case(f"{stem} optional", step, True))
        (suite / f"{stem}_required.yaml").write_text(case(f"{stem} required", step, False))
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr       # failed, not an error (3)
    assert "timed out" not in done.stdout + done.stderr
    cases = by_name(results(tmp_path / "run"))
    for kind in ("optional", "required"):
        js, wft = cases[f"js_{kind}"], cases[f"wft_{kind}"]
        assert js["status"] == wft["status"] != "error", (js, wft)
        assert [s["status"] for s in js["steps"]] == [s["status"] for s in wft["steps"]]
        assert js["steps"][0]["error"] == "javascript did not finish within 1s"
    assert [s["status"] for s in cases["js_optional"]["steps"]] == ["failed", "passed"]
    assert cases["js_required"]["status"] == "failed"
    assert cases["js_required"]["error"]["message"] == "javascript did not finish within 1s"
