"""A step's own time bounds its waits for the model, and a request's time bounds the request.

`aiWaitFor: … timeout: 3000` whose model answered slowly ran until the model answered (8 s, and
then passed): its model call was given the case's time, not the step's. And httpx's timeout
bounds each read of a reply, not the request: an endpoint that drips its answer kept a request
of 2 s going for 15 s; abandoned, it kept its thread and connection until the endpoint stopped
sending. Real litellm over HTTP against scripted servers (threads), a FakeDevice and
`run_case`."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from farm import metrics
from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.llm import request_watch
from farm.llm.client import DeadlineReached, ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from farm.usage import Usage
from tests.support.farm_cli import wait_for
from tests.support.model_server import NEVER_ANSWERS, serve

CART = UITree(source="dom", page_text="Cart (0)", nodes=[])
MSGS = [{"role": "user", "content": "hi"}]
NOT_YET = '{"pass": false, "thought": "the badge still says Cart (0)"}'


def run(steps: list[Step], model: object, tmp_path: Path, timeout: float = 60.0) -> CaseResult:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], timeout=timeout)
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={}, model=model)
    return run_case(Job(case.id, "web", 1), case, FakeDevice(CART), services)


def litellm_client(base_url: str, **kw: Any) -> Any:
    from farm.llm.litellm_client import LiteLLMClient
    return LiteLLMClient("openai/scripted", base_url=base_url, **kw)


# ---- aiWaitFor's timeout ---------------------------------------------------------------------
def test_each_check_of_ai_wait_for_is_given_the_steps_time_not_the_cases(tmp_path):
    client = ScriptedModelClient([NOT_YET])
    step = Step(kind="aiWaitFor", value="the cart holds a mug", timeout_ms=3000,
                options={"checkIntervalMs": 1000})
    res = run([step], ModelSet.single(client), tmp_path, timeout=60)
    assert res.status == "failed", res.error
    assert client.timeouts and all(t is not None and t <= 3 for t in client.timeouts)


def test_a_model_that_gives_no_verdict_within_the_step_timeout_is_the_models_error(
        tmp_path, server):
    srv = serve(server, [NEVER_ANSWERS])
    step = Step(kind="aiWaitFor", value="the cart is empty", timeout_ms=1000)
    res = run([step], ModelSet.single(litellm_client(srv.base_url, timeout=50)), tmp_path)
    assert res.status == "error" and res.error.kind == "ModelUnavailable", res.error
    assert res.error.message == (f'aiWaitFor "the cart is empty": timed out after 1s waiting for '
                                 f"the model openai/scripted at {srv.base_url} (no verdict "
                                 "within the step's timeout)")
    assert len(srv.requests) == 1          # no retry past the step's end
    usage = res.steps[0].usage
    assert usage is not None and usage.calls == 1 and usage.tokens_unknown


def test_a_check_cut_short_after_a_no_keeps_the_models_reason(tmp_path):
    """The model had said no; the next check's wait ran out: the condition did not hold
    in time (the app's failure), with the reason the model gave."""
    def script(messages: list[dict[str, Any]], index: int) -> str:
        if index:     # a request was out when the step's time ran out: it counts a call
            late = DeadlineReached("model scripted gave no answer in the time left")
            late.usage = Usage(calls=1, latency_s=2.5, tokens_unknown=True)  # type: ignore
            raise late
        return NOT_YET
    client = ScriptedModelClient(script)
    step = Step(kind="aiWaitFor", value="the cart holds a mug", timeout_ms=5000,
                options={"checkIntervalMs": 10})
    res = run([step], ModelSet.single(client), tmp_path)
    assert res.status == "failed" and res.error.kind == "AssertionFailed", res.error
    assert res.error.message == ('aiWaitFor "the cart holds a mug" not true within 5s: the badge '
                                 "still says Cart (0) (the time ran out while the model "
                                 "scripted judged again, 2.5s after it was asked)")


def test_the_case_running_out_first_is_still_a_case_timeout(tmp_path, server):
    srv = serve(server, [NEVER_ANSWERS])
    step = Step(kind="aiWaitFor", value="the cart is empty", timeout_ms=30_000)
    res = run([step], ModelSet.single(litellm_client(srv.base_url, timeout=50)), tmp_path,
              timeout=1.5)
    assert res.status == "error" and res.error.kind == "CaseTimeout", res.error
    assert res.error.message == (f"case timed out after 1.5s: waiting for the model "
                                 f"openai/scripted at {srv.base_url}")


# ---- a reply that drips ----------------------------------------------------------------------
class DrippingServer:
    """An OpenAI-compatible endpoint that sends its answer's headers at once, then one space
    (JSON allows them before the body) every 50 ms until ``finish`` is set (at most 10 s),
    then the body (none once stopped). ``hung_up`` is set when farm closed the connection
    while it dripped."""

    def __init__(self) -> None:
        self.finish = threading.Event()
        self.abort = threading.Event()   # stopped: no body (no late reply in a later test)
        self.hung_up = threading.Event()
        body = json.dumps({
            "id": "c", "object": "chat.completion", "created": 1, "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "late"}}],
            "usage": {"prompt_tokens": 1234, "completion_tokens": 5, "total_tokens": 1239}})
        finish, abort, hung_up = self.finish, self.abort, self.hung_up

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()      # no length: the body ends when the connection closes
                try:
                    for _ in range(200):
                        if finish.wait(0.05):
                            break
                        self.wfile.write(b" ")
                        self.wfile.flush()
                    if not abort.is_set():
                        self.wfile.write(body.encode())
                except (BrokenPipeError, ConnectionResetError):
                    hung_up.set()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.abort.set()
        self.finish.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def dripping() -> Iterator[DrippingServer]:
    srv = DrippingServer()
    yield srv
    srv.stop()


def model_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "model openai/scripted"}


def late_prompt_tokens() -> float:
    return metrics.REGISTRY.get_sample_value(
        "farm_model_tokens_total", {"family": "gpt", "kind": "prompt"}) or 0.0


def test_a_reply_that_drips_is_abandoned_at_the_calls_end_and_its_late_spend_counted(
        dripping):
    client = litellm_client(dripping.base_url, timeout=50, retries=0)
    before = late_prompt_tokens()
    with pytest.raises(DeadlineReached, match="gave no answer in the time left") as raised:
        client.complete(MSGS, timeout=1)
    spent = raised.value.usage      # type: ignore[attr-defined]
    assert spent.calls == 1 and spent.tokens_unknown and spent.cost_unknown
    dripping.finish.set()           # the answer comes after all: its tokens still count
    wait_for(lambda: late_prompt_tokens() >= before + 1234, 30, "the late reply's tokens")
    assert not dripping.hung_up.is_set()


def test_a_reply_that_drips_on_past_its_late_time_has_its_connection_closed(
        dripping, tmp_path, monkeypatch):
    """The abandoned request went on in its thread, connection open, for as long as the
    endpoint dripped (10 s here; a stuck proxy: until the run ended); past the time it has to
    still answer for its spend (LATE_ANSWER_S, 60 s, made short here) it is hung up."""
    monkeypatch.setattr(request_watch, "LATE_ANSWER_S", 0.5)
    before = model_threads()
    step = Step(kind="aiWaitFor", value="the cart is empty", timeout_ms=1000)
    res = run([step], ModelSet.single(litellm_client(dripping.base_url, timeout=50)),
              tmp_path)
    assert res.status == "error" and res.error.kind == "ModelUnavailable", res.error
    usage = res.steps[0].usage
    assert usage is not None and usage.calls == 1 and usage.tokens_unknown
    wait_for(dripping.hung_up.is_set, 30, "the endpoint seeing farm hang up")
    wait_for(lambda: not model_threads() - before, 30, "the request's thread ending")
    assert not dripping.finish.is_set()          # (the endpoint had not stopped dripping)


def test_an_answer_that_comes_after_the_wait_is_handed_on_for_its_spend():
    """A request farm cannot hang up (litellm's own HTTP client, for other providers) still
    ends by itself: its answer goes to ``late`` (its tokens and cost are counted there)."""
    from farm.llm.request_watch import Abandoned, send
    release, late = threading.Event(), []

    def slow() -> str:
        release.wait(30)
        return "the answer"
    with pytest.raises(Abandoned, match="model m: no answer in the time it had"):
        send(slow, None, time.monotonic() + 0.2, late.append, "model m")
    release.set()
    wait_for(lambda: late, 30, "the late answer")
    assert late == ["the answer"]


def test_a_request_that_drips_past_the_model_timeout_is_retried_then_unavailable(dripping):
    client = litellm_client(dripping.base_url, timeout=0.5, retries=1, backoff=0.01)
    with pytest.raises(Exception) as raised:
        client.complete(MSGS, timeout=30)
    assert type(raised.value).__name__ == "ModelUnavailable"
    assert str(raised.value) == (f"model openai/scripted at {dripping.base_url} did not answer "
                                 "within 0.5 s (FARM_MODEL_TIMEOUT) in 2 attempts")


# ---- aiWaitFor's last check ------------------------------------------------------------------
def test_ai_wait_for_checks_once_more_before_its_timeout_when_the_interval_would_pass_it(
        tmp_path):
    """timeout: 8000 with checkIntervalMs: 3000 checked at 0, 3 and 6 s and failed there,
    saying "not true within 8s": a condition true from 7 s on was never seen. The last check
    now comes as late as one fits."""
    client = ScriptedModelClient([NOT_YET, '{"pass": true, "thought": "a mug"}'])
    step = Step(kind="aiWaitFor", value="the cart holds a mug", timeout_ms=1000,
                options={"checkIntervalMs": 60_000})
    res = run([step], ModelSet.single(client), tmp_path)
    assert res.status == "passed", res.error
    assert client.calls == 2


def test_a_condition_never_true_fails_after_the_last_check(tmp_path):
    client = ScriptedModelClient([NOT_YET])
    step = Step(kind="aiWaitFor", value="the cart holds a mug", timeout_ms=300,
                options={"checkIntervalMs": 60_000})
    res = run([step], ModelSet.single(client), tmp_path)
    assert res.status == "failed" and res.error.kind == "AssertionFailed", res.error
    assert res.error.message == ('aiWaitFor "the cart holds a mug" not true within 0.3s: the '
                                 "badge still says Cart (0)")
    assert client.calls >= 2          # (it looked once, at the start, and failed there)


def test_a_model_timeout_under_a_tenth_of_a_second_is_written_as_set(server):
    """FARM_MODEL_TIMEOUT=0.04 said "did not answer within 0 s (FARM_MODEL_TIMEOUT)"."""
    srv = serve(server, [NEVER_ANSWERS])
    client = litellm_client(srv.base_url, timeout=0.04, retries=0)
    with pytest.raises(Exception) as raised:
        client.complete(MSGS, timeout=30)
    assert str(raised.value) == (f"model openai/scripted at {srv.base_url} did not answer "
                                 "within 0.04 s (FARM_MODEL_TIMEOUT)")


def test_a_step_timeout_ending_with_the_case_is_a_case_timeout(tmp_path):
    """The step's end before the case's (timeout: 1000, the case's 3 s): a wait for the
    model that ran past both is the case's timeout, not "device stopped answering"."""
    def script(messages: list[dict[str, Any]], index: int) -> str:
        # the case began before this call, so its 3 s are over 3 s after it (a case end
        # taken before run() came first when a busy machine took 0.1 s to start the case:
        # the model then "answered" in the case's time). And 3 s, not 1.2: a busy machine
        # took over 1.2 s to reach the step, the case's first screenshot then timed it out
        case_over = time.monotonic() + 3
        wait_for(lambda: time.monotonic() > case_over, 30, "the case's end", step=0.02)
        raise DeadlineReached("model scripted gave no answer in the time left")
    step = Step(kind="aiWaitFor", value="the cart holds a mug", timeout_ms=1000)
    res = run([step], ModelSet.single(ScriptedModelClient(script)), tmp_path, timeout=3)
    assert res.status == "error" and res.error.kind == "CaseTimeout", res.error
    assert res.error.message == "case timed out after 3s: waiting for the model scripted"
