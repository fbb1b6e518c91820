"""The ai loop in real Chromium on a page whose changes are small (a counter digit, letters
typed into a field), driven by the scripted model server: a working action is never reported
as missed, and a plan that repeats a working action is not failed as stuck."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.agent.loop import LoopLimits
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from tests.support.agent_scripts import DONE_XML, xml

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Counter</title></head>
<body>
<h1>Quantity picker</h1>
<p>Quantity: <span id="qty">0</span></p>
<button id="plus" onclick="var q = document.getElementById('qty');
  q.textContent = String(Number(q.textContent) + 1)">Add one</button>
<p><label for="user">Username</label> <input id="user" placeholder="Username"></p>
</body></html>
"""
MISSED = ("did not change", "You repeated")


@pytest.fixture
def page_target(tmp_path):
    from farm.suite.model import WebTarget
    (tmp_path / "counter.html").write_text(PAGE, encoding="utf-8")
    return WebTarget(url=(tmp_path / "counter.html").as_uri())


def agent_for(device, srv) -> Agent:
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, backoff=0.05)
    return Agent(device, ModelSet.single(client), limits=LoopLimits())


def test_tapping_add_one_five_times_reaches_five_and_is_not_stuck(page, model_server):
    tap = xml("Tap", {"locate": {"prompt": "Add one"}})
    srv = model_server(lambda body, index: tap if index < 5 else DONE_XML)
    agent = agent_for(page, srv)
    out = agent.ai_act('press "Add one" five times so the quantity is 5')
    assert len(out["steps"]) == 5 and all(s.startswith('Tap "Add one"') for s in out["steps"])
    assert "Quantity: 5" in page.hierarchy().visible_text()
    assert len(srv.requests) == 6
    assert not [i for i in range(6) for words in MISSED if words in srv.texts(i)]


def test_typing_into_a_field_is_not_reported_as_missed(page, model_server):
    typed = xml("Input", {"value": "demo", "locate": {"prompt": "Username"}})
    srv = model_server([typed, DONE_XML])
    agent_for(page, srv).ai_act("type demo into the Username field")
    assert page.run_script("return document.getElementById('user').value", 5) == "demo"
    assert "Steps done so far" in srv.texts(1)
    assert not [words for words in MISSED if words in srv.texts(1)]
