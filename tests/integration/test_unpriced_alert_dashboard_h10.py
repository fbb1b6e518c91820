"""The cost a nightly reports is a lower bound when some of its model calls had no known cost
(`promtool test rules` on series shaped as a pushed nightly exports them): the cost alert's
summary says how many calls, and the dashboard's cost panel draws them beside the cost."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.farm_cli import ROOT
from tests.support.prometheus import PROMTOOL

pytestmark = pytest.mark.integration

ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "farm.json"


def pushed(metric: str, labels: str, instance: str, total: float) -> dict[str, str]:
    """A counter a nightly pushed: 0 (its baseline) for 10 scrapes, then ``total``."""
    return {"series": f'{metric}{{job="farm_run",instance="{instance}",{labels}}}',
            "values": f"0x10 {total:g}x200"}


def nightly(instance: str, cost: float, unknown: int, counted: int) -> list[dict[str, str]]:
    return [pushed("farm_model_cost_usd_total", 'family="gpt"', instance, cost),
            pushed("farm_model_unpriced_requests_total", 'family="gpt",tokens="unknown"',
                   instance, unknown),
            pushed("farm_model_unpriced_requests_total", 'family="gpt",tokens="counted"',
                   instance, counted)]


def promtool(tmp_path: Path, rule_files: list[str], tests: list[dict]) -> str:
    doc = {"rule_files": rule_files, "evaluation_interval": "15s",
           "tests": [{"interval": "15s", **t} for t in tests]}
    path = tmp_path / "h10.test.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    done = subprocess.run([PROMTOOL, "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=120)
    return "" if done.returncode == 0 else done.stdout + done.stderr


def cost_alert(summary: str) -> dict:
    description = next(r for g in yaml.safe_load(ALERTS.read_text())["groups"]
                       for r in g["rules"] if r["alert"] == "FarmNightlyCostHigh")[
        "annotations"]["description"]
    return {"exp_labels": {"severity": "info"},
            "exp_annotations": {"summary": summary, "description": description}}


def test_the_cost_alert_says_its_figure_is_a_lower_bound_when_calls_had_no_known_cost(
        tmp_path):
    """A nightly of 60 USD with 3 calls of unknown cost (2 replies without usage, 1 model
    litellm cannot price): the alert names them; a nightly of 60 USD, all priced, reads as
    before."""
    lower = "farm spent 60.00 USD on models in 12h (threshold 50); a lower bound: 3 model " \
            "calls of unknown cost count as 0 USD"
    failed = promtool(tmp_path, [str(ALERTS)], [
        {"input_series": nightly("ci", 60, 2, 1), "alert_rule_test": [
            {"eval_time": "5m", "alertname": "FarmNightlyCostHigh",
             "exp_alerts": [cost_alert(lower)]}]},
        {"input_series": nightly("ci", 60, 0, 0), "alert_rule_test": [
            {"eval_time": "5m", "alertname": "FarmNightlyCostHigh", "exp_alerts": [cost_alert(
                "farm spent 60.00 USD on models in 12h (threshold 50)")]}]},
    ])
    assert failed == "", failed


def test_the_cost_panel_draws_the_calls_of_unknown_cost_beside_the_cost(tmp_path):
    """The same nightly on "Model cost per hour": 3 calls with unknown cost for its family
    beside its cost, whole calls (increase() extrapolates: not 3.01 calls), on an axis of
    their own; the panel says its cost is then a lower bound."""
    panel = next(p for p in json.loads(DASHBOARD.read_text())["panels"]
                 if p["title"] == "Model cost per hour")
    unknown = next(t for t in panel["targets"] if "unknown cost" in t["legendFormat"])
    (override,) = [o for o in panel["fieldConfig"]["overrides"]
                   if o["matcher"]["options"] == unknown["refId"]]
    assert {"id": "custom.axisPlacement", "value": "right"} in override["properties"]
    assert "lower bound" in panel["description"]
    (tmp_path / "none.yml").write_text("groups: []\n")
    at = "37m7s"       # a Grafana point, between scrapes, 35 min after the push
    failed = promtool(tmp_path, [str(tmp_path / "none.yml")], [
        {"input_series": nightly("ci", 60, 2, 1), "promql_expr_test": [
            {"expr": unknown["expr"], "eval_time": at,
             "exp_samples": [{"labels": '{family="gpt"}', "value": 3}]}]}])
    assert failed == "", failed
