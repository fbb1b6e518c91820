"""The dashboard's counts of cases are the counts results.json has, as Grafana draws them: one
instant query per point of the range, the points `$__interval` apart and never on the scrape
times (`promtool test rules` runs the panels' PromQL on series shaped as farm exports them).

increase() extrapolates to the window's edges and its window ($__rate_interval) is wider than
the points' spacing: a nightly that pushed 5 failed cases read 6 at four points in a row on
"Failures and infra errors", and each case filled several columns of the agent-rounds heatmap."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.farm_cli import ROOT
from tests.support.prometheus import PROMTOOL

pytestmark = pytest.mark.integration

DASHBOARD = ROOT / "deploy" / "grafana" / "farm.json"
SCRAPE_S = 15           # the compose Prometheus's scrape_interval
STEP_S = 60             # Grafana's $__interval for this range (the points' spacing)
FIRST_POINT_S = 7       # Grafana's points fall between scrapes
POINTS = 30


def panel_expr(title: str) -> str:
    panel = next(p for p in json.loads(DASHBOARD.read_text())["panels"] if p["title"] == title)
    (target,) = panel["targets"]
    return target["expr"]


def filled(expr: str) -> str:
    """The expression as Grafana sends it for a 30-minute range ($__rate_interval as Grafana
    works it out: the larger of a step and a scrape, and four scrapes)."""
    for var, value in {"$__interval": f"{STEP_S}s", "$__rate_interval": f"{max(STEP_S + SCRAPE_S, 4 * SCRAPE_S)}s",
                       "$__range": f"{POINTS}m", "$platform": ".*"}.items():
        expr = expr.replace(var, value)
    assert "$" not in expr, expr
    return expr


def steps(before: float, after: float, at_sample: int, samples: int = 120) -> str:
    """promtool's notation of a counter at ``before`` that is ``after`` from sample
    ``at_sample`` on (a pushed run: the gateway's value changes at one push)."""
    return f"{before:g}x{at_sample - 1} {after:g}x{samples - at_sample}"


def value_at(series: list[float | None], t: float) -> float | None:
    """The sample value an instant query at ``t`` s reads (the last one at or before it)."""
    index = int(t // SCRAPE_S)
    return series[index] if 0 <= index < len(series) else None


def expanded(before: float, after: float, at_sample: int, samples: int = 120) -> list[float]:
    return [before] * at_sample + [after] * (samples - at_sample)


def run_promtool(tmp_path: Path, input_series: list[dict], checks: list[dict]) -> str:
    (tmp_path / "none.yml").write_text("groups: []\n")
    test = {"rule_files": [str(tmp_path / "none.yml")], "evaluation_interval": f"{SCRAPE_S}s",
            "tests": [{"interval": f"{SCRAPE_S}s", "input_series": input_series,
                       "promql_expr_test": checks}]}
    path = tmp_path / "counts.test.yml"
    path.write_text(yaml.safe_dump(test, sort_keys=False))
    done = subprocess.run([PROMTOOL, "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=120)
    return "" if done.returncode == 0 else done.stdout + done.stderr


def point_times() -> list[int]:
    return [FIRST_POINT_S + STEP_S * i for i in range(1, POINTS)]


def test_failures_panel_shows_each_failed_case_once_at_its_count(tmp_path):
    """5 failed and 2 errors pushed by one nightly (a step at the gateway), 3 failed counted
    by a scraped `farm run` while it ran: each point shows the cases that ended since the
    previous point, so the points add up to 5 failed + 3 failed and 2 errors, never 6."""
    expr = filled(panel_expr("Failures and infra errors"))
    pushed = 'farm_cases_total{job="farm_run",instance="ci",platform="web",status="%s"}'
    scraped = 'farm_cases_total{job="farm-run",instance="run:9400",platform="web",status="failed"}'
    series = {
        "failed": [expanded(0, 5, 41), expanded(0, 0, 0)],
        "error": [expanded(0, 2, 41)],
    }
    # the scraped run: 0 from its start (sample 60), one more failure every 4 scrapes
    run = [None] * 60 + [float(min(3, i // 4)) for i in range(30)] + [None] * 30
    series["failed"][1] = run
    input_series = [
        {"series": pushed % "failed", "values": steps(0, 5, 41)},
        {"series": pushed % "error", "values": steps(0, 2, 41)},
        {"series": scraped, "values": "_x59 " + " ".join(
            str(int(v)) for v in run[60:90]) + " stale"},
    ]
    checks, expected_total = [], {"failed": 0.0, "error": 0.0}
    for t in point_times():
        samples = []
        for status, lists in series.items():
            now = [value_at(s, t) for s in lists]
            then = [value_at(s, t - STEP_S) for s in lists]
            pairs = [(a, b) for a, b in zip(now, then) if a is not None and b is not None]
            if pairs:
                value = sum(a - b for a, b in pairs)
                expected_total[status] += value
                samples.append({"labels": f'{{status="{status}"}}', "value": value})
        checks.append({"expr": expr, "eval_time": f"{t}s", "exp_samples": samples})
    assert expected_total == {"failed": 8.0, "error": 2.0}      # what the runs counted
    failed = run_promtool(tmp_path, input_series, checks)
    assert failed == "", failed


def test_agent_rounds_heatmap_counts_each_case_once_in_its_bucket(tmp_path):
    """A nightly of 4 ai cases, 3 of them in the 5-rounds bucket and 1 in the 10-rounds one,
    pushed at once: one column holds 3 and 1 (cumulative: le=5 → 3, le=10 and +Inf → 4), the
    others nothing — Grafana's heatmap format takes the buckets apart."""
    expr = filled(panel_expr("Agent iterations per case"))
    base = 'farm_agent_iterations_bucket{job="farm_run",instance="ci",platform="web",le="%s"}'
    ends = {"3.0": 0, "5.0": 3, "10.0": 4, "+Inf": 4}
    input_series = [{"series": base % le, "values": steps(0, n, 41)} for le, n in ends.items()]
    checks = []
    for t in point_times():
        jumped = value_at(expanded(0, 1, 41), t) == 1 and \
            value_at(expanded(0, 1, 41), t - STEP_S) == 0
        checks.append({"expr": expr, "eval_time": f"{t}s", "exp_samples": [
            {"labels": f'{{le="{le}"}}', "value": n if jumped else 0}
            for le, n in ends.items()]})
    failed = run_promtool(tmp_path, input_series, checks)
    assert failed == "", failed


def test_tokens_and_cost_per_case_divide_by_every_case_that_spent_them(tmp_path):
    """A nightly stopped by its CI (SIGTERM): 8 passed, 2 failed, 2 ended interrupted half-way
    through their ai steps, 3 not run (skipped). The run's tokens (120,000) and cost (12 USD)
    include the interrupted cases' own: per case that ran, 10,000 tokens and 1 USD, not the
    12,000 and 1.2 USD of dividing by the 10 that finished."""
    panel = "Tokens and cost per case"
    dashboard = json.loads(DASHBOARD.read_text())
    targets = next(p for p in dashboard["panels"] if p["title"] == panel)["targets"]
    at = 'job="farm_run",instance="ci",platform="web"'
    counts = {"passed": 8, "failed": 2, "interrupted": 2, "skipped": 3, "error": 0, "flaky": 0}
    input_series = [{"series": f'farm_cases_total{{{at},status="{s}"}}',
                     "values": steps(0, n, 41)} for s, n in counts.items()]
    input_series += [
        {"series": f'farm_case_tokens_total{{{at},kind="prompt"}}',
         "values": steps(0, 110000, 41)},
        {"series": f'farm_case_tokens_total{{{at},kind="completion"}}',
         "values": steps(0, 10000, 41)},
        {"series": f'farm_case_cost_usd_total{{{at}}}', "values": steps(0, 12, 41)},
    ]
    checks = [{"expr": filled(t["expr"]), "eval_time": "20m",
               "exp_samples": [{"labels": "{}", "value": value}]}
              for t, value in zip(sorted(targets, key=lambda t: t["refId"]), (10000, 1))]
    failed = run_promtool(tmp_path, input_series, checks)
    assert failed == "", failed


def test_pass_rate_over_a_week_shows_each_night_not_the_weeks_blend(tmp_path):
    """Two nightlies pushed a day apart, the first all 10 passed, the second 5 of 10: on the
    dashboard set to 7 days the point after the second night reads 50% (that night's pass
    rate), not 75% (every run of the week's range blended into every point), and the point
    before it 100%."""
    panel = next(p for p in json.loads(DASHBOARD.read_text())["panels"]
                 if p["title"] == "Pass rate by platform")
    (target,) = panel["targets"]
    expr = target["expr"]
    for var, value in {"$__range": "7d", "$__rate_interval": "75s", "$__interval": "60s",
                       "$platform": ".*"}.items():
        expr = expr.replace(var, value)
    expr = f"round({expr}, 0.001)"      # as the panel shows it: 50.0% (increase() extrapolates
    at = 'job="farm_run",instance="ci",platform="web"'      # a series from 0 less: 50.015%)
    # one sample a minute: night 1 pushed at 1 h, night 2 at 25 h
    input_series = [
        {"series": f'farm_cases_total{{{at},status="passed"}}', "values": "0x60 10x1440 15x200"},
        {"series": f'farm_cases_total{{{at},status="failed"}}', "values": "0x60 0x1440 5x200"},
    ]
    (tmp_path / "none.yml").write_text("groups: []\n")
    test = {"rule_files": [str(tmp_path / "none.yml")], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": input_series, "promql_expr_test": [
                {"expr": expr, "eval_time": "24h30m7s",
                 "exp_samples": [{"labels": '{platform="web"}', "value": 1}]},
                {"expr": expr, "eval_time": "26h7s",
                 "exp_samples": [{"labels": '{platform="web"}', "value": 0.5}]}]}]}
    path = tmp_path / "pass-rate.test.yml"
    path.write_text(yaml.safe_dump(test, sort_keys=False))
    done = subprocess.run([PROMTOOL, "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
