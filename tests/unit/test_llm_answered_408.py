"""An endpoint that answers 408 Request Timeout (a gateway's own limit) answered: litellm
raises its Timeout for it as for a request that got no answer, and farm took it as one. With
less time left of the case than FARM_MODEL_TIMEOUT the call was "no answer in the time left"
(the case then timed out, at once, with most of its time left); otherwise "did not answer
within 60 s" of an answer that came at once. Real litellm over HTTP against the scripted
model server."""

from __future__ import annotations

import pytest

from farm.errors import CaseTimeout, ModelUnavailable
from farm.llm.client import DeadlineReached
from farm.llm.litellm_client import LiteLLMClient
from tests.support.model_server import Reply, serve

MSGS = [{"role": "user", "content": "hi"}]


def test_an_answered_408_with_time_left_is_the_model_s_error_not_a_timeout(server):
    srv = serve(server, [Reply(status=408)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, timeout=60, retries=1,
                           backoff=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MSGS, timeout=30)      # a case with 30 s left
    assert not isinstance(info.value, (DeadlineReached, CaseTimeout))
    assert str(info.value) == (f"model openai/scripted at {srv.base_url} unavailable after 2 "
                               "attempts: it "
                               "answered 408 Request Timeout: scripted 408")
    assert len(srv.requests) == 2
    assert info.value.usage.tokens_unknown is False     # an error answer: nothing billed


def test_an_answered_408_is_retried_like_a_5xx(server):
    srv = serve(server, [Reply(status=408), "ok"])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=1, backoff=0)
    reply = client.complete(MSGS)
    assert reply.text == "ok" and reply.usage.retries == 1


def test_a_request_with_no_answer_is_still_a_timeout(server):
    srv = serve(server, [Reply(delay=3)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, timeout=1, retries=0)
    with pytest.raises(ModelUnavailable, match=r"did not answer within 1 s "
                                               r"\(FARM_MODEL_TIMEOUT\)$"):
        client.complete(MSGS)
