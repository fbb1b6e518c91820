"""A run's model budget (--max-model-cost, --max-model-tokens, or their FARM_ variables): once
the cases that finished have spent it, no more cases start; those end skipped saying why, the
console and the report say it once, and the exit code is 3. Real `farm run`, real Chromium, the
scripted model server over HTTP."""

from __future__ import annotations

from pathlib import Path

from tests.support.agent_scripts import DONE_XML, by_progress, xml
from tests.support.farm_cli import FarmCli, results

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


def _suite(folder: Path, cases: int = 3) -> Path:
    folder.mkdir()
    (folder / "go.html").write_text(PAGE)
    for i in range(cases):
        (folder / f"case{i}.yaml").write_text(CASE.format(name=f"case {i}"))
    return folder


def _run(farm: FarmCli, suite: Path, out: Path, srv, model: str, *flags: str, **env: str):
    return farm.run("run", suite, "--devices", "browser:1", "--no-progress", "--report-dir", out,
                    "--model", model, "--model-base-url", srv.base_url, *flags, **env)


def test_a_spent_token_budget_starts_no_more_cases(tmp_path, farm, model_server):
    srv = model_server(SCRIPT)
    done = _run(farm, _suite(tmp_path / "s"), tmp_path / "run", srv, "openai/scripted-vlm",
                "--max-model-tokens", "1")
    out = done.stdout + done.stderr
    assert done.returncode == 3, out
    cases = results(tmp_path / "run")["cases"]
    ran = [c for c in cases if c["status"] == "passed"]
    assert len(ran) == 1 and ran[0]["usage"]["calls"] == len(srv.requests) == 2, out
    tokens = ran[0]["usage"]["prompt_tokens"] + ran[0]["usage"]["completion_tokens"]
    reason = f"the run's model budget (--max-model-tokens 1) was spent: {tokens:,} tokens"
    left = [c for c in cases if c is not ran[0]]
    assert [(c["status"], c["reason"]) for c in left] == [("skipped", "not run: " + reason)] * 2
    assert f"farm: {reason}: 2 case(s) not run\nfarm: 1 passed, 2 skipped" in done.stdout, out
    assert results(tmp_path / "run")["stopped"] == reason
    report = (tmp_path / "run" / "report.html").read_text()
    assert ("The run&#x27;s model budget (--max-model-tokens 1) was spent: "
            f"{tokens:,} tokens: 2 case(s) not run.") in report
    junit = (tmp_path / "run" / "junit.xml").read_text()
    assert junit.count(f'<skipped message="not run: {reason}"/>') == 2, junit


def test_a_cost_budget_from_the_environment_counts_the_priced_calls(tmp_path, farm,
                                                                     model_server):
    srv = model_server(SCRIPT)
    suite = _suite(tmp_path / "s")
    done = _run(farm, suite, tmp_path / "run", srv, "openai/gpt-4o-mini",
                FARM_MAX_MODEL_COST="0.000001")
    assert done.returncode == 3, done.stdout + done.stderr
    summary = results(tmp_path / "run")
    assert summary["counts"]["passed"] == 1 and summary["counts"]["skipped"] == 2
    cost = next(c for c in summary["cases"] if c["status"] == "passed")["usage"]["cost_usd"]
    assert cost > 0.000001
    assert summary["stopped"] == ("the run's model budget (FARM_MAX_MODEL_COST 0.000001) was "
                                  f"spent: ${cost:.4f}")
    # the same budget, not reached: the run is as without one
    enough = _run(farm, suite, tmp_path / "run2", srv, "openai/gpt-4o-mini",
                  "--max-model-cost", "5")
    assert enough.returncode == 0, enough.stdout + enough.stderr
    assert results(tmp_path / "run2")["counts"]["passed"] == 3
    assert results(tmp_path / "run2")["stopped"] is None
    assert "model budget" not in enough.stdout + enough.stderr


def test_a_cost_budget_over_unpriced_calls_says_it_counts_none_of_them(tmp_path, farm,
                                                                      model_server):
    # (alone, a cost budget over a model without a price does not start: exit 4,
    # test_model_spend_said_s43n; with a token budget beside it, it runs and says so)
    srv = model_server(SCRIPT)
    done = _run(farm, _suite(tmp_path / "s", cases=2), tmp_path / "run", srv,
                "openai/scripted-vlm", "--max-model-cost", "0.01", "--max-model-tokens",
                "1000000")
    assert done.returncode == 0, done.stdout + done.stderr
    assert results(tmp_path / "run")["counts"]["passed"] == 2
    assert ("farm: warning: some model calls had no known price (litellm's cost map does not "
            "list the model): --max-model-cost counts the priced ones only; --max-model-tokens "
            "counts every call's tokens") in done.stdout
