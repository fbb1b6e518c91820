"""Model spend farm cannot count, made visible: a real `farm run` (Chromium, the demo shop, two
scripted model servers) whose metrics.prom counts the model requests whose cost is unknown
(farm_model_unpriced_requests_total{family,tokens}) beside the cost that counted them as $0.

The planner is gpt-4o (litellm prices it): one reply has no usage, one request times out and
its retry is answered; the judge (FARM_ASSERT_MODEL) is a model litellm cannot price."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.agent_scripts import DONE_XML
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import NEVER_ANSWERS, ModelServer, Reply, message_texts

pytestmark = pytest.mark.integration

WEB = """\
web:
  url: ${SHOP_URL}/index.html
tasks:
  - name: look
    flow:
"""
CASES = {
    "priced": WEB + "      - ai: say the page is there\n",
    "no_usage": WEB + "      - ai: say it without usage\n",
    "slow": WEB + "      - ai: say it slowly\n",
    "judged": WEB + "      - aiAssert: the shop is shown\n",
}


def no_usage_reply(text: str) -> Reply:
    """A 200 whose body says nothing of its tokens (some self-hosted servers)."""
    return Reply(raw=json.dumps({
        "id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}]}).encode())


def planner():
    slow_seen = []

    def script(body: dict, index: int):
        everything = "\n".join(message_texts(body))
        if "without usage" in everything:
            return no_usage_reply(DONE_XML)
        if "slowly" in everything and not slow_seen:
            slow_seen.append(index)
            return NEVER_ANSWERS            # held: the client gives up (FARM_MODEL_TIMEOUT)
        return DONE_XML
    return script


def samples(path: Path, name: str) -> dict[tuple, float]:
    return {tuple(sorted(s.labels.items())): s.value
            for f in text_string_to_metric_families(path.read_text()) for s in f.samples
            if s.name == name}


@pytest.fixture(scope="module")
def run(tmp_path_factory, demo_app):
    """One run of the four cases on one browser; its results and metrics.prom."""
    tmp = tmp_path_factory.mktemp("unpriced")
    suite = tmp / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("timeout: 120\nretries: 0\n")
    for name, text in CASES.items():
        (suite / f"{name}.yaml").write_text(text)
    farm = FarmCli(tmp)
    with ModelServer(planner()) as plan_srv, ModelServer(
            ['{"pass": true, "thought": "the shop is there"}']) as judge_srv:
        done = farm.run("run", suite, "--devices", "browser:1", "--no-progress",
                        "--report-dir", tmp / "run", "--model", "openai/gpt-4o",
                        "--model-base-url", plan_srv.base_url, FARM_MODEL_TIMEOUT="2",
                        FARM_MODEL_API_KEY="sk-test-0000",
                        FARM_ASSERT_MODEL="openai/judge-vlm",
                        FARM_ASSERT_MODEL_BASE_URL=judge_srv.base_url, SHOP_URL=demo_app)
        farm.close()
    return done, results(tmp / "run"), tmp / "run" / "metrics.prom", plan_srv, judge_srv


def test_requests_of_unknown_cost_are_counted_beside_the_cost(run):
    """The cost counter says $ for the priced replies only; beside it, 3 requests of unknown
    cost: the reply without usage and the timed-out request (tokens unknown), the judge's
    (tokens counted). The timed-out request's answered retry and the priced replies are not
    among them."""
    done, summary, prom, plan_srv, judge_srv = run
    assert done.returncode == 0, done.stdout + done.stderr
    cases = by_name(summary)
    assert {n: c["status"] for n, c in cases.items()} == dict.fromkeys(cases, "passed")
    assert len(cases) == 4
    unpriced = samples(prom, "farm_model_unpriced_requests_total")
    assert unpriced == {(("family", "gpt"), ("tokens", "unknown")): 2.0,
                        (("family", "gpt"), ("tokens", "counted")): 1.0}, unpriced
    requests = samples(prom, "farm_model_requests_total")
    assert requests[(("family", "gpt"), ("outcome", "timeout"))] == 1.0
    assert sum(requests.values()) == len(plan_srv.requests) + len(judge_srv.requests) == 5
    # the cost the dashboard shows is what the priced replies said they cost: a lower bound;
    # results.json counts more, farm's estimates (the reply without usage, the timed-out
    # request's prompt), marked estimated
    cost = sum(samples(prom, "farm_model_cost_usd_total").values())
    priced = cases["priced"]["usage"]["cost_usd"]
    assert priced < cost < priced + cases["slow"]["usage"]["cost_usd"]
    assert cases["slow"]["usage"]["tokens_estimated"]
    assert cases["no_usage"]["usage"]["tokens_estimated"]
    assert not cases["priced"]["usage"]["tokens_estimated"]


def test_results_say_the_same_requests_cost_unknown(run):
    """The cases whose requests the counter counts are those results.json says cost partly
    unknown or unknown."""
    _, summary, _, _, _ = run
    unknown = {n for n, c in by_name(summary).items() if (c["usage"] or {}).get("cost_unknown")}
    # (the reply without usage is priced from farm's estimate of its tokens: estimated)
    assert unknown == {"slow", "judged"}
