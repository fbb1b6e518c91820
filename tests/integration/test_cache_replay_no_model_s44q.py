"""A CI job with no model key replays what a nightly run with a model solved (`--cache
read-only`), on real Chromium with the demo shop: an ``ai`` step whose plan is cached runs
with no model call; once the page no longer fits that plan the case is skipped, saying so,
never passed."""

from __future__ import annotations

import io
from pathlib import Path

from farm.config import load_settings
from farm.session import run
from tests.support.agent_scripts import DONE_XML, by_progress, xml
from tests.support.farm_cli import results
from tests.support.model_server import ModelServer
from tests.support.suites import demo_copy

CASE = """name: AI signs in
web:
  url: ${FARM_DEMO_URL}/index.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: sign in
    flow:
      - waitForText: Username
      - ai: sign in as demo
      - waitForText: Welcome back, demo
        timeout: 5000
"""
SIGN_IN = [
    xml("Input", {"value": "demo", "locate": {"prompt": "Username"}}),
    xml("Input", {"value": "${DEMO_PASSWORD}", "locate": {"prompt": "Password"}}),
    xml("Tap", {"locate": {"prompt": "Sign in"}}),
    DONE_XML,
]


def night(suite: Path, name: str, srv: ModelServer | None = None, **more: str
          ) -> tuple[dict, str]:
    """One run of the case (the state kept between runs): its result and the run's output."""
    tmp = suite.parent
    model = dict(model="openai/scripted", model_base_url=srv.base_url) if srv else {}
    settings = load_settings(report_dir=tmp / name, state_dir=tmp / "state", **model, **more)
    out = io.StringIO()
    run([suite / "signin.yaml"], "browser:1", settings, progress=False, out=out)
    [case] = results(tmp / name)["cases"]
    return case, out.getvalue()


def test_a_cached_plan_replays_with_no_model_and_a_misfit_is_skipped(tmp_path: Path,
                                                                        monkeypatch):
    monkeypatch.delenv("FARM_MODEL", raising=False)
    suite = demo_copy(tmp_path / "demo")
    (suite / "signin.yaml").write_text(CASE)
    with ModelServer(by_progress(SIGN_IN)) as srv:
        case, _ = night(suite, "nightly", srv)
        assert case["status"] == "passed", case["error"]
        asked = len(srv.requests)
        assert asked

        case, out = night(suite, "ci", cache="read-only")      # no model configured
        assert case["status"] == "passed", (case.get("reason"), case["error"])
        assert len(srv.requests) == asked
        [ai] = [s for s in case["steps"] if s["kind"] == "ai"]
        assert ai["cache"]["plan"] == "hit", ai
        assert "1 passed in " in out and "s; cache: 1 plan(s) replayed (saved 4 model " \
            "call(s)" in out, out

        page = suite / "app" / "index.html"
        page.write_text(page.read_text().replace(
            '<button id="login-button" data-testid="login-button" type="submit" '
            'class="btn btn-primary btn-block">Sign in</button>',
            '<button id="go" type="submit" class="btn btn-primary btn-block">Continue</button>'))
        case, out = night(suite, "changed", cache="read-only")
        assert len(srv.requests) == asked
    assert case["status"] == "skipped", case
    said = case.get("reason") or (case["error"] or {}).get("message", "")
    assert 'needs a model (set FARM_MODEL): the cached plan for "sign in as demo" did not ' \
           'fit the screen at step 3 (' in said, said


def test_a_case_whose_first_step_is_a_cached_ai_step_is_not_skipped_before_it_starts(
        tmp_path: Path, monkeypatch):
    """With no model, a case whose very first step needs one is skipped before a device
    opens; not when that step is an ``ai`` step whose plan the cache holds."""
    monkeypatch.delenv("FARM_MODEL", raising=False)
    suite = demo_copy(tmp_path / "demo")
    (suite / "signin.yaml").write_text(CASE.replace("      - waitForText: Username\n", ""))
    with ModelServer(by_progress(SIGN_IN)) as srv:
        case, _ = night(suite, "nightly", srv)
        assert case["status"] == "passed", case["error"]
        asked = len(srv.requests)
        case, out = night(suite, "ci", cache="read-only")
        assert len(srv.requests) == asked
    assert case["status"] == "passed", (case.get("reason"), case["error"])
    assert "1 passed in " in out and "s; cache: 1 plan(s) replayed" in out, out
