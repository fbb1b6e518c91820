"""What a user reads when the model endpoint says no: no API key in any message or log line,
a refused key is not retried (neither the request nor the case), a 429 / 503's Retry-After is
honoured, a failed call keeps its usage, and a timeout names the endpoint and the setting.
Real litellm over HTTP against the scripted model server (a thread)."""

from __future__ import annotations

import json
import logging
import re
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from farm import errors
from farm.attempts import Outcome, RetryPolicy, classify, next_attempt, outcome
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import ModelRefused, ModelUnavailable
from farm.llm.client import DeadlineReached
from farm.llm.models import ModelSet, build_models
from farm.results import ArtifactStore, CaseError, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import NEVER_ANSWERS, Reply, serve

MSGS = [{"role": "user", "content": "hi"}]
KEYS = {"model_api_key": "sk-MAIN-SECRET-1234567890",
        "planning_model_api_key": "sk-PLAN-SECRET-0987654321",
        "assert_model_api_key": "sk-JUDGE-SECRET-1122334455"}
SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])




def client(base_url: str, **kw: object) -> object:
    from farm.llm.litellm_client import LiteLLMClient
    return LiteLLMClient("openai/scripted", base_url=base_url, **kw)


def echo(status: int, text: str) -> Reply:
    """An error reply quoting ``text`` (as OpenAI quotes a wrong key back)."""
    return Reply(status=status, raw=json.dumps({"error": {"message": text}}).encode())


def run(steps: list[Step], model: object, tmp_path: Path) -> CaseResult:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], timeout=30)
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={}, model=model)
    return run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services)


# ---- 1. no API key in what the client says ---------------------------------------------------
@pytest.mark.parametrize("status", [401, 500], ids=["refused", "retried then spent"])
@pytest.mark.parametrize("role", ["plan", "locate", "judge"])
def test_no_model_api_key_shows_in_any_message_or_log_line(server, caplog, role, status):
    """Every configured key (each tier's) is hidden from every client, also one cut in two
    by the message's length limit (an endpoint's password echoed, and a URL's user:password
    beside keys, which is refused: test_model_url_credentials_s46sec)."""
    everything = " ".join(KEYS.values())
    srv = serve(server, [echo(status, "Incorrect API key provided: " + everything
                              + " " + "".join(KEYS.values()) * 8)])
    url = srv.base_url
    settings = Settings(model="openai/main", model_base_url=url, planning_model="openai/plan",
                        assert_model="openai/judge", model_retries=1, model_backoff=0.01,
                        **KEYS)
    models = build_models(settings)
    caplog.set_level(logging.INFO, logger="farm.llm")
    with pytest.raises((ModelRefused, ModelUnavailable)) as raised:
        getattr(models, role).complete(MSGS)
    said = str(raised.value) + "\n" + caplog.text
    assert "Incorrect API key provided: ***" in said
    for secret in (*KEYS.values(), "sk-"):    # "sk-": no key cut in two
        assert secret not in said
    if status == 500:
        assert "retry 1" in caplog.text          # the log line was written, masked


def test_a_refused_key_reaches_the_results_masked(server, tmp_path):
    key = KEYS["model_api_key"]
    srv = serve(server, [echo(401, f"Incorrect API key provided: {key}")])
    res = run([Step(kind="ai", value="log in")],
              ModelSet.single(client(srv.base_url, api_key=key)), tmp_path)
    assert res.status == "error" and res.error.kind == "ModelRefused", res.error
    assert key not in res.model_dump_json()
    assert "Incorrect API key provided: ***" in res.error.message


# ---- 2. a refused key is not retried -----------------------------------------------------------
@pytest.mark.parametrize("status, name", [(401, "AuthenticationError"), (403, "Error")])
def test_a_refused_key_is_sent_once_and_names_the_setting(server, status, name):
    key = KEYS["model_api_key"]
    srv = serve(server, [echo(status, f"Incorrect API key provided: {key}")])
    with pytest.raises(ModelRefused) as raised:
        client(srv.base_url, api_key=key, retries=2, backoff=0.01).complete(MSGS)
    assert len(srv.requests) == 1
    message = str(raised.value)
    assert message.startswith(f"model openai/scripted refused the API key ({status} ")
    assert name in message and message.endswith(
        "Incorrect API key provided: ***): check FARM_MODEL_API_KEY")
    assert not isinstance(raised.value, ModelUnavailable)


def test_a_refused_key_is_not_sent_again_by_the_next_cases(server, tmp_path):
    """A night of 200 cases with a revoked key: one 401, not 200 (a provider may lock out a
    key that keeps knocking); every case still says why it did not run."""
    srv = serve(server, [echo(401, "Incorrect API key provided")])
    models = ModelSet.single(client(srv.base_url, api_key=KEYS["model_api_key"]))
    results = [run([Step(kind="ai", value="log in")], models, tmp_path / str(i))
               for i in range(3)]
    assert len(srv.requests) == 1
    assert [r.error.kind for r in results] == ["ModelRefused"] * 3
    assert results[2].error.message.endswith("check FARM_MODEL_API_KEY (not sent again after "
                                             "the first refusal)")


def test_a_refused_key_names_the_setting_of_its_model(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    srv = serve(server, [Reply(status=401)])
    settings = Settings(model="openai/main", model_base_url=srv.base_url,
                        planning_model="openai/plan", assert_model="openai/judge",
                        model_api_key=KEYS["model_api_key"],
                        assert_model_api_key=KEYS["assert_model_api_key"])
    models = build_models(settings)
    for role, setting in (("judge", "check FARM_ASSERT_MODEL_API_KEY"),
                          ("plan", "check FARM_PLANNING_MODEL_API_KEY or FARM_MODEL_API_KEY")):
        with pytest.raises(ModelRefused, match=setting):
            getattr(models, role).complete(MSGS)
    with pytest.raises(ModelRefused, match="refused the request without an API key .*: set "
                                           "FARM_MODEL_API_KEY"):
        client(srv.base_url).complete(MSGS)


def test_a_key_only_in_the_providers_variable_is_sent_to_a_base_url_and_named(server,
                                                                             monkeypatch):
    """FARM_MODEL_BASE_URL (a proxy) and the key in OPENAI_API_KEY, as litellm users set it:
    the endpoint gets that key (not farm's placeholder for key-less servers), and a refusal
    says which variable to check."""
    key = "sk-ENV-ONLY-1234567890"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    srv = serve(server, [echo(401, f"Incorrect API key provided: {key}")])
    with pytest.raises(ModelRefused) as raised:
        client(srv.base_url).complete(MSGS)
    assert srv.headers[0].get("authorization") == f"Bearer {key}"
    assert str(raised.value).endswith("Incorrect API key provided: ***): check OPENAI_API_KEY")


def test_a_refused_key_is_an_error_that_is_not_run_again():
    refused = ModelRefused("model openai/x refused the API key (401 ...)")
    assert classify(refused) == ("error", Outcome.REFUSED)
    result = CaseResult(run_id="r", case_id="c", name="c", file="c.yaml", platform="web",
                        status="error", error=CaseError(kind="ModelRefused", message="m"))
    assert outcome(result) is Outcome.REFUSED
    assert next_attempt(Job("c", "web", 1), Outcome.REFUSED, "d1", RetryPolicy()) is None
    assert isinstance(refused, errors.InfraError)     # still an infrastructure error: exit 3


# ---- 3. Retry-After ------------------------------------------------------------------------------
@pytest.mark.parametrize("status, retry_after", [(429, "1"), (503, "1"), (429, "date")],
                         ids=["429 seconds", "503 seconds", "429 HTTP date"])
def test_a_retry_waits_what_retry_after_asked_for(server, caplog, status, retry_after):
    def script(body: dict, index: int) -> Reply | str:
        # the date is the answer's (2-3 s ahead then: whole seconds), not the test's start:
        # a busy machine took 2 s from there to the 429, and the wait read under 1 s
        value = formatdate(time.time() + 3, usegmt=True) if retry_after == "date" \
            else retry_after
        return Reply(status=status, headers={"Retry-After": value}) if index == 0 else "ok"
    srv = serve(server, script)
    caplog.set_level(logging.INFO, logger="farm.llm")
    reply = client(srv.base_url, retries=2, backoff=0.01).complete(MSGS)
    assert reply.text == "ok" and len(srv.requests) == 2
    # the wait it chose, and why: what Retry-After asked for, not the 0.01 s backoff
    waited = re.search(r"retry 1 in ([\d.]+)s \(the endpoint asked for ([\d.]+) s in "
                       r"Retry-After\)", caplog.text)
    assert waited and float(waited.group(1)) == float(waited.group(2)), caplog.text
    assert float(waited.group(1)) >= 0.5, caplog.text


def test_a_retry_after_past_the_time_left_is_not_waited_for(server):
    """The endpoint's own answer is why the call cannot go on (the time has not run out):
    a model error that says what it asked for and how much time was left."""
    srv = serve(server, [Reply(status=429, headers={"Retry-After": "3600"}), "ok"])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url, retries=2, backoff=0.01).complete(MSGS, timeout=5)
    assert len(srv.requests) == 1
    assert not isinstance(raised.value, DeadlineReached)
    said = re.fullmatch(rf"model openai/scripted at {re.escape(srv.base_url)} is rate-limited "
                        r"\(429\): Retry-After 3600 s is more than the ([\d.]+) s left",
                        str(raised.value))
    # what was left of the 5 s (a busy machine took over 1 s to send the request)
    assert said and 0 < float(said.group(1)) <= 5, str(raised.value)


def test_retry_after_values():
    from farm.llm.litellm_client import _wait
    assert _wait("4") == 4 and _wait(" 1.5 ") == 1.5 and _wait("-3") == 0
    assert _wait("soon") is None and _wait("nan") is None and _wait(None) is None
    assert _wait("Wed, 21 Oct 2015 07:28:00 GMT") == 0          # in the past: go now
    assert 0 < _wait(formatdate(time.time() + 60, usegmt=True)) <= 60   # a date to come


# ---- 4. a failed call keeps its usage ------------------------------------------------------------
@pytest.mark.parametrize("script, kind, retries", [
    ([Reply(status=500)], ModelUnavailable, 2),
    ([Reply(status=429)], ModelUnavailable, 2),
    ([Reply(status=401)], ModelRefused, 0),
], ids=["500", "429", "401"])
def test_a_failed_call_carries_its_usage(server, script, kind, retries):
    srv = serve(server, script)
    with pytest.raises(kind) as raised:
        client(srv.base_url, retries=2, backoff=0.01).complete(MSGS)
    usage = raised.value.usage
    assert (usage.calls, usage.retries) == (1, retries) and usage.latency_s > 0
    assert len(srv.requests) == retries + 1


def test_a_step_whose_model_calls_all_failed_shows_them_in_its_usage(server, tmp_path):
    """Three requests refused with 500: results.json says so (1 call, 2 retries), not null."""
    srv = serve(server, [Reply(status=500)])
    res = run([Step(kind="ai", value="log in")],
              ModelSet.single(client(srv.base_url, retries=2, backoff=0.01)), tmp_path)
    assert res.status == "error" and res.error.kind == "ModelUnavailable"
    assert (res.steps[0].usage.calls, res.steps[0].usage.retries) == (1, 2)
    assert (res.usage.calls, res.usage.retries) == (1, 2)


def test_a_call_cut_off_by_the_deadline_carries_its_usage(server):
    srv = serve(server, [Reply(status=500)])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url, retries=5, backoff=1.0).complete(MSGS, timeout=1.2)
    usage = raised.value.usage
    assert usage.calls == 1
    # every request the server saw but the first was a retry; one the deadline cut off may
    # not have reached it (sent, not yet read by the server on a loaded machine): then it is
    # a retry and a timeout the usage counts
    unseen = usage.retries - (len(srv.requests) - 1)
    assert unseen == 0 or (unseen == 1 and usage.timeouts == 1), (usage, len(srv.requests))


# ---- 5. a timeout names the endpoint and the setting ---------------------------------------------
def test_a_timeout_names_the_endpoint_masked_and_the_limit(server):
    srv = serve(server, [NEVER_ANSWERS])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url, timeout=1, retries=0).complete(MSGS)
    assert str(raised.value) == (f"model openai/scripted at {srv.base_url} did not answer "
                                 "within 1 s (FARM_MODEL_TIMEOUT)")
    url = srv.base_url.replace("http://", "http://user:pw-SECRET-99@")
    with pytest.raises(ModelUnavailable) as raised:
        client(url, timeout=0.5, retries=1, backoff=0.01).complete(MSGS)
    masked = srv.base_url.replace("http://", "http://user:***@")
    assert str(raised.value) == (f"model openai/scripted at {masked} did not answer "
                                 "within 0.5 s (FARM_MODEL_TIMEOUT) in 2 attempts")
