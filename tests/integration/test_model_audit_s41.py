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
import re
from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.agent.loop import LoopLimits
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from tests.support.agent_scripts import DONE_XML, xml
from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import Reply, request_images
from tests.support.model_server import cut_mid_body as shared_cut_mid_body
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
    return re.search(r"Quantity: (\d+)", device.screen_text()).group(1)


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


# ---- 3. roles take turns on the wire ----------------------------------------------------------
def roles(body: dict) -> list[str]:
    return [m["role"] for m in body["messages"]]


def taking_turns(body: dict) -> bool:
    """system, then user / assistant by turns, ending with the user (what strict chat
    templates accept)."""
    rest = roles(body)[1:]
    return roles(body)[0] == "system" and rest[-1] == "user" and all(
        r == ("user" if i % 2 == 0 else "assistant") for i, r in enumerate(rest))


def agent_for(device, srv, cap: int | None = None) -> Agent:
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, backoff=0.05)
    return Agent(device, ModelSet.single(client), limits=LoopLimits(cap=cap))


def test_planning_strategy_max_past_compression_still_takes_turns(page, model_server):
    """26 rounds fill the history past 50 messages: the placeholder for the dropped ones was
    a user message right before the first kept user message."""
    srv = model_server(lambda body, i: TAP if i < 26 else DONE_XML)
    out = agent_for(page, srv, cap=30).ai_act("press Add one 26 times",
                                              planning_strategy="max")
    assert len(out["steps"]) == 26 and qty(page) == "26"
    assert [i for i, r in enumerate(srv.requests) if not taking_turns(r)] == []
    last = srv.requests[-1]["messages"]
    first = [p.get("text") for p in last[1]["content"]]
    assert first[0] == "(32 earlier messages of this task omitted)", first
    assert first[1].startswith("Task: press Add one 26 times"), first


def test_reference_images_ride_in_the_first_user_turn(page, model_server):
    """A {prompt, images} task: its images were a user message of their own, then the
    round's prompt a second user message."""
    from farm.agent.images import data_url
    logo = data_url(page.screenshot())
    [button] = [n.rect for n in page.hierarchy().nodes if n.text == "Add one"]
    box = json.dumps({"bbox": [button.x, button.y, button.x + button.width,
                               button.y + button.height]})
    plans: list[dict] = []

    def script(body: dict, i: int) -> str:
        if "Find the element" in json.dumps(body):      # the locate of the planned Tap
            return box
        plans.append(body)
        return TAP if len(plans) == 1 else DONE_XML
    srv = model_server(script)
    agent_for(page, srv).ai_act("press Add one", images=[{"name": "logo", "url": logo}])
    assert qty(page) == "1" and len(plans) == 2
    assert [taking_turns(p) for p in plans] == [True, True]
    for body in plans:
        texts = [p.get("text") for p in body["messages"][1]["content"]]
        assert texts[1:3] == ["Reference image 'logo':", None] and texts[3].startswith(
            "Task: press Add one"), texts
        assert request_images(body)[0] == logo


# ---- 4. an action with a completion beside it -------------------------------------------------
QUOTED = ('I will press the button; then the answer is <complete success="true">done'
          '</complete>.\n<thought>press it</thought>' + TAP)


def test_a_completion_beside_an_action_is_not_a_pass_before_the_model_looks(page,
                                                                          model_server):
    """Prose outside any tag quoting <complete success="true"> beside a real Tap: the Tap ran
    and the act passed on the spot, its effect never judged. Now the Tap runs, the model is
    told its completion was not taken, and the act ends when it completes on its own."""
    srv = model_server([QUOTED, DONE_XML])
    out = agent_for(page, srv).ai_act("press Add one once")
    assert qty(page) == "1" and out["rounds"] == 2 and len(srv.requests) == 2
    assert "was not taken" in srv.texts(1) and out["message"] == "added"


def test_an_action_with_a_completion_every_round_never_passes(page, model_server):
    """A model that always writes both: it is never taken as done; the act ends at the
    replanning limit (the taps change the screen: not stuck), a failure, not a pass."""
    from farm.errors import StepFailed
    srv = model_server([QUOTED])
    with pytest.raises(StepFailed, match="^replanning limit 3 reached without <complete>"):
        agent_for(page, srv, cap=3).ai_act("press Add one once")
    assert qty(page) == "3"


# ---- replies with no text -----------------------------------------------------------------------
def completion(choices: list) -> Reply:
    return Reply(raw=json.dumps({
        "id": "x", "object": "chat.completion", "created": 1, "model": "scripted",
        "choices": choices,
        "usage": {"prompt_tokens": 900, "completion_tokens": 5, "total_tokens": 905}}).encode())


TOOL_CALL = completion([{"index": 0, "finish_reason": "tool_calls", "message": {
    "role": "assistant", "content": None, "tool_calls": [{
        "id": "c1", "type": "function",
        "function": {"name": "click", "arguments": '{"x": 10, "y": 20}'}}]}}])


@pytest.mark.parametrize("reply, said", [
    (completion([]), 'answered with no choices (an empty "choices" list): nothing to read'),
    (TOOL_CALL, "answered with tool calls (click) and no text: farm offers the model no "
                "tools and reads the reply's text (is the server's automatic tool choice on?)"),
    (completion([{"index": 0, "finish_reason": "content_filter",
                  "message": {"role": "assistant", "content": None}}]),
     "answered nothing: its content filter stopped the reply (finish_reason content_filter)"),
], ids=["empty choices", "tool calls, content null", "content filter"])
def test_a_reply_without_text_says_what_came_instead(page, model_server, reply, said):
    """Each was "its reply could not be parsed twice: the reply was empty", after a second
    request that got the same."""
    from farm.errors import ModelUnavailable
    srv = model_server([reply])
    with pytest.raises(ModelUnavailable) as info:
        agent_for(page, srv).ai_act("press Add one")
    assert str(info.value) == f"model openai/scripted at {srv.base_url} {said}"
    assert len(srv.requests) == 1 and qty(page) == "0"


# ---- what already behaves well (kept so) ------------------------------------------------------
@pytest.fixture
def cut_mid_body():
    """An endpoint that answers 200 with a Content-Length and closes half-way through the
    body; its base URL."""
    with shared_cut_mid_body({"choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": DONE_XML}}], "id": "x", "object": "chat.completion",
            "created": 1, "model": "m"}) as url:
        yield url


def test_a_connection_closed_mid_body_is_retried_then_named(page, cut_mid_body):
    from farm.errors import ModelUnavailable
    from farm.metrics import REGISTRY
    unpriced = {"family": "gpt", "tokens": "unknown"}
    before = REGISTRY.get_sample_value("farm_model_unpriced_requests_total", unpriced) or 0
    client = LiteLLMClient("openai/scripted", base_url=cut_mid_body, retries=1, backoff=0.01)
    with pytest.raises(ModelUnavailable) as info:
        Agent(page, ModelSet.single(client)).ai_act("press Add one")
    # each answer came (200) and may be billed: its cost is not known, and the metric says so
    assert REGISTRY.get_sample_value("farm_model_unpriced_requests_total", unpriced) == before + 2
    assert str(info.value).startswith(
        f"model openai/scripted at {cut_mid_body} unavailable after 2 attempts: the connection "
        "failed: peer closed connection without sending complete message body"), info.value


FENCED = "```xml\n" + TAP + "\n```"
JSON_REPLY = '{"action": "Tap", "locate": "Add one"}'


def tap_box(box: str) -> str:
    return ('<action-type>Tap</action-type><action-param-json>{"locate": {"prompt": "Add one",'
            f' "bbox": {box}}}}}</action-param-json>')


@pytest.mark.parametrize("first, count, feedback", [
    (FENCED, "1", None),
    (tap_box("[5000, 5000, 5100, 5100]"), "0", "is outside the 1280×800 screen"),
    (tap_box("[-50, -50, -10, -10]"), "0", "is outside the 1280×800 screen"),
    (tap_box("[NaN, 1, 2, 3]"), "0", "coordinates are not finite: [nan, 1.0, 2.0, 3.0]"),
], ids=["code fence", "off screen", "negative", "NaN"])
def test_odd_answers_are_read_or_fed_back_never_tapped_blind(page, model_server, first, count,
                                                            feedback):
    srv = model_server([first, DONE_XML])
    agent_for(page, srv).ai_act("press Add one")
    assert qty(page) == count and len(srv.requests) == 2
    if feedback:
        assert f"bad bbox for \"Add one\"" in srv.texts(1) and feedback in srv.texts(1)


def test_json_where_xml_is_expected_is_asked_again_then_a_model_error(page, model_server):
    from farm.errors import ModelUnavailable
    srv = model_server([JSON_REPLY])
    with pytest.raises(ModelUnavailable, match="could not be parsed twice: .*" + re.escape(
            repr(JSON_REPLY))):
        agent_for(page, srv).ai_act("press Add one")
    assert len(srv.requests) == 2 and "could not be read" in srv.texts(1)


def test_the_same_action_on_an_unchanged_screen_is_nudged_then_stuck(model_server, browser,
                                                                     tmp_path):
    from farm.errors import StepFailed
    from farm.suite.model import WebTarget
    (tmp_path / "still.html").write_text("<button style='font-size:32px'>Add one</button>")
    browser.start_session(WebTarget(url=(tmp_path / "still.html").as_uri()))
    try:
        srv = model_server([TAP])
        with pytest.raises(StepFailed, match=r'^agent stuck: Tap repeated 5 times on "Add one"'):
            agent_for(browser, srv).ai_act("press Add one")
        # (the first tap may change the screen: the pointer now hovers the button)
        asked = len(srv.requests)
        assert asked in (5, 6) and "You repeated Tap" in srv.texts(asked - 2)
    finally:
        browser.end_session()
