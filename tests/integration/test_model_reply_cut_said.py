"""A model whose replies the endpoint cuts at its token limit (finish_reason "length": a
reasoning model spending its budget thinking) wrote half a plan twice, and the step said only
"its reply could not be parsed twice: ..." as if the model could not follow the grammar; the
limit was in farm.log alone. The step's error now says the reply was cut. Real litellm over
HTTP to the scripted model server; the screen is an in-memory fake."""

from __future__ import annotations

import json

import pytest

from farm.agent.api import Agent
from farm.errors import ModelUnavailable
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from tests.support.model_server import Reply
from tests.unit.test_agent_loop import shop

pytestmark = pytest.mark.integration

CUT_SAID = "its last reply was cut at the model's token limit, finish_reason length"


def reply(text: str, finish: str) -> Reply:
    return Reply(raw=json.dumps({
        "id": "x", "object": "chat.completion", "created": 1, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 64, "total_tokens": 74}}).encode())


def agent_on(model_server, replies: list[Reply]) -> Agent:
    srv = model_server(replies)
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=0)
    return Agent(shop(), ModelSet.single(client))


@pytest.mark.parametrize("ask", ["ai_act", "ai_assert"])
def test_a_reply_cut_at_the_token_limit_is_named_in_the_step_error(model_server, ask):
    half = '<thought>The Sign in button is at the bottom of the form, so the next step is'
    agent = agent_on(model_server, [reply(half, "length")] * 2)
    with pytest.raises(ModelUnavailable, match="could not be parsed twice") as info:
        getattr(agent, ask)("sign in")
    assert CUT_SAID in str(info.value)


def test_an_unreadable_reply_that_was_not_cut_says_nothing_of_a_limit(model_server):
    agent = agent_on(model_server, [reply("I would rather not.", "stop")] * 2)
    with pytest.raises(ModelUnavailable, match="could not be parsed twice") as info:
        agent.ai_act("sign in")
    assert "token limit" not in str(info.value)
