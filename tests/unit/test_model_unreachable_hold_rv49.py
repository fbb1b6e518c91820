"""A model server that refused connections through its retries (restarting) is not sent to for
UNREACHABLE_HOLD_S; after that one fresh try is made: lifted if it connects, held again if not."""

from __future__ import annotations

import pytest

from farm.errors import ModelUnavailable
from farm.llm import litellm_client
from farm.llm.litellm_client import UNREACHABLE_HOLD_S, LiteLLMClient
from tests.support.model_server import ModelServer

HI = [{"role": "user", "content": "hi"}]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _call(client: LiteLLMClient):
    try:
        return client.complete(HI)
    except ModelUnavailable as exc:
        return exc


def test_a_restarted_model_server_is_used_again_after_the_hold_rv49():
    first = ModelServer(["one"]).start()
    port = first.port
    client = LiteLLMClient("openai/scripted", base_url=first.base_url, retries=2, backoff=0.01)
    client.clock = clock = Clock()
    assert client.complete(HI).text == "one"
    first.stop()                                   # restarting: nothing listens there
    refused = _call(client)
    assert isinstance(refused, ModelUnavailable) and "Connection refused" in str(refused)
    assert refused.usage.calls + refused.usage.retries == 3
    clock.now += UNREACHABLE_HOLD_S - 1            # within the hold: not sent
    held = _call(client)
    assert isinstance(held, ModelUnavailable)
    assert "not sent again after the first failed connection" in str(held)
    assert held.usage.calls + held.usage.retries == 0
    clock.now += 1                                 # the hold is over; still down: one try
    again = _call(client)
    assert isinstance(again, ModelUnavailable) and "still unavailable" in str(again)
    assert again.usage.retries == 0
    assert "not sent again" in str(_call(client))  # held again
    second = ModelServer(["two"], port=port).start()   # back, on the same port
    try:
        assert "not sent again" in str(_call(client))  # (still within the new hold)
        clock.now += UNREACHABLE_HOLD_S
        assert client.complete(HI).text == "two"       # the fresh try connects: lifted
        assert client.unreachable is None
        assert client.complete(HI).text == "two"
        assert len(second.requests) == 2
    finally:
        second.stop()


def test_the_hold_is_a_named_constant_of_about_half_a_minute_rv49():
    assert litellm_client.UNREACHABLE_HOLD_S == pytest.approx(30.0)
