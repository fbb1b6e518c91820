"""What an ai step says of itself when it fails, and what its model is sent: real litellm over
HTTP against the scripted model server (tests/support/model_server.py), a FakeDevice and
`run_case`.

* a failed or errored ai step keeps its rounds and every action it tried, each with its error;
* a locate miss says the model's answer once;
* a long readable reply is sent back in later rounds with its thought cut, its action whole;
* an endpoint nothing listens on is not sent again by later calls once its retries are spent.
"""

from __future__ import annotations

import json
from pathlib import Path

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.agent_scripts import DONE_XML, SIGN_IN_SCREEN, xml
from tests.support.model_server import message_texts, serve

UNICORN = "the purple unicorn button"
NOT_THERE = "there is no purple unicorn on this page"


def run(tmp_path: Path, base_url: str, case_id: str = "s/t") -> CaseResult:
    from farm.llm.litellm_client import LiteLLMClient
    case = Case(id=case_id, name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="sign in")])])
    client = LiteLLMClient("openai/gpt-4o", base_url=base_url)
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, model=ModelSet.single(client))
    dev = FakeDevice(screens={"a": SIGN_IN_SCREEN}, start="a")
    return run_case(Job(case.id, "web", 1), case, dev, services)


def unicorn(body: dict, index: int) -> str:
    if "Find the element" in " ".join(message_texts(body)):
        return json.dumps({"bbox": [], "error": NOT_THERE})
    return xml("Tap", {"locate": {"prompt": UNICORN}})


def test_a_failed_ai_step_keeps_its_rounds_and_each_action_with_its_error_agt49(
        tmp_path, server):
    from farm.report.html import _agent_summary
    srv = serve(server, unicorn)
    result = run(tmp_path, srv.base_url)
    step = result.steps[0]
    assert result.status == "failed" and step.status == "failed"
    assert isinstance(step.output, dict), step.output
    assert step.output["rounds"] == 6
    assert len(step.output["steps"]) == 6
    assert all(s.startswith(f'Tap "{UNICORN}" — failed: ') and NOT_THERE in s
               for s in step.output["steps"])
    row = _agent_summary(step.output)
    assert "6 round(s)" in row and "failed: no element matches" in row


def test_an_errored_ai_step_keeps_the_actions_it_could_not_run_agt49(tmp_path, server):
    srv = serve(server, [xml("Frobnicate", {})])
    result = run(tmp_path, srv.base_url)
    step = result.steps[0]
    assert result.status == "error" and result.error.kind == "ModelUnavailable"
    assert isinstance(step.output, dict), step.output
    assert step.output["rounds"] == 6
    assert step.output["steps"][0].startswith("Frobnicate — not run: unknown action")


def test_a_missed_target_says_the_models_answer_once_agt49(tmp_path, server):
    srv = serve(server, unicorn)
    result = run(tmp_path, srv.base_url)
    assert result.error.message.count(NOT_THERE) == 1, result.error.message
    assert result.steps[0].output["steps"][0].count(NOT_THERE) == 1


def test_a_long_reply_goes_back_with_its_thought_cut_and_its_action_whole_agt49(
        tmp_path, server):
    tap = xml("Tap", {"locate": {"prompt": "Sign in"}})
    long = tap.replace("<thought>next</thought>", "<thought>" + "ponder " * 60_000
                       + "</thought>")
    srv = serve(server, lambda body, i: long if i == 0 else DONE_XML)
    result = run(tmp_path, srv.base_url)
    assert result.status == "passed", result.error
    first, second = len(srv.raw[0]), len(srv.raw[1])
    assert second < first + 20_000, (first, second)     # not the 400 KB thought again
    sent = [m for m in srv.requests[1]["messages"] if m["role"] == "assistant"][0]["content"]
    assert sent.endswith(tap.split("</thought>", 1)[1])      # the action part whole
    assert "characters of the thought cut]" in sent
    assert result.steps[0].output["steps"][0].startswith('Tap "Sign in"')


def test_an_endpoint_nothing_listens_on_is_not_sent_again_by_later_cases_agt49(tmp_path):
    from farm.llm.litellm_client import LiteLLMClient
    import socket
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()                           # nothing listens there now: refused
    client = LiteLLMClient("openai/gpt-4o", base_url=f"http://127.0.0.1:{port}/v1",
                           retries=2, backoff=0.01)
    from farm.errors import ModelUnavailable
    errors = []
    for _ in range(3):
        try:
            client.complete([{"role": "user", "content": "hi"}])
        except ModelUnavailable as exc:
            errors.append(exc)
    assert [e.usage.calls + e.usage.retries for e in errors] == [3, 0, 0]
    assert "Connection refused" in str(errors[0])
    assert "not sent again after the first failed connection" in str(errors[1])


def test_an_endpoint_that_answers_503_is_sent_again_by_the_next_call_agt49(server):
    from farm.errors import ModelUnavailable
    from farm.llm.litellm_client import LiteLLMClient
    from tests.support.model_server import Reply
    srv = serve(server, [Reply(status=503)])
    client = LiteLLMClient("openai/gpt-4o", base_url=srv.base_url, retries=1, backoff=0.01)
    for _ in range(2):
        try:
            client.complete([{"role": "user", "content": "hi"}])
        except ModelUnavailable:
            pass
    assert len(srv.requests) == 4          # (a 5xx can pass: each call tries again)


def test_a_cached_plan_the_app_broke_says_so_in_a_step_note_agt49(tmp_path, server):
    from farm.cache.store import MemoryStore
    from farm.devices.base import Rect, UINode, UITree
    from farm.llm.litellm_client import LiteLLMClient
    from tests.support.agent_scripts import steps_done
    label = {"now": "Sign in"}

    def script(body: dict, index: int) -> str:
        if "Find the element" in " ".join(message_texts(body)):
            return json.dumps({"bbox": [], "error": "not on this page"})
        if steps_done(body) == 0:
            return xml("Tap", {"locate": {"prompt": label["now"]}})
        return DONE_XML

    srv = serve(server, script)
    store = MemoryStore()

    def night() -> CaseResult:
        screen = UITree(source="dom", page_text="Welcome", nodes=[
            UINode(id=0, role="button", text=label["now"], clickable=True,
                   rect=Rect(x=10, y=10, width=100, height=30))])
        case = Case(id="s/replan", name="c", file=Path("/tmp/c.yaml"),
                    suite_root=Path("/tmp"), platform="web",
                    web=WebTarget(url="http://127.0.0.1:1/"),
                    tasks=[Task(name="t", steps=[Step(kind="ai", value="sign in")])])
        services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                            artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                            model=ModelSet.single(LiteLLMClient("openai/gpt-4o",
                                                                base_url=srv.base_url)))
        return run_case(Job(case.id, "web", 1), case,
                        FakeDevice(screens={"a": screen}, start="a"), services)

    first = night()
    assert first.status == "passed" and not first.steps[0].notes
    label["now"] = "Log in"                  # the app renamed its button overnight
    again = night()
    assert again.status == "passed", again.error
    assert again.steps[0].cache.plan == "replanned"
    [note] = again.steps[0].notes
    assert note.startswith('the cached plan failed at its step 1 of 1 (Locate "Sign in" failed')
    assert note.endswith("and was planned again")
    assert "planned again" in (again.reason or "")
