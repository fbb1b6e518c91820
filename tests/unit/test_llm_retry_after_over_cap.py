"""A 429 / 503 whose Retry-After asks for more than the case has left ends the call at once,
also when what it asks is over the 60 s farm waits at most (RETRY_AFTER_CAP_S): a provider's
spent quota (`Retry-After: 3600`) in a 300 s case was waited 60 s, retried (refused again, as
announced), waited 60 s more..., every case of the run spending two minutes on requests the
endpoint had said it would refuse. With no time limit, the wait is capped and retried as
before. Real litellm over HTTP against the scripted model server."""

from __future__ import annotations

import logging
import re
import time
from email.utils import formatdate

import pytest

from farm.errors import ModelUnavailable
from farm.llm import litellm_client
from farm.llm.client import DeadlineReached
from tests.support.model_server import Reply, serve

MSGS = [{"role": "user", "content": "hi"}]
CAP_S = 0.2     # the cap, made short: what it asked for is over it, the time left too


def client(base_url: str) -> litellm_client.LiteLLMClient:
    return litellm_client.LiteLLMClient("openai/scripted", base_url=base_url, retries=2,
                                        backoff=0.01)


@pytest.fixture(autouse=True)
def short_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(litellm_client, "RETRY_AFTER_CAP_S", CAP_S)


@pytest.mark.parametrize("status, retry_after", [(429, "60"), (503, "60"), (429, "date")],
                         ids=["429 seconds", "503 seconds", "429 HTTP date"])
def test_a_retry_after_over_the_cap_and_the_time_left_ends_the_call_at_once(
        server, status, retry_after):
    value = formatdate(time.time() + 60, usegmt=True) if retry_after == "date" else "60"
    srv = serve(server, [Reply(status=status, headers={"Retry-After": value}), "unused"])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url).complete(MSGS, timeout=10)      # a case with 10 s left
    assert len(srv.requests) == 1                 # no retry the endpoint said it would refuse
    assert not isinstance(raised.value, DeadlineReached)     # the endpoint's answer, not time
    state = "rate-limited" if status == 429 else "unavailable"
    said = re.fullmatch(rf"model openai/scripted at {re.escape(srv.base_url)} is {state} "
                        rf"\({status}\): Retry-After ([\d.]+) s is more than the ([\d.]+) s left",
                        str(raised.value))
    # (a date is read when the answer comes: what is left of the 60 s it named)
    assert said and 10 < float(said.group(1)) <= 60 and float(said.group(2)) <= 10, \
        str(raised.value)


def test_with_no_time_limit_a_long_retry_after_is_waited_at_most_the_cap(server, caplog):
    srv = serve(server, [Reply(status=429, headers={"Retry-After": "30"}), "ok"])
    caplog.set_level(logging.INFO, logger="farm.llm")
    reply = client(srv.base_url).complete(MSGS)
    assert reply.text == "ok" and len(srv.requests) == 2
    assert (f"retry 1 in {CAP_S:.1f}s (the endpoint asked for 30 s in Retry-After, capped at "
            f"{CAP_S:g} s)") in caplog.text, caplog.text
