"""A run that pushes to the Pushgateway has empty device and queue panels on the dashboard:
deploy/prometheus/prometheus.yml drops the pushed device and queue gauges on purpose (the
gateway keeps a finished run's last values for ever: a device quarantined at the end of a run
would show, and alert, as if it still were). Each panel that reads one of those gauges says
so in its description, and which scrape it needs, so an empty panel is not a mystery."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _dropped_from_the_gateway() -> re.Pattern[str]:
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    job = next(j for j in config["scrape_configs"] if j["job_name"] == "pushgateway")
    drop = next(r for r in job["metric_relabel_configs"] if r.get("action") == "drop")
    return re.compile(rf"\b(?:{drop['regex']})\b")


def _panels() -> list[dict]:
    found, todo = [], list(json.loads((DEPLOY / "grafana" / "farm.json").read_text())["panels"])
    while todo:
        panel = todo.pop(0)
        found.append(panel)
        todo += panel.get("panels", [])
    return found


def test_every_panel_of_a_dropped_gauge_says_which_scrape_it_needs() -> None:
    dropped = _dropped_from_the_gateway()
    reading = [p for p in _panels()
               if any(dropped.search(t["expr"]) for t in p.get("targets", []))]
    assert {p["title"] for p in reading} == {
        "Devices: healthy / busy / quarantined", "Quarantined devices",
        "Queue depth and workers"}
    for panel in reading:
        said = panel.get("description", "")
        assert "farm run --metrics-port" in said, panel["title"]
        assert "--pushgateway" in said and "drops" in said, panel["title"]
    assert "farm worker`'s /metrics" in next(p for p in reading
                                             if p["title"] == "Quarantined devices")["description"]


def test_the_duration_panel_says_it_is_the_last_attempts_own_time() -> None:
    panel = next(p for p in _panels() if p["title"] == "Case duration p50 / p95")
    assert "last attempt" in panel["description"]
    assert "attempt_duration" in panel["description"]
