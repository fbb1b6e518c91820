"""What a user sees when a model endpoint or its replies go wrong: `farm run` and the Agent
against the scripted model server (real HTTP, litellm unpatched) and real headless Chromium.

* retries spent on one of several endpoints: the error names that endpoint's model and base
  URL (no API key, no query string);
* the replanning limit reached: the message says which settings raise it (and they do);
* planningStrategy max past the history's compression, and reference images: the roles on the
  wire still take turns (system, user, assistant, user ...): strict chat templates refuse two
  user messages in a row;
* an XML reply with an action and a `<complete>` beside it: the action runs, the completion is
  not taken before the model has seen what the action did;
* replies with no text (an empty choices list, tool calls instead of content), a connection
  closed mid-body, fenced, JSON, off-screen and NaN answers, the same action forever.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.agent.loop import LoopLimits
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from tests.support.agent_scripts import DONE_XML, xml
from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import Reply
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Counter</title></head>
<body><h1>Quantity picker</h1>
<p style="font-size:48px">Quantity: <span id="qty">0</span></p>
<button id="plus" style="font-size:32px" onclick="var q = document.getElementById('qty');
  q.textContent = String(Number(q.textContent) + 1)">Add one</button>
</body></html>
"""
TAP = xml("Tap", {"locate": {"prompt": "Add one"}})
KEY = "sk-audit-s41-0123456789"


@pytest.fixture
def page_target(tmp_path):
    from farm.suite.model import WebTarget
    (tmp_path / "counter.html").write_text(PAGE, encoding="utf-8")
    return WebTarget(url=(tmp_path / "counter.html").as_uri())


def counter_case(tmp_path: Path, *flow: str) -> Path:
    (tmp_path / "counter.html").write_text(PAGE, encoding="utf-8")
    suite = tmp_path / "s"
    write_case(suite, "count", list(flow), url=(tmp_path / "counter.html").as_uri())
    return suite


def farm_run(tmp_path: Path, suite: Path, **env: str):
    proc = FarmCli(tmp_path).run("run", suite, "--devices", "browser:1", "--no-progress",
                                 "--cache", "off", "--report-dir", tmp_path / "out",
                                 FARM_MODEL="openai/scripted", FARM_MODEL_API_KEY=KEY,
                                 FARM_MODEL_RETRIES="1", FARM_MODEL_BACKOFF="0.01", **env)
    [case] = results(tmp_path / "out")["cases"]
    return proc, case


def qty(device) -> str:
    return device.page.inner_text("#qty")


# ---- 1. retries spent: which endpoint ------------------------------------------------------
def test_a_judge_endpoint_out_of_retries_is_named_by_its_base_url(tmp_path, model_server):
    """Planner at one endpoint, judge at another (both "openai/scripted"): the error said
    "model openai/scripted unavailable after 2 attempts" and not which one was down."""
    planner = model_server([DONE_XML])
    judge = model_server([Reply(status=503)])
    suite = counter_case(tmp_path, "ai: look at the page", "aiAssert: the quantity is 0")
    proc, case = farm_run(tmp_path, suite, FARM_MODEL_BASE_URL=planner.base_url,
                          FARM_ASSERT_MODEL="openai/scripted",
                          FARM_ASSERT_MODEL_BASE_URL=judge.base_url + "?code=" + KEY)
    said = case["error"]["message"]
    assert case["status"] == "error" and case["error"]["kind"] == "ModelUnavailable", case
    assert said.startswith(f"model openai/scripted at {judge.base_url} unavailable after 2 "
                           "attempts: ServiceUnavailableError"), said
    assert planner.base_url not in said and "?code" not in said
    assert KEY not in proc.stdout + proc.stderr + json.dumps(case)
    assert len(judge.requests) == 2


# ---- 2. the replanning limit names its settings -----------------------------------------------
def test_the_replanning_limit_says_how_to_raise_it_and_that_setting_does(tmp_path,
                                                                         model_server):
    srv = model_server(lambda body, i: TAP)     # the count changes every round: never stuck
    suite = counter_case(tmp_path, "ai: press Add one until the quantity is 9")
    proc, case = farm_run(tmp_path, suite, FARM_MODEL_BASE_URL=srv.base_url,
                          FARM_REPLANNING_CYCLE_LIMIT="3")
    assert case["status"] == "failed", case
    assert case["error"]["message"] == (
        "replanning limit 3 reached without <complete>; to allow more rounds set "
        "replanningCycleLimit in the case's agent: section, or FARM_REPLANNING_CYCLE_LIMIT "
        "(replanning_cycle_limit in farm.toml)"), case["error"]
    assert len(srv.requests) == 3           # the variable the message names set the limit
