"""What a run's model spend says when the endpoint does not say it. Real `farm run`, real
Chromium, the scripted model server over HTTP.

- A request that timed out and was retried read "model: 1 call(s), tokens unknown" though
  the server got 2 requests (each perhaps billed); an answer that came after farm stopped
  waiting never reached farm.log nor farm_model_tokens_total (httpx's own timeout had closed
  the connection first).
- A model whose replies carry no `usage` ran every case past `--max-model-tokens 1`, and
  `--max-model-cost` over a model litellm cannot price ran everything too, with a warning."""

from __future__ import annotations

import json
import re

from tests.support.agent_scripts import DONE_XML, by_progress, xml
from tests.support.farm_cli import results
from tests.support.model_server import Reply, message_texts, request_images
from tests.integration.test_model_budget import SCRIPT, _run, _suite

TAP = xml("Tap", {"locate": {"prompt": "Go"}})


def test_a_timed_out_request_is_said_and_its_late_answer_counted(tmp_path, farm,
                                                                  model_server):
    def script(body: dict, index: int):
        # the first request answers 0.2 s after farm stopped waiting (1 s), before its retry
        return Reply(text=TAP, delay=1.2) if index == 0 else by_progress([TAP, DONE_XML])(
            body, index)
    srv = model_server(script)
    run_dir = tmp_path / "run"
    done = _run(farm, _suite(tmp_path / "s", cases=1), run_dir, srv, "openai/gpt-4o-mini",
                FARM_MODEL_TIMEOUT="1", FARM_MODEL_RETRIES="1", FARM_MODEL_BACKOFF="1")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    requests = len(srv.requests)
    summary = results(run_dir)
    calls = summary["usage"]["calls"]
    assert requests == calls + 1 and summary["usage"]["timeouts"] == 1, out
    assert re.search(rf"model: {calls} call\(s\) \({requests} requests: 1 retried, 1 timed "
                     r"out\), [\d,]+ tokens \(partly estimated, partly unknown\), "
                     r"\$0\.\d{4} \(partly estimated, partly unknown\)", done.stdout), out
    log = (run_dir / "farm.log").read_text()
    assert re.search(r"model openai/gpt-4o-mini answered after farm had stopped waiting: "
                     r"[\d,]+ tokens, \$0\.\d{4}", log), log
    # farm_model_tokens_total counts what every answer said it spent, the late one's too
    prom = (run_dir / "metrics.prom").read_text()
    counted = sum(float(v) for v in re.findall(
        r'^farm_model_tokens_total\{[^}]*kind="prompt"[^}]*\} (\S+)$', prom, re.M))
    said = sum(sum(len(t) for t in message_texts(b)) // 4 + 765 * len(request_images(b))
               for b in srv.requests)
    assert counted == said, prom


def _no_usage(body: dict, index: int) -> Reply:
    text = SCRIPT(body, index)
    return Reply(raw=json.dumps({
        "id": f"c{index}", "object": "chat.completion", "model": "x", "created": 1,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}]}).encode())


def test_a_token_budget_holds_when_replies_carry_no_usage(tmp_path, farm, model_server):
    srv = model_server(_no_usage)
    done = _run(farm, _suite(tmp_path / "s"), tmp_path / "run", srv, "openai/scripted-vlm",
                "--max-model-tokens", "1")
    out = done.stdout + done.stderr
    assert done.returncode == 3, out
    summary = results(tmp_path / "run")
    assert summary["counts"]["passed"] == 1 and summary["counts"]["skipped"] == 2, out
    spent = summary["usage"]
    tokens = spent["prompt_tokens"] + spent["completion_tokens"]
    assert spent["calls"] == len(srv.requests) == 2 and spent["tokens_estimated"], spent
    assert summary["stopped"] == ("the run's model budget (--max-model-tokens 1) was spent: "
                                  f"{tokens:,} tokens")
    assert f"model: 2 call(s), {tokens:,} tokens (partly estimated), cost unknown" in \
        done.stdout, out


def test_a_cost_budget_over_a_model_without_a_price_does_not_start(tmp_path, farm,
                                                                    model_server):
    srv = model_server(SCRIPT)
    suite = _suite(tmp_path / "s", cases=2)
    done = _run(farm, suite, tmp_path / "run", srv, "openai/scripted-vlm",
                "--max-model-cost", "0.01")
    assert done.returncode == 4, done.stdout + done.stderr
    assert ("--max-model-cost 0.01 cannot be enforced: litellm's cost map has no price for "
            "openai/scripted-vlm (--model), so its calls would count $0 and the run would "
            "spend without limit. Give a token budget as well (--max-model-tokens N, "
            "FARM_MAX_MODEL_TOKENS: it counts every call, and the cost budget then counts the "
            "priced calls), or leave out the cost budget") in done.stderr, done.stderr
    assert srv.requests == []
    # with a token budget beside it, the run goes on, saying what the cost budget counts
    both = _run(farm, suite, tmp_path / "run2", srv, "openai/scripted-vlm",
                "--max-model-cost", "0.01", "--max-model-tokens", "1000000")
    assert both.returncode == 0, both.stdout + both.stderr
    assert ("farm: warning: some model calls had no known price (litellm's cost map does not "
            "list the model): --max-model-cost counts the priced ones only; --max-model-tokens "
            "counts every call's tokens") in both.stdout, both.stdout
