"""What a model may cost a case: time (the case timeout covers every wait for the model, the
message names the model) and size (a reply over FARM_MODEL_MAX_REPLY_BYTES is refused unread),
and an unreadable reply is the model's error, not the app's. Real litellm over HTTP against the
scripted model server (a thread), a FakeDevice and `run_case`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from farm.config import Settings, load_settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import ConfigError, ModelUnavailable
from farm.llm.capped_http import CappedTransport, ReplyTooLarge
from farm.llm.client import RequestBudget, ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import NEVER_ANSWERS, ModelServer, Reply, serve

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])
MSGS = [{"role": "user", "content": "hi"}]


def run(steps: list[Step], model: object, tmp_path: Path, timeout: float = 30.0) -> CaseResult:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], timeout=timeout)
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={}, model=model)
    return run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services)


def litellm_client(srv: ModelServer, **kw: object) -> object:
    from farm.llm.litellm_client import LiteLLMClient
    return LiteLLMClient("openai/scripted", base_url=srv.base_url, **kw)




# ---- time ------------------------------------------------------------------------------------
def test_a_request_waits_only_what_is_left_and_no_retry_starts_past_the_end():
    budget = RequestBudget(per_request=60, total=10, now=100)
    assert budget.request_timeout(100) == 10 and budget.request_timeout(108) == 2
    assert budget.allows_retry(105, 4.5) and not budget.allows_retry(105, 5)
    assert budget.spent(110) and not budget.spent(109.9)
    unlimited = RequestBudget(per_request=60, total=None, now=100)
    assert unlimited.request_timeout(10_000) == 60 and unlimited.allows_retry(10_000, 1e6)


def test_each_model_call_is_given_the_time_left_of_the_case(tmp_path):
    client = ScriptedModelClient(['<complete success="true">ok</complete>'])
    res = run([Step(kind="ai", value="look")], ModelSet.single(client), tmp_path, timeout=30)
    assert res.status == "passed", res.error
    assert client.timeouts and all(t is not None and 0 < t <= 30 for t in client.timeouts)


def test_a_model_that_never_answers_ends_the_case_as_a_timeout_naming_the_model(
        tmp_path, server):
    srv = serve(server, [NEVER_ANSWERS])
    client = litellm_client(srv, timeout=20, retries=2, backoff=0.5)
    res = run([Step(kind="ai", value="log in")], ModelSet.single(client), tmp_path, timeout=1.5)
    assert res.status == "error" and res.error.kind == "CaseTimeout", res.error
    assert res.error.message == (f"case timed out after 1.5s: waiting for the model "
                                 f"openai/scripted at {srv.base_url}")
    assert len(srv.requests) == 1          # no retry started after the case's end
    assert res.steps[0].status == "error"


def test_retries_stop_at_the_deadline_not_after_them(server):
    """A retry whose backoff would end past the call's time is not waited for: the call ends
    at once saying so. (The first request's time is the machine's: litellm's first call on a
    loaded one took more than a second, so the budget leaves it half a minute.)"""
    srv = serve(server, [Reply(status=500)])
    client = litellm_client(srv, timeout=20, retries=5, backoff=40.0)
    with pytest.raises(ModelUnavailable, match=r"scripted 500\) and a retry in 40 s "
                                               r"\(exponential backoff\) would not fit in the "
                                               r"[\d.]+ s left"):
        client.complete(MSGS, timeout=30)
    assert len(srv.requests) == 1


def test_a_retry_after_longer_than_the_case_has_left_says_so(tmp_path, server):
    """A 429 asking for 30 s in a case with 20 s: the case ends at once with the endpoint's
    answer (it had not run out of time: "case timed out … waiting for the model" was wrong)."""
    srv = serve(server, [Reply(status=429, headers={"Retry-After": "30"}), "unused"])
    client = litellm_client(srv, timeout=20, retries=2, backoff=0.5)
    res = run([Step(kind="ai", value="log in")], ModelSet.single(client), tmp_path, timeout=20)
    assert res.status == "error" and res.error.kind == "ModelUnavailable", res.error
    said = re.fullmatch(rf"model openai/scripted at {re.escape(srv.base_url)} is rate-limited "
                        r"\(429\): Retry-After 30 s is more than the ([\d.]+) s left",
                        res.error.message)
    assert said and 0 < float(said.group(1)) <= 20, res.error.message
    assert len(srv.requests) == 1


# ---- size ------------------------------------------------------------------------------------
def mock(body: bytes | Iterator[bytes], headers: dict[str, str] | None = None
         ) -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: httpx.Response(200, headers=headers,
                                                              content=body))


def test_a_declared_length_over_the_cap_is_refused_before_reading():
    with httpx.Client(transport=CappedTransport(100, mock(b"x" * 101))) as http:
        with pytest.raises(ReplyTooLarge, match="over 100 bytes"):
            http.get("http://model/v1/chat/completions")
    with httpx.Client(transport=CappedTransport(100, mock(b"x" * 100))) as http:
        assert http.get("http://model/").content == b"x" * 100


def test_a_body_without_length_stops_being_read_at_the_cap():
    sent = []

    def endless() -> Iterator[bytes]:
        while True:
            sent.append(1000)
            yield b"x" * 1000

    with httpx.Client(transport=CappedTransport(10_000, mock(endless()))) as http:
        with pytest.raises(ReplyTooLarge):
            http.get("http://model/")
    assert sum(sent) <= 11_000           # one chunk past the cap, not the whole stream


@pytest.mark.parametrize("reply", [Reply(stream_bytes=20_000_000),
                                   Reply(text="<thought>" + "garbage " * 2_500_000)],
                         ids=["streamed, no length", "valid JSON, 20 MB of content"])
def test_a_huge_reply_is_a_model_error_naming_the_cap(tmp_path, server, reply):
    srv = serve(server, [reply])
    client = litellm_client(srv, retries=2, backoff=0.05)
    res = run([Step(kind="ai", value="log in")], ModelSet.single(client), tmp_path)
    assert res.status == "error" and res.error.kind == "ModelUnavailable", res.error
    assert "over 1000000 bytes" in res.error.message
    assert "FARM_MODEL_MAX_REPLY_BYTES" in res.error.message
    assert len(srv.requests) == 1          # neither re-sent nor sent back for a second parse


def test_the_cap_is_a_setting_and_reaches_the_clients(server):
    from farm.llm.models import build_models
    srv = serve(server, ["x" * 600])
    settings = Settings(model="openai/scripted", model_base_url=srv.base_url,
                        model_max_reply_bytes=500)
    client = build_models(settings).plan
    assert client.max_reply_bytes == 500
    with pytest.raises(ModelUnavailable, match="over 500 bytes"):
        client.complete(MSGS)
    with pytest.raises(ConfigError, match="model[-_]max[-_]reply[-_]bytes"):
        load_settings(model_max_reply_bytes=0)


# ---- unreadable replies ------------------------------------------------------------------------
GARBAGE = "I would probably click the button. " * 3000     # ~100 kB, no grammar at all


@pytest.mark.parametrize("step", [
    Step(kind="ai", value="sign in"),
    Step(kind="aiAssert", value="the user is signed in"),
    Step(kind="aiQuery", value="the user name"),
    Step(kind="aiTap", target="the avatar in the corner"),     # no zero-token match: AI locate
], ids=["plan", "assert", "query", "locate"])
def test_a_reply_unreadable_twice_is_a_model_error_not_a_test_failure(tmp_path, step):
    client = ScriptedModelClient([GARBAGE])
    res = run([step], ModelSet.single(client), tmp_path)
    assert res.status == "error" and res.error.kind == "ModelUnavailable", res.error
    assert "could not be parsed twice" in res.error.message
    assert client.calls == 2
    # the retry quotes the start of the bad reply, not all of it
    assert len(str(client.requests[1])) < len(str(client.requests[0])) + 5000


def test_a_model_endpoint_nobody_listens_on_is_named_with_the_os_reason():
    """Real litellm against a loopback port with nothing on it: the error a user reads names
    the endpoint and why, not litellm's "InternalServerError: litellm.InternalServerError:"."""
    from farm.llm.litellm_client import LiteLLMClient
    from tests.support.redis_server import free_port
    url = f"http://127.0.0.1:{free_port()}/v1"
    client = LiteLLMClient("openai/scripted", base_url=url, retries=1, backoff=0.01)
    with pytest.raises(ModelUnavailable) as raised:
        client.complete(MSGS)
    assert str(raised.value) == (f"model openai/scripted at {url} unavailable after 2 "
                                 "attempts: the connection failed: [Errno 111] Connection "
                                 "refused")
