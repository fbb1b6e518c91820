"""Audit of a run's model spend (session 41): the numbers one run writes agree, and a reply
whose body never came whole is counted as unknown, not as a known 0.

* two devices at once under --max-model-tokens: results.json's cases, its `stopped`, the
  console's line and metrics.prom's farm_model_tokens_total / farm_model_cost_usd_total sum
  to the same spend;
* a 200 whose connection closes mid-body (the endpoint processed the request: billed) makes the
  call's tokens and cost unknown, told apart from a connection that failed before any answer
  by whether the reply's headers came (an HTTP response hook), not by the error's text.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Iterator

import pytest

from farm.errors import ModelUnavailable
from farm.llm.litellm_client import LiteLLMClient
from tests.support.agent_scripts import DONE_XML, by_progress, xml
from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import cut_mid_body as shared_cut_mid_body

PAGE = """<!doctype html><html><body>
<button onclick="document.getElementById('o').textContent = 'went'">Go</button>
<p id="o"></p></body></html>"""

CASE = """name: {name}
web:
  serve: .
  url: go.html
tasks:
  - name: t
    flow:
      - ai: press Go
      - assertText: went
"""

SCRIPT = by_progress([xml("Tap", {"locate": {"prompt": "Go"}}), DONE_XML])
MESSAGES = [{"role": "user", "content": "hi"}]


def _suite(folder: Path, cases: int) -> Path:
    folder.mkdir()
    (folder / "go.html").write_text(PAGE)
    for i in range(cases):
        (folder / f"case{i}.yaml").write_text(CASE.format(name=f"case {i}"))
    return folder


def _metric(prom: str, name: str) -> float:
    """The sum of every sample of ``name`` in a text exposition."""
    return sum(float(m.group(1)) for m in
               re.finditer(rf"^{name}(?:{{[^}}]*}})? (\S+)$", prom, re.MULTILINE))


def test_two_devices_under_a_token_budget_write_one_spend_everywhere(tmp_path, farm: FarmCli,
                                                                     model_server):
    srv = model_server(SCRIPT)
    out = tmp_path / "run"
    done = farm.run("run", _suite(tmp_path / "s", 6), "--devices", "browser:2", "--no-progress",
                    "--report-dir", out, "--model", "openai/gpt-4o",
                    "--model-base-url", srv.base_url, "--max-model-tokens", "1")
    said = done.stdout + done.stderr
    assert done.returncode == 3, said
    summary = results(out)
    ran = [c for c in summary["cases"] if (c["usage"] or {}).get("calls")]
    tokens = sum(c["usage"]["prompt_tokens"] + c["usage"]["completion_tokens"] for c in ran)
    cost = sum(c["usage"]["cost_usd"] for c in ran)
    # each device had at most its one case in flight when the first one ended
    assert 1 <= len(ran) <= 2 and sum(c["usage"]["calls"] for c in ran) == len(srv.requests)
    prom = (out / "metrics.prom").read_text()
    assert _metric(prom, "farm_model_tokens_total") == tokens, prom
    assert _metric(prom, "farm_model_cost_usd_total") == pytest.approx(cost, abs=1e-8), prom
    assert summary["stopped"].startswith(
        "the run's model budget (--max-model-tokens 1) was spent: "), summary["stopped"]
    spent = int(summary["stopped"].rsplit(": ", 1)[1].split()[0].replace(",", ""))
    assert tokens >= spent and spent > 0
    skipped = [c for c in summary["cases"] if c["status"] == "skipped"]
    assert len(skipped) == 6 - len(ran)
    assert all(c["reason"] == "not run: " + summary["stopped"] for c in skipped)
    assert f"farm: {summary['stopped']}: {len(skipped)} case(s) not run" in done.stdout, said
    assert f"{tokens:,} tokens" in said, said


@pytest.fixture
def cut_mid_body() -> Iterator[str]:
    """An endpoint that answers 200 with a Content-Length and closes half-way through the
    body (it did the work: a real endpoint bills it); its base URL."""
    with shared_cut_mid_body({"choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": DONE_XML}}], "id": "x", "object": "chat.completion",
            "created": 1, "model": "m", "usage": {"prompt_tokens": 900,
                                                "completion_tokens": 9}}) as url:
        yield url


def test_a_200_cut_mid_body_has_unknown_tokens_not_zero(cut_mid_body):
    client = LiteLLMClient("openai/gpt-4o", base_url=cut_mid_body, retries=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MESSAGES)
    usage = info.value.usage       # type: ignore[attr-defined]
    assert usage.calls == 1
    assert (usage.tokens_unknown, usage.cost_unknown) == (True, True), usage
    # its prompt was read: counted as estimated (gpt-4o is priced), its answer unknown
    assert usage.tokens_text().endswith(" tokens (partly estimated, partly unknown)"), usage
    assert usage.cost_text().endswith(" (partly estimated, partly unknown)"), usage


def test_a_connection_refused_before_any_answer_spent_nothing():
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    client = LiteLLMClient("openai/gpt-4o", base_url=f"http://127.0.0.1:{port}/v1", retries=0)
    with pytest.raises(ModelUnavailable) as info:
        client.complete(MESSAGES)
    usage = info.value.usage       # type: ignore[attr-defined]
    assert (usage.calls, usage.tokens_unknown, usage.cost_unknown) == (1, False, False), usage


def test_a_429_then_200_counts_one_call_and_the_200s_tokens(model_server):
    from tests.support.model_server import Reply
    srv = model_server([Reply(status=429), Reply(text=DONE_XML, prompt_tokens=500)])
    client = LiteLLMClient("openai/gpt-4o", base_url=srv.base_url, retries=1, backoff=0.01)
    usage = client.complete(MESSAGES).usage
    assert (usage.calls, usage.retries) == (1, 1) and len(srv.requests) == 2
    assert usage.prompt_tokens == 500 and not usage.tokens_unknown and not usage.cost_unknown
