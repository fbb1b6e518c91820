"""What a model gets wrong, end to end: `farm run` on real Chromium against the scripted
OpenAI-compatible server (litellm calls it over HTTP).

* a plan from a case that failed is not cached, so the next run asks the model (it used to be
  replayed with no model call, failing the same way, until `farm cache clear`); a plan from a
  passed case is replayed, and dropped when a case replaying it fails;
* a locate box off the screen is no location: the case fails with a LocateError that says why
  and nothing is tapped (it used to tap the corner pixel and pass);
* a model that only plans actions farm does not have is a model error, not the app's failure.

Two nights of one farm state for the module, the cases on two browsers, each answered and
counted by its own script (tests/support/per_case_model.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from farm.cache.keys import split_key
from farm.cache.sqlite_store import SqliteStore
from tests.support.agent_scripts import DONE_XML, XML_FLOW, by_progress, xml
from tests.support.farm_cli import ROOT, FarmCli, by_name, results
from tests.support.model_server import ModelServer
from tests.support.per_case_model import PerCase

pytestmark = pytest.mark.integration

DEMO = ROOT / "suites" / "demo"
SHOPPING = [a for a in XML_FLOW if "DEMO_PASSWORD" not in a]   # the password is typed before
WRONG = [xml("Tap", {"locate": {"prompt": "Sign in"}}), DONE_XML]   # "added" — it never shopped
TASK = "log in as demo, search for mug and add the Blue Mug to the cart"
# the plan cases, each ai_shopping.yaml with a task of its own (its requests told apart):
# "wrong" is shopped by a wrong model the first night, the right one the next; "kept" passes
# both nights; "dropped" passes, then its check asks for Cart (2)
PLAN_TASKS = {"wrong": "as demo, log in, search for mug and add the Blue Mug to the cart",
              "kept": TASK,
              "dropped": "log in as the demo user, search for mug and add the Blue Mug to the "
                         "cart"}

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


def demo_copy(tmp: Path) -> Path:
    """The demo shop and its farm.yaml (a roomier case timeout: a loaded machine), the plan
    cases and the mistakes' cases."""
    suite = tmp / "demo"
    suite.mkdir()
    shutil.copytree(DEMO / "app", suite / "app")
    (suite / "farm.yaml").write_text((DEMO / "farm.yaml").read_text().replace(
        "timeout: 60 ", "timeout: 300 "))
    for name, task in PLAN_TASKS.items():
        (suite / f"{name}.yaml").write_text(
            (DEMO / "ai_shopping.yaml").read_text().replace(f"ai: {TASK}", f"ai: {task}"))
    (suite / "offscreen.yaml").write_text(OFF_SCREEN_TAP)
    (suite / "fly.yaml").write_text(FLY)
    return suite


def model() -> PerCase:
    """Locate requests get a box far off the 1280×800 screen; fly's plans, an action farm
    lacks; the plan cases, by how far they got, the shopping flow ("wrong": a wrong one)."""
    return PerCase(
        offscreen=("Find the element: the big primary button below the password field.",
                   ['{"bbox": [5000, 5000, 5100, 5100]}']),
        fly=("Task: sign in", [xml("Fly", {"locate": {"prompt": "Sign in"}})]),
        **{name: (f"Task: {task}", by_progress(WRONG if name == "wrong" else SHOPPING))
           for name, task in PLAN_TASKS.items()})


def planned_cases(state: Path) -> set[str]:
    """The cases the plan cache holds an entry of."""
    return {split_key(key)["case"].split("/", 1)[1]
            for key, v in SqliteStore(state / "cache.db").items() if v["type"] == "plan"}


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[dict[str, Any]]]:
    """Night 1: every case ("wrong" shopped by the wrong model); night 2: the plan cases, the
    right model for "wrong", "dropped" checking for Cart (2). Each night: its exit and
    output, its cases by name, farm.log, the cases the plan cache holds after it, and what
    each case asked the model."""
    tmp = tmp_path_factory.mktemp("mistakes")
    suite, farm, answers, seen = demo_copy(tmp), FarmCli(tmp), model(), []

    def night(run: str, *names: str) -> None:
        asked = {name: answers.asked(name) for name in names}
        done = farm.run("run", *(suite / f"{name}.yaml" for name in names), "--devices",
                        "browser:2", "--no-progress", "--report-dir", tmp / run, "--model",
                        "openai/scripted", "--model-base-url", srv.base_url, timeout=600)
        seen.append({"done": done, "cases": by_name(results(tmp / run)),
                     "log": (tmp / run / "farm.log").read_text(),
                     "planned": planned_cases(tmp / "state"),
                     "asked": {n: answers.asked(n) - asked[n] for n in names}})

    try:
        with ModelServer(answers) as srv:
            night("r1", "wrong", "kept", "dropped", "offscreen", "fly")
            answers.scripts["wrong"] = by_progress(SHOPPING)     # the model plans the real flow
            case_file = suite / "dropped.yaml"
            case_file.write_text(case_file.read_text().replace("assertText: Cart (1)",
                                                               "assertText: Cart (2)"))
            night("r2", *PLAN_TASKS)
    finally:
        farm.close()
    assert not answers.unrouted, answers.unrouted
    yield seen


def ai_step(case: dict) -> dict:
    return next(s for s in case["steps"] if s["kind"] == "ai")


def why(night: dict, name: str) -> str:
    return json.dumps(night["cases"][name], indent=1)[:3000] + night["done"].stderr


def test_a_plan_is_kept_only_from_a_passed_case(nights):
    first, second = nights
    case = first["cases"]["wrong"]                       # the wrong model: a failed case
    assert case["status"] == "failed", why(first, "wrong")
    assert ai_step(case)["status"] == "passed" and case["error"]["kind"] == "AssertionFailed"
    assert "wrong" not in first["planned"] and first["planned"] >= {"kept", "dropped"}
    assert "plan cache: 1 entry not kept: the case failed" in first["log"]
    case = second["cases"]["wrong"]                       # the next night asks the model
    assert case["status"] == "passed", why(second, "wrong")
    assert ai_step(case)["cache"]["plan"] == "miss" and second["asked"]["wrong"] == len(SHOPPING)

    case = first["cases"]["kept"]
    assert case["status"] == "passed", why(first, "kept")
    assert ai_step(case)["cache"]["plan"] == "miss" and first["asked"]["kept"] == len(SHOPPING)
    case = second["cases"]["kept"]
    assert case["status"] == "passed" and ai_step(case)["cache"]["plan"] == "hit"
    assert second["asked"]["kept"] == 0                   # replayed: not one request

    # the case's check changes: the replayed plan now ends in a failed case and is dropped
    assert first["cases"]["dropped"]["status"] == "passed", why(first, "dropped")
    case = second["cases"]["dropped"]
    assert case["status"] == "failed" and ai_step(case)["cache"]["plan"] == "hit"
    assert "plan cache: 1 entry replayed in this attempt dropped: the case failed" \
        in second["log"]
    assert second["planned"] == {"wrong", "kept"}


def test_model_mistakes_are_told_as_they_are(nights):
    night = nights[0]
    tap, fly = night["cases"]["offscreen"], night["cases"]["fly"]
    assert tap["status"] == "failed", why(night, "offscreen")
    assert tap["error"]["kind"] == "LocateError"
    assert ("the model's box [5000,5000,5100,5100] is outside the 1280×800 screen"
            in tap["error"]["message"])
    assert tap["steps"][0]["marks"] == []                # nothing was tapped
    assert fly["status"] == "error" and fly["error"]["kind"] == "ModelUnavailable", fly["error"]
    assert fly["error"]["message"].startswith(
        "the model openai/scripted kept planning actions farm cannot run (6 times; last: "
        "unknown action 'Fly'")
