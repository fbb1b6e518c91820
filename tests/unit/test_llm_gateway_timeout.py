"""A gateway that gives up on the model (nginx, a cloud load balancer in front of vLLM)
answers 504 Gateway Timeout; litellm raises its Timeout for it, as for a 408, and the error
said "it answered 408 Request Timeout": an SRE looked for 408s in the gateway's log and found
none. The status the endpoint answered is the one named. Real litellm over HTTP against the
scripted model server."""

from __future__ import annotations

import pytest

from farm.errors import ModelUnavailable
from farm.llm.client import DeadlineReached
from farm.llm.litellm_client import LiteLLMClient
from tests.support.model_server import Reply, serve

MSGS = [{"role": "user", "content": "hi"}]


def test_an_answered_504_is_named_as_a_504_and_retried(server):
    srv = serve(server, [Reply(status=504)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=1, backoff=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MSGS, timeout=30)
    assert not isinstance(info.value, DeadlineReached)      # it answered: not the time left
    assert str(info.value) == (f"model openai/scripted at {srv.base_url} unavailable after 2 "
                               "attempts: it "
                               "answered 504 Gateway Timeout: scripted 504")
    assert len(srv.requests) == 2


def test_a_504_then_an_answer_is_one_call_and_one_retry(server):
    srv = serve(server, [Reply(status=504), "ok"])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=1, backoff=0)
    reply = client.complete(MSGS)
    assert reply.text == "ok" and (reply.usage.calls, reply.usage.retries) == (1, 1)
