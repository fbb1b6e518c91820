"""A reply that does not say what it cost is not free: an endpoint that sends no ``usage``
(some OpenAI-compatible servers and proxies) leaves the cost unknown in results.json and the
report, with one warning in farm.log per model, not "$0.0000" as if the calls had cost nothing.
Real litellm over HTTP against the scripted model server (a thread), a model litellm's cost map
prices (openai/gpt-4o), a FakeDevice and `run_case`."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.models import ModelSet
from farm.report.html import _usage_text
from farm.results import ArtifactStore, CaseResult, RunSummary
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.run_console import summary_line
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import Reply, serve

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])
DONE = '<thought>signed in</thought><complete success="true">done</complete>'
NO_USAGE = Reply(raw=json.dumps({
    "id": "c0", "object": "chat.completion", "created": 1, "model": "gpt-4o",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": DONE}}]}).encode())


def run(client: object, tmp_path: Path) -> CaseResult:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="sign in")])])
    services = Services(settings=Settings(cache="off"), artifacts=ArtifactStore(tmp_path),
                        run_id="r1", env={}, model=ModelSet.single(client))
    return run_case(Job(case.id, "web", 1), case, FakeDevice(SCREEN), services)


def gpt_4o(base_url: str) -> object:
    from farm.llm.litellm_client import LiteLLMClient
    return LiteLLMClient("openai/gpt-4o", base_url=base_url, api_key="sk-test-0000000000")


def test_a_reply_without_usage_has_its_tokens_and_cost_estimated_not_free(server, tmp_path,
                                                                         caplog):
    """Counted as 0 they let a model budget spend without limit: estimated with litellm's
    token counter from the request and the reply, priced as the model is, said so."""
    srv = serve(server, [NO_USAGE])
    client = gpt_4o(srv.base_url)
    caplog.set_level(logging.WARNING, logger="farm.llm")
    first, second = run(client, tmp_path / "1"), run(client, tmp_path / "2")
    for res in (first, second):
        assert res.status == "passed", res.error
        assert res.usage.calls == 1 and res.usage.tokens_estimated
        assert res.usage.prompt_tokens > 765 and res.usage.cost_usd > 0   # the image counted
        assert json.loads(res.model_dump_json())["usage"]["tokens_estimated"] is True
        assert " tokens (partly estimated), $0.0" in _usage_text(res.usage)   # the report's
    summary = RunSummary(run_id="r1", started="", duration=1.0, cases=[first, second])
    summary.recount()
    assert " tokens (partly estimated), $0.0" in summary_line(summary)
    warned = [r.getMessage() for r in caplog.records if "no token usage" in r.getMessage()]
    assert warned == ["model openai/gpt-4o sent no token usage with its reply: farm estimates "
                      "its calls' tokens from the request and the reply (litellm's token "
                      "counter; shown as partly estimated), and a model budget counts the "
                      "estimates"]


def test_a_reply_with_usage_keeps_its_price(server, tmp_path):
    srv = serve(server, [DONE])
    res = run(gpt_4o(srv.base_url), tmp_path)
    assert res.status == "passed", res.error
    assert res.usage.prompt_tokens > 0 and res.usage.cost_usd > 0
    assert not res.usage.cost_unknown and not res.usage.tokens_unknown
    assert "tokens unknown" not in _usage_text(res.usage)
