"""A model endpoint that takes the connection and closes it without an answer (a base URL
pointing at a port that is not HTTP, a proxy dropping the request) is named with what
happened, as a refused connection is: it said "InternalServerError: OpenAIException -
Connection error." (a server error, with no endpoint and no reason). Real litellm over HTTP
against a socket server in a thread."""

from __future__ import annotations

import socket
import threading

import pytest

from farm.errors import ModelUnavailable
from farm.llm.litellm_client import LiteLLMClient
from tests.support.model_server import Reply, serve


@pytest.fixture
def hangs_up():
    """A port that reads each request and closes the connection without a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.shutdown(socket.SHUT_RDWR)
    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()


def test_a_connection_closed_without_an_answer_names_the_endpoint_and_why(hangs_up):
    client = LiteLLMClient("openai/x", base_url=hangs_up, retries=1, backoff=0.01)
    with pytest.raises(ModelUnavailable) as err:
        client.complete([{"role": "user", "content": "hi"}])
    assert str(err.value) == (
        f"model openai/x at {hangs_up} unavailable after 2 attempts: the connection failed: "
        "Server disconnected without sending a response.")
    assert err.value.usage.retries == 1           # type: ignore[attr-defined]


def test_a_request_refused_with_404_names_the_endpoint_it_went_to(server):
    """A base URL missing its /v1 (vLLM, a proxy) answers 404: the error names the URL the
    request went to, as a timeout or a refused connection does, where it said only
    'NotFoundError: OpenAIException - Error code: 404'."""
    srv = serve(server, [Reply(status=404)])
    url = srv.base_url.removesuffix("/v1")
    client = LiteLLMClient("openai/x", base_url=url, retries=2)
    with pytest.raises(ModelUnavailable) as err:
        client.complete([{"role": "user", "content": "hi"}])
    assert str(err.value).startswith(f"model openai/x at {url} refused the request: "
                                     "NotFoundError: ")
    assert len(srv.requests) == 1                 # not retried: it would answer the same
