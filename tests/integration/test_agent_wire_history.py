"""What an ai_act's requests carry on the wire (litellm over HTTP to the scripted model server,
real Chromium): in round N, the newest screenshot only (two with deepThink), the older ones of
the round window replaced by a text placeholder inside their own message, the roles still
taking turns (system, then user / assistant ... ending with the user); an unreadable reply is
asked again once, in a request that adds the reply and the parse error, and it never enters
the history the later rounds are sent."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.agent.history import IMAGE_PLACEHOLDER
from farm.agent.loop import LoopLimits
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from tests.support.agent_scripts import DONE_XML, xml

pytestmark = pytest.mark.integration

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Counter</title></head>
<body><h1>Quantity picker</h1>
<p style="font-size:48px">Quantity: <span id="qty">0</span></p>
<button id="plus" onclick="var q = document.getElementById('qty');
  q.textContent = String(Number(q.textContent) + 1)">Add one</button>
</body></html>
"""
TAP = xml("Tap", {"locate": {"prompt": "Add one"}})
GARBAGE = "I think I should press the button now."


@pytest.fixture
def page_target(tmp_path):
    from farm.suite.model import WebTarget
    (tmp_path / "counter.html").write_text(PAGE, encoding="utf-8")
    return WebTarget(url=(tmp_path / "counter.html").as_uri())


def agent_for(device, srv) -> Agent:
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, backoff=0.05)
    return Agent(device, ModelSet.single(client), limits=LoopLimits())


def roles(body: dict) -> list[str]:
    return [m["role"] for m in body["messages"]]


def placeholders(body: dict) -> int:
    return sum(1 for m in body["messages"] if isinstance(m["content"], list)
               for p in m["content"] if p.get("text") == IMAGE_PLACEHOLDER)


def images_by_message(body: dict) -> list[int]:
    """How many images each message carries."""
    return [sum(1 for p in m["content"] if p.get("type") == "image_url")
            if isinstance(m["content"], list) else 0 for m in body["messages"]]


def taking_turns(body: dict) -> bool:
    rest = roles(body)[1:]
    return roles(body)[0] == "system" and rest[-1] == "user" and all(
        r == ("user" if i % 2 == 0 else "assistant") for i, r in enumerate(rest))


def test_round_six_sends_one_screenshot_and_placeholders_in_turn(page, model_server):
    srv = model_server(lambda body, i: TAP if i < 5 else DONE_XML)
    out = agent_for(page, srv).ai_act('press "Add one" five times')
    assert len(out["steps"]) == 5 and len(srv.requests) == 6
    last = srv.requests[5]
    assert all(taking_turns(r) for r in srv.requests)
    # system + 3 earlier rounds + the new prompt; the image rides in the newest message only
    assert images_by_message(last) == [0, 0, 0, 0, 0, 0, 0, 1] and placeholders(last) == 3
    assert [placeholders(r) for r in srv.requests] == [0, 1, 2, 3, 3, 3]
    sent = [srv.images(i)[0] for i in range(6)]
    assert len(set(sent)) == 6                  # each round the screen as it is then


def test_deep_think_round_six_sends_the_two_newest_screenshots(page, model_server):
    srv = model_server(lambda body, i: TAP if i < 5 else DONE_XML)
    agent_for(page, srv).ai_act('press "Add one" five times', deep_think=True)
    last = srv.requests[5]
    assert taking_turns(last)
    assert images_by_message(last) == [0, 0, 0, 0, 0, 1, 0, 1] and placeholders(last) == 2
    assert srv.images(5) == [srv.images(4)[-1], srv.images(5)[-1]]


def test_an_unreadable_reply_is_asked_again_once_and_left_out_of_the_history(
        page, model_server):
    script = [TAP, GARBAGE, TAP, DONE_XML]
    srv = model_server(lambda body, i: script[min(i, 3)])
    out = agent_for(page, srv).ai_act('press "Add one" twice')
    assert len(out["steps"]) == 2 and len(srv.requests) == 4
    asked, again = srv.requests[1], srv.requests[2]
    assert again["messages"][:-2] == asked["messages"]
    assert roles(again)[-2:] == ["assistant", "user"] and taking_turns(again)
    assert GARBAGE in again["messages"][-2]["content"]
    assert "could not be read" in again["messages"][-1]["content"]
    assert images_by_message(again).count(1) == 1
    # round 3 is sent the readable reply only, in turn
    after = srv.requests[3]
    assert taking_turns(after) and GARBAGE not in str(after["messages"])
    assert "could not be read" not in str(after["messages"])
