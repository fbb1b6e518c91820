"""A 200 whose body is no JSON (a proxy's error page, a body cut short) was reported in
litellm's words: "unavailable after 3 attempts: InternalServerError: OpenAIException - error -
Expecting value: …, Received response - <APIResponse [200 OK] type=<class 'openai.types…'>>,
Type of response - <class 'openai._legacy_response.LegacyAPIResponse'>", a server error the
endpoint never sent. It now says the answer was not JSON; one attempt is "1 attempt"; a 404
names what to check; what the endpoint said comes without litellm's names before it."""

from __future__ import annotations

import json
import warnings

import pytest

from farm.errors import ModelUnavailable
from farm.llm.litellm_client import LiteLLMClient
from tests.support.model_server import Reply, serve

MSGS = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("retries, attempts", [(0, "1 attempt"), (1, "2 attempts")])
def test_an_answer_that_is_not_json_is_said_so(server, retries, attempts):
    srv = serve(server, [Reply(raw=b'<html>502 Bad Gateway</html>')])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=retries,
                           backoff=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MSGS)
    said = str(info.value)
    assert said.startswith(f"model openai/scripted at {srv.base_url} unavailable after "
                           f"{attempts}: its answer "
                           "is not JSON (Expecting value: line 1 column 1 (char 0))"), said
    assert "InternalServerError" not in said and "APIResponse" not in said
    assert len(srv.requests) == retries + 1


def test_a_server_error_still_says_what_it_was(server):
    srv = serve(server, [Reply(status=500)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=0)
    with pytest.raises(ModelUnavailable, match="after 1 attempt: InternalServerError"):
        client.complete(MSGS)


def test_a_404_names_what_to_check(server):
    """A base URL without its /v1 (or a model name the server does not serve) said only
    "NotFoundError: OpenAIException - Error code: 404"."""
    srv = serve(server, [Reply(status=404, raw=b"404 page not found")])
    client = LiteLLMClient("openai/my-model", base_url=srv.base_url, retries=1)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MSGS)
    assert str(info.value).endswith(
        "Error code: 404 - 404 page not found (a 404: check the base URL's path, which for an OpenAI-compatible "
        "server usually ends in /v1, and the model name 'my-model')"), info.value
    assert len(srv.requests) == 1           # not retried: it would be refused again


def test_what_the_endpoint_said_is_not_buried_in_litellm_names(server):
    """A prompt over the model's context said "ContextWindowExceededError:
    litellm.BadRequestError: ContextWindowExceededError: OpenAIException - This model's …"."""
    said = "This model's maximum context length is 8192 tokens."
    srv = serve(server, [Reply(status=400, raw=json.dumps({"error": {
        "message": said, "code": "context_length_exceeded"}}).encode())])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MSGS)
    assert str(info.value) == (f"model openai/scripted at {srv.base_url} refused the request: "
                               f"ContextWindowExceededError: {said}")


def test_an_answer_litellm_cannot_read_says_why_not_traceback(server):
    """A completion whose content is a list of parts (litellm wants a string) said "unavailable
    after 1 attempt: InternalServerError: Invalid response object Traceback (most recent call
    last):", the first line of the traceback litellm put in its message."""
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": [{"type": "text", "text": "hello"}]}}]}
    srv = serve(server, [Reply(raw=json.dumps(body).encode())])
    with warnings.catch_warnings(record=True) as printed, pytest.raises(ModelUnavailable) as info:
        warnings.simplefilter("always")     # every warning shown (a run shows each once)
        client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=0)
        client.complete(MSGS)
    # nothing on stderr besides what farm says (pydantic's "serializer warnings" were)
    assert [str(w.message) for w in printed] == []
    said = str(info.value)
    assert said.startswith(f"model openai/scripted at {srv.base_url} unavailable after 1 "
                           "attempt: "
                           "InternalServerError: Invalid response object (ValidationError: "
                           "1 validation error for Message: content: Input should be a valid "
                           "string"), said
    assert "Traceback" not in said and "input_type=list" in said


@pytest.mark.parametrize("status, body, said", [
    (503, b'{"detail": "model is loading"}', "ServiceUnavailableError: Error code: 503 - "
                                              "model is loading"),
    (429, b'{"error": "rate limited, slow down"}', "RateLimitError: Error code: 429 - rate "
                                                   "limited, slow down"),
    (429, b"Too Many Requests", "RateLimitError: Error code: 429 - Too Many Requests"),
    (502, b"<html><h1>502 Bad Gateway</h1></html>", "BadGatewayError: Error code: 502"),
    (200, b'{"error": {"message": "upstream failed", "code": 502}}',
     "BadGatewayError (it said nothing more)"),
])
def test_an_error_answer_not_in_openai_s_shape_says_what_the_endpoint_said(
        server, status, body, said):
    """A server that is not OpenAI (vLLM loading its model, a FastAPI or a proxy's own
    answer) said "ServiceUnavailableError: Error code: 503" alone: what its body said was
    left out. An error inside a 200 left "OpenAIException -" dangling."""
    srv = serve(server, [Reply(status=status, raw=body)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MSGS)
    assert str(info.value) == (f"model openai/scripted at {srv.base_url} unavailable after 1 "
                               f"attempt: {said}")
