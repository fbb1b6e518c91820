"""What a model gets wrong, end to end: `farm run` on real Chromium against the scripted
OpenAI-compatible server (litellm calls it over HTTP).

* a plan from a case that failed is not cached, so the next run asks the model (it used to be
  replayed with no model call, failing the same way, until `farm cache clear`); a plan from a
  passed case is replayed, and dropped when a case replaying it fails;
* a locate box off the screen is no location: the case fails with a LocateError that says why
  and nothing is tapped (it used to tap the corner pixel and pass);
* a model that only plans actions farm does not have is a model error, not the app's failure.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from farm.cache.sqlite_store import SqliteStore
from tests.support.agent_scripts import DONE_XML, XML_FLOW, by_progress, xml
from tests.support.farm_cli import ROOT, by_name, results
from tests.support.model_server import message_texts

pytestmark = pytest.mark.integration

DEMO = ROOT / "suites" / "demo"
SHOPPING = [a for a in XML_FLOW if "DEMO_PASSWORD" not in a]   # the password is typed before
WRONG = [xml("Tap", {"locate": {"prompt": "Sign in"}}), DONE_XML]   # "added" — it never shopped


def demo_copy(tmp: Path, *cases: str) -> Path:
    """The demo shop and its farm.yaml (a roomier case timeout: a loaded machine), ``cases``."""
    suite = tmp / "demo"
    suite.mkdir()
    shutil.copytree(DEMO / "app", suite / "app")
    (suite / "farm.yaml").write_text((DEMO / "farm.yaml").read_text().replace(
        "timeout: 60 ", "timeout: 300 "))
    for name in cases:
        shutil.copy(DEMO / name, suite)
    return suite


def run(farm, suite: Path, srv, run_dir: Path, *flags: str):
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress", "--report-dir",
                    run_dir, "--model", "openai/scripted", "--model-base-url", srv.base_url,
                    *flags)
    return done, results(run_dir), (run_dir / "farm.log").read_text()


def ai_step(case: dict) -> dict:
    return next(s for s in case["steps"] if s["kind"] == "ai")


def plan_entries(state: Path) -> list[dict]:
    return [v for _, v in SqliteStore(state / "cache.db").items() if v["type"] == "plan"]


def test_a_plan_is_kept_only_from_a_passed_case(tmp_path, farm, model_server):
    suite = demo_copy(tmp_path, "ai_shopping.yaml")
    wrong = model_server(by_progress(WRONG))
    done, summary, log = run(farm, suite, wrong, tmp_path / "r1")
    [case] = summary["cases"]
    assert done.returncode == 1, json.dumps(case, indent=1)[:3000] + done.stderr
    assert ai_step(case)["status"] == "passed" and case["error"]["kind"] == "AssertionFailed"
    assert plan_entries(tmp_path / "state") == []
    assert "plan cache: 1 entry not kept: the case failed" in log

    right = model_server(by_progress(SHOPPING))          # the model plans the real flow
    done, summary, _ = run(farm, suite, right, tmp_path / "r2")
    [case] = summary["cases"]
    assert done.returncode == 0, json.dumps(case, indent=1)[:3000] + done.stderr
    assert ai_step(case)["cache"]["plan"] == "miss" and len(right.requests) == len(SHOPPING)
    done, summary, _ = run(farm, suite, right, tmp_path / "r3")
    assert done.returncode == 0 and ai_step(summary["cases"][0])["cache"]["plan"] == "hit"
    assert len(right.requests) == len(SHOPPING)          # replayed: not one request

    # the case's check changes: the replayed plan now ends in a failed case and is dropped
    case_file = suite / "ai_shopping.yaml"
    case_file.write_text(case_file.read_text().replace("assertText: Cart (1)",
                                                       "assertText: Cart (2)"))
    done, summary, log = run(farm, suite, right, tmp_path / "r4")
    [case] = summary["cases"]
    assert done.returncode == 1 and ai_step(case)["cache"]["plan"] == "hit"
    assert "plan cache: 1 entry replayed in this attempt dropped: the case failed" in log
    assert plan_entries(tmp_path / "state") == []


OFF_SCREEN_TAP = """name: tap off screen
web:
  url: ${FARM_DEMO_URL}/index.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: tap
    flow:
      - aiTap: the big primary button below the password field
"""
FLY = """name: fly
web:
  url: ${FARM_DEMO_URL}/index.html
  viewportWidth: 1280
  viewportHeight: 800
tasks:
  - name: fly
    flow:
      - ai: sign in
"""


def off_screen_and_flying(body: dict, index: int) -> str:
    """Locate requests get a box far off the 1280×800 screen; plans, an action farm lacks."""
    if "Find the element" in "\n".join(message_texts(body)):
        return '{"bbox": [5000, 5000, 5100, 5100]}'
    return xml("Fly", {"locate": {"prompt": "Sign in"}})


def test_model_mistakes_are_told_as_they_are(tmp_path, farm, model_server):
    suite = demo_copy(tmp_path)
    (suite / "offscreen.yaml").write_text(OFF_SCREEN_TAP)
    (suite / "fly.yaml").write_text(FLY)
    srv = model_server(off_screen_and_flying)
    done, summary, _ = run(farm, suite, srv, tmp_path / "run", "--cache", "off")
    cases = by_name(summary)
    tap, fly = cases["offscreen"], cases["fly"]
    assert tap["status"] == "failed", json.dumps(tap, indent=1)[:3000] + done.stderr
    assert tap["error"]["kind"] == "LocateError"
    assert ("the model's box [5000,5000,5100,5100] is outside the 1280×800 screen"
            in tap["error"]["message"])
    assert tap["steps"][0]["marks"] == []                # nothing was tapped
    assert fly["status"] == "error" and fly["error"]["kind"] == "ModelUnavailable", fly["error"]
    assert fly["error"]["message"].startswith(
        "the model openai/scripted kept planning actions farm cannot run (6 times; last: "
        "unknown action 'Fly'")
