"""The model client's backoff between re-sends doubles up to a ceiling (30 s, or
FARM_MODEL_BACKOFF when that is longer): uncapped, FARM_MODEL_RETRIES=10 waited 128 s and more
(a case ended early, "a retry ... would not fit in the time left"), and near 1,000 retries the
wait overflowed (OverflowError: an internal error). Real litellm over HTTP against the scripted
model server; the waits are recorded, not slept."""

from __future__ import annotations

import pytest

import farm.llm.litellm_client as litellm_client
from farm.llm.litellm_client import LiteLLMClient
from tests.support.model_server import Reply, serve

MSGS = [{"role": "user", "content": "hi"}]


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Each backoff the client chose, in order (none is waited out)."""
    chosen: list[float] = []
    monkeypatch.setattr(litellm_client, "_wait_unless_cancelled",
                        lambda seconds, cancel: chosen.append(seconds) or False)
    return chosen


def test_many_retries_wait_at_most_the_ceiling_and_fit_in_the_time_left(server, waits):
    srv = serve(server, [Reply(status=500)] * 9 + ["ok"])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=10, backoff=0.5)
    reply = client.complete(MSGS, timeout=120)
    assert reply.text == "ok" and len(srv.requests) == 10
    assert waits == [0.5, 1, 2, 4, 8, 16, 30, 30, 30]


def test_a_backoff_set_above_the_ceiling_is_waited_as_set(server, waits):
    srv = serve(server, [Reply(status=503)] * 3 + ["ok"])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=5, backoff=45)
    assert client.complete(MSGS).text == "ok"
    assert waits == [45, 45, 45]


def test_a_thousand_retries_do_not_overflow(server, waits, monkeypatch):
    srv = serve(server, ["ok"])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=5000, backoff=0.5)
    lib, send, failed = client._lib, client._lib.completion, []

    def down_1100_times(**request):
        """The endpoint's 500 (as litellm raises it), without 1,100 round trips."""
        if len(failed) < 1100:
            failed.append(request)
            raise lib.InternalServerError("500 down", llm_provider="openai", model="scripted")
        return send(**request)

    monkeypatch.setattr(lib, "completion", down_1100_times)
    assert client.complete(MSGS).text == "ok"
    assert len(waits) == 1100 and max(waits) == 30
