"""Panels that read the difference of a run's counter from one point to the next (`x - x
offset $__interval`) show nothing for a run that is only scraped (`farm run --metrics-port`,
job farm-run): its series end with its process. Each such panel says it needs pushed runs
(or metrics.prom), so an empty panel is not a mystery; the agent-iterations panel says a
replayed plan is no round."""

from __future__ import annotations

import re

from tests.unit.test_dashboard_scrape_only_s43h import _panels


def _counter_diff_panels() -> list[dict]:
    return [p for p in _panels() if any(
        re.search(r"offset \$__interval", t.get("expr", "")) for t in p.get("targets", []))]


def test_counter_difference_panels_say_they_need_pushed_runs_met49():
    panels = _counter_diff_panels()
    assert {p["title"] for p in panels} >= {
        "Failures and infra errors", "Agent iterations per case", "Lost and retried attempts"}
    for panel in panels:
        text = panel.get("description", "")
        assert "--pushgateway" in text and "metrics.prom" in text, panel["title"]
        assert "--metrics-port" in text and "shows nothing here" in text, panel["title"]


def test_agent_iterations_panel_says_replays_are_no_round_met49():
    panel = next(p for p in _panels() if p["title"] == "Agent iterations per case")
    assert "replayed a cached plan" in panel["description"]
