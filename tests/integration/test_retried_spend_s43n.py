"""A retried case's model spend in results.json: the run's total (`usage`), each case's
every attempt (`usage`, as its `duration`) and its own attempt's (`attempt_usage`), as the
console and JUnit count it. results.json said `calls: 3` for a case the console counted
`6 call(s)` (the rest only under `previous[]`) and had no run total: summing `cases[].usage`
gave half the spend. Real `farm run`, real Chromium, the scripted model server over HTTP."""

from __future__ import annotations

import json

from tests.support.agent_scripts import xml
from tests.support.farm_cli import results

PAGE = "<!doctype html><html><body><button>Go</button><p id='o'></p></body></html>"
CASE = """name: goes
web:
  serve: .
  url: go.html
agent:
  replanningCycleLimit: 3
tasks:
  - name: t
    flow:
      - ai: press Go until the page says went
"""
TAP = xml("Tap", {"locate": {"prompt": "Go"}})     # never done: the round cap fails the step


def test_a_retried_cases_spend_is_every_attempts_in_results_json(tmp_path, farm,
                                                                  model_server):
    srv = model_server([TAP])
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "go.html").write_text(PAGE)
    (suite / "goes.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress", "--retries", "1",
                    "--report-dir", run_dir, "--model", "openai/gpt-4o-mini",
                    "--model-base-url", srv.base_url)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert len(srv.requests) == 6, out                   # 3 rounds, twice
    summary = results(run_dir)
    [case] = summary["cases"]
    assert "model: 6 call(s), " in done.stdout, out
    assert summary["usage"]["calls"] == 6                # the run's, as the console's
    assert case["usage"]["calls"] == 6                   # the case's: both attempts
    assert case["attempt_usage"]["calls"] == 3           # its last attempt's own
    assert case["previous"][0]["usage"]["calls"] == 3
    assert case["previous"][0]["attempt_usage"] is None
    both = case["usage"]["prompt_tokens"] + case["usage"]["completion_tokens"]
    own = case["attempt_usage"]["prompt_tokens"] + case["attempt_usage"]["completion_tokens"]
    assert f"model: 6 call(s), {both:,} tokens" in done.stdout, out
    assert sum(case["tokens"].values()) == both and sum(case["attempt_tokens"].values()) == own
    assert case["usage"]["cost_usd"] == summary["usage"]["cost_usd"] > 0
    junit = (run_dir / "junit.xml").read_text()
    assert "model: 6 call(s)" in junit and "(2 attempts)" in junit, junit

    # `farm report` reads it back alike, and a results.json an older farm wrote (the last
    # attempt's own spend in `usage`, no `attempt_usage`) too
    for older in (False, True):
        if older:
            data = json.loads((run_dir / "results.json").read_text())
            c = data["cases"][0]
            c["usage"], c["tokens"] = c.pop("attempt_usage"), c.pop("attempt_tokens")
            del data["usage"]
            (run_dir / "results.json").write_text(json.dumps(data))
        (run_dir / "junit.xml").unlink()
        again = farm.run("report", run_dir)
        assert again.returncode == 0, again.stdout + again.stderr
        assert (run_dir / "junit.xml").read_text() == junit, older
