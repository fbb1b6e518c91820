"""The plan cache for models that answer with a box and no description (UI-TARS, AutoGLM), on
a real browser against the scripted model server: the demo shop's login, solved once, runs
every later night with no model call (its targets replayed by the XPath of what each box hit);
after the Sign in button's id changed, only that step is planned again, and farm.log says
which step broke and why in words."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run
from tests.support.agent_scripts import by_progress
from tests.support.farm_cli import results
from tests.support.model_server import ModelServer
from tests.support.suites import demo_copy

CASE = """name: AI logs in
web:
  url: ${FARM_DEMO_URL}/index.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: login
    flow:
      - ai: log in as demo with password ${DEMO_PASSWORD}
      - waitForText: Welcome back, demo
        timeout: 5000
"""
# the demo shop's Username, Password and Sign in, in each family's coordinates (0-1000 / 0-999)
FLOWS = {
    "openai/ui-tars-7b": [
        "Thought: username\nAction: click(start_box='(500,527)')",
        "Thought: t\nAction: type(content='demo')",
        "Thought: pw\nAction: click(start_box='(500,627)')",
        "Thought: t\nAction: type(content='${DEMO_PASSWORD}')",
        "Thought: go\nAction: click(start_box='(500,695)')",
        "Thought: done\nAction: finished(content='logged in')"],
    "openai/autoglm-phone": [
        '<think>u</think><answer>do(action="Tap", element=[500,527])</answer>',
        '<think>t</think><answer>do(action="Type", text="demo")</answer>',
        '<think>p</think><answer>do(action="Tap", element=[500,627])</answer>',
        '<think>t</think><answer>do(action="Type", text="${DEMO_PASSWORD}")</answer>',
        '<think>go</think><answer>do(action="Tap", element=[500,695])</answer>',
        '<think>d</think><answer>finish(message="logged in")</answer>'],
}


def night(suite: Path, tmp: Path, name: str, srv: ModelServer, model: str) -> dict:
    """One `farm run` of the suite on a browser; its only case's ai step."""
    settings = load_settings(report_dir=tmp / name, state_dir=tmp / "state", model=model,
                             model_base_url=srv.base_url)
    out = io.StringIO()
    code = run([suite], "browser:1", settings, progress=False, out=out)
    [case] = results(tmp / name)["cases"]
    assert code == 0 and case["status"] == "passed", out.getvalue()
    return case["steps"][0]


@pytest.mark.parametrize("model", sorted(FLOWS))
def test_a_box_only_case_replays_with_no_model_call_and_a_stale_step_is_replanned_alone(
        tmp_path, model):
    suite = demo_copy(tmp_path / "demo")
    (suite / "login_ai.yaml").write_text(CASE)
    with ModelServer(by_progress(FLOWS[model])) as srv:
        solved = night(suite, tmp_path, "n1", srv, model)
        assert solved["cache"]["plan"] == "miss" and len(srv.requests) == 6
        for name in ("n2", "n3"):
            step = night(suite, tmp_path, name, srv, model)
            assert step["cache"]["plan"] == "hit" and step["usage"] is None, step
            assert step["tier"] == "xpath" and len(srv.requests) == 6
        page = suite / "app" / "index.html"
        page.write_text(page.read_text().replace(
            'id="login-button" data-testid="login-button"',
            'id="signin-btn" data-testid="signin-btn"'))
        step = night(suite, tmp_path, "n4", srv, model)
        assert step["cache"]["plan"] == "replanned" and len(srv.requests) == 6 + 2
        log = (tmp_path / "n4" / "farm.log").read_text()
        assert ("step 5 of 5 failed (Locate XPath //*[@id='login-button'] failed: no element "
                "matches XPath //*[@id='login-button']") in log
        assert "None" not in log
        step = night(suite, tmp_path, "n5", srv, model)     # the rewritten plan replays
        assert step["cache"]["plan"] == "hit" and len(srv.requests) == 8
