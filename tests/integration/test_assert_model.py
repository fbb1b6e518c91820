"""FARM_ASSERT_MODEL in a real `farm run` (Chromium, the demo shop): the planning model and the
assertion model are two scripted servers, and their request logs show which got what.

The planner would pass any assertion it were asked to judge, so a judgement sent to the wrong
model turns a red case green; the judge reads only statements and says no to one of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from tests.support.agent_scripts import DONE_XML, xml
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer, message_texts

FARM_YAML = """\
timeout: 60
retries: 0
secrets: [DEMO_PASSWORD]
vars:
  DEMO_PASSWORD: farm-demo-pass
"""

WEB = """\
web:
  url: ${SHOP_URL}/index.html
  viewportWidth: 1280
  viewportHeight: 800
"""

CASES = {
    "judged": WEB + """\
name: the planner acts, the judge judges
tasks:
  - name: sign in
    flow:
      - aiInput: Username
        value: demo
      - aiInput: Password
        value: ${DEMO_PASSWORD}
      - ai: sign in
      - aiWaitFor: the welcome message is shown
        timeout: 30000
        checkIntervalMs: 50
      - aiAssert: the cart is empty
      - aiNumber: how many items the cart holds
        name: items
""",
    "refused": WEB + """\
name: the judge says no
tasks:
  - name: look
    flow:
      - aiAssert: the cart holds a mug
""",
    "custom": WEB + """\
name: the judge says no, the suite words the failure
tasks:
  - name: look
    flow:
      - aiAssert: the cart holds a mug
        errorMessage: no mug in the cart
""",
}

MUG_REASON = "the cart badge says Cart (0)"


def planner(body: dict, index: int) -> str:
    texts = message_texts(body)
    everything = "\n".join(texts)
    if "Task: sign in" in everything:
        return DONE_XML if "Steps done so far:" in texts[-1] else xml(
            "Tap", {"locate": {"prompt": "Sign in"}})
    if texts[0].startswith("Extract from the screenshot"):
        return '{"data": 0, "thought": "the badge says 0"}'
    # not the planner's job: if it were asked to judge, every assertion would pass
    return '{"pass": true, "thought": "the planner judged this"}'


def judge() -> Callable[[dict, int], str]:
    seen: dict[str, int] = {}

    def script(body: dict, index: int) -> str:
        first = message_texts(body)[0]
        if not first.startswith("Judge this statement"):
            return "I only judge statements"             # unreadable: a model error
        statement = first.split("Statement: ", 1)[1]
        seen[statement] = seen.get(statement, 0) + 1
        if statement == "the welcome message is shown":   # not yet on the first look
            verdict = seen[statement] > 1
            return json.dumps({"pass": verdict, "thought": "welcome" if verdict else "loading"})
        if statement == "the cart is empty":
            return '{"pass": true, "thought": "Cart (0)"}'
        return json.dumps({"pass": False, "thought": MUG_REASON})
    return script


def statements(server: ModelServer) -> list[str]:
    return [message_texts(b)[0].split("Statement: ", 1)[-1] for b in server.requests]


def test_assertions_go_to_the_assert_model_and_everything_else_to_the_planner(
        farm: FarmCli, tmp_path: Path, model_server, demo_app: str) -> None:
    plan_srv: ModelServer = model_server(planner)
    judge_srv: ModelServer = model_server(judge())
    suite = tmp_path / "judged"
    suite.mkdir()
    (suite / "farm.yaml").write_text(FARM_YAML)
    for name, text in CASES.items():
        (suite / f"{name}.yaml").write_text(text)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/planner-vlm",
                    "--model-base-url", plan_srv.base_url,
                    FARM_ASSERT_MODEL="openai/judge-vlm",
                    FARM_ASSERT_MODEL_BASE_URL=judge_srv.base_url, SHOP_URL=demo_app)
    cases = by_name(results(run_dir))
    assert done.returncode == 1, json.dumps(cases, indent=1)[:4000] + done.stderr

    # what the user sees: the judge's verdicts, in its own words or the suite's
    judged, refused, custom = cases["judged"], cases["refused"], cases["custom"]
    assert judged["status"] == "passed", json.dumps(judged, indent=1)[:3000]
    # the unnamed aiAssert's verdict under its number, as Midscene's player keeps it
    assert judged["data"] == {"0": {"pass": True, "thought": "Cart (0)"}, "items": 0}
    assert refused["status"] == "failed" and MUG_REASON in refused["error"]["message"]
    # errorMessage worded as Midscene words it: the suite's words, then the model's reason;
    # the verdict kept as Midscene's player keeps it ({pass, thought, message}), and junit
    # says the reason too
    said = f"Assertion failed: no mug in the cart\nReason: {MUG_REASON}"
    assert custom["status"] == "failed" and custom["error"]["message"] == said
    assert custom["data"] == {"0": {"pass": False, "thought": MUG_REASON, "message": said}}
    assert f"Reason: {MUG_REASON}" in (run_dir / "junit.xml").read_text()

    # the judge got every statement and nothing else; aiWaitFor asked it twice
    assert sorted(statements(judge_srv)) == sorted([
        "the welcome message is shown", "the welcome message is shown", "the cart is empty",
        "the cart holds a mug", "the cart holds a mug"])
    assert {b["model"] for b in judge_srv.requests} == {"judge-vlm"}
    wait = next(s for s in judged["steps"] if s["kind"] == "aiWaitFor")
    assert wait["usage"]["calls"] == 2

    # the planner planned and answered the query, and judged nothing
    asked = [message_texts(b)[0] for b in plan_srv.requests]
    assert not [a for a in asked if a.startswith("Judge this statement")]
    assert any(a.startswith("Extract from the screenshot: how many items") for a in asked)
    assert sum("Task: sign in" in " ".join(message_texts(b)) for b in plan_srv.requests) == 2
    assert {b["model"] for b in plan_srv.requests} == {"planner-vlm"}
