"""A run's metrics.prom read by node_exporter's textfile collector stays after the run: its
device and queue gauges are a finished run's last state. FarmDeviceQuarantined and the device
and queue panels leave out every series of a node_exporter target (the one that exports
node_textfile_scrape_error), whatever its job is called, and still see a `farm run
--metrics-port` scraped while it lasts and a worker under a job of the user's own name.
Evaluated by `promtool test rules` on deploy/'s rules and dashboard expressions."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_alert_rules_h1 import run_promtool
from tests.support.farm_cli import ROOT

pytestmark = pytest.mark.integration

DASHBOARD = ROOT / "deploy" / "grafana" / "farm.json"
NODE = 'job="node",instance="h:9100"'
RUN = 'job="farm-run",instance="h:9400"'


def panel_exprs(title: str) -> list[str]:
    panel = next(p for p in json.loads(DASHBOARD.read_text())["panels"]
                 if p["title"] == title)
    return [t["expr"].replace("$platform", ".*") for t in panel["targets"]]


def series(metric: str, labels: str, value: str) -> dict[str, str]:
    return {"series": f"{metric}{{{labels}}}", "values": value}


# node_exporter reading an ended run's metrics.prom (its device quarantined, queue 3) beside a
# run scraped on --metrics-port (its own device quarantined, queue 2) and a worker of a job
# named by the user.
INPUT = [
    series("node_textfile_scrape_error", NODE, "0x20"),
    series("farm_device_quarantined", NODE + ',platform="web",device="browser-1"', "1x20"),
    series("farm_device_healthy", NODE + ',platform="web",device="browser-1"', "1x20"),
    series("farm_device_busy", NODE + ',platform="web",device="browser-1"', "1x20"),
    series("farm_queue_depth", NODE + ',queue="browser"', "3x20"),
    series("farm_device_quarantined", RUN + ',platform="web",device="browser-2"', "1x20"),
    series("farm_device_healthy", RUN + ',platform="web",device="browser-2"', "1x20"),
    series("farm_device_busy", RUN + ',platform="web",device="browser-2"', "0x20"),
    series("farm_queue_depth", RUN + ',queue="browser"', "2x20"),
    series("farm_device_quarantined", 'job="my-farm",instance="w:9464",platform="web",'
                                      'device="browser-3@w"', "0x20"),
    series("farm_device_healthy", 'job="my-farm",instance="w:9464",platform="web",'
                                  'device="browser-3@w"', "1x20"),
]


def test_a_run_read_from_its_metrics_prom_neither_alerts_nor_shows_as_a_device(tmp_path):
    healthy, busy, quarantined = panel_exprs("Devices: healthy / busy / quarantined")
    queued = panel_exprs("Queue depth and workers")[0]
    table = panel_exprs("Quarantined devices")[0]
    run_promtool(tmp_path, [{
        "input_series": INPUT,
        "alert_rule_test": [
            {"eval_time": "2m", "alertname": "FarmDeviceQuarantined", "exp_alerts": [
                {"exp_labels": {"severity": "warning", "platform": "web",
                                "device": "browser-2", "job": "farm-run"},
                 "exp_annotations": {
                     "summary": "device browser-2 (web) is quarantined",
                     "description": "3 infrastructure errors in a row. A local run's device: "
                                    "it takes no more cases in this run, and the next run "
                                    "uses it again (fix it before then)."}}]}],
        "promql_expr_test": [
            {"expr": healthy, "eval_time": "2m",
             "exp_samples": [{"labels": '{platform="web"}', "value": 2}]},
            {"expr": busy, "eval_time": "2m",
             "exp_samples": [{"labels": '{platform="web"}', "value": 0}]},
            {"expr": quarantined, "eval_time": "2m",
             "exp_samples": [{"labels": '{platform="web"}', "value": 1}]},
            {"expr": table, "eval_time": "2m",
             "exp_samples": [{"labels": '{platform="web",device="browser-2"}', "value": 1}]},
            {"expr": queued, "eval_time": "2m",
             "exp_samples": [{"labels": '{queue="browser"}', "value": 2}]},
        ]}])


def test_case_duration_panel_takes_cases_with_a_verdict_only(tmp_path):
    """A scraped run whose 10 passed cases took under 5 s each, beside 10 infrastructure errors
    that took 10 minutes (a device lost at its watchdog): the p95 is the passed cases' (5 s,
    the bucket's bound), not pulled up to the errors' 10 minutes."""
    p50, p95 = panel_exprs("Case duration p50 / p95")
    buckets = ("1.0", "2.0", "5.0", "10.0", "600.0", "+Inf")
    scraped = 'job="farm-run",instance="h:9400",platform="web"'
    input_series = [
        series("farm_case_duration_seconds_bucket", f'{scraped},status="{status}",le="{le}"',
               f"0x4 {count}x20")
        for status, counts in (("passed", (0, 0, 10, 10, 10, 10)),
                               ("error", (0, 0, 0, 0, 10, 10)))
        for le, count in zip(buckets, counts)]
    run_promtool(tmp_path, [{
        "input_series": input_series,
        "promql_expr_test": [
            {"expr": p95.replace("$__rate_interval", "2m"), "eval_time": "2m",
             "exp_samples": [{"labels": '{platform="web"}', "value": 4.85}]},
            {"expr": p50.replace("$__rate_interval", "2m"), "eval_time": "2m",
             "exp_samples": [{"labels": '{platform="web"}', "value": 3.5}]},
        ]}])


def test_lost_attempts_alert_follows_a_pushed_nightly(tmp_path):
    """web: 36 cases ran with 4 attempts given another, 3 of the 40 attempts lost with their
    device (7.5%, over 5%): FarmAttemptsLost fires after the push, naming 7.5%, though every
    case passed. android: 3 lost of 100 attempts (3%) and ios: 2 lost (under 3) stay silent;
    2 h later the night is out of the window."""
    from tests.integration.test_alert_rules_h1 import cases, nightly, rule
    counters = [
        *cases("web", passed=36), *cases("android", passed=95), *cases("ios", passed=10),
        *(nightly("farm_attempts_retried_total", f'platform="{p}"', n)
          for p, n in (("web", 4), ("android", 5), ("ios", 2))),
        *(nightly("farm_attempts_lost_total", f'platform="{p}"', n)
          for p, n in (("web", 3), ("android", 3), ("ios", 2)))]
    run_promtool(tmp_path, [{
        "input_series": counters,
        "alert_rule_test": [
            {"eval_time": "2m", "alertname": "FarmAttemptsLost", "exp_alerts": []},
            {"eval_time": "5m", "alertname": "FarmAttemptsLost", "exp_alerts": [
                {"exp_labels": {"severity": "warning", "platform": "web"},
                 "exp_annotations": {
                     "summary": "7.5% of web attempts were lost with their device or "
                                "worker (1h)",
                     "description": rule("FarmAttemptsLost")["annotations"]["description"]}}]},
            {"eval_time": "2h", "alertname": "FarmAttemptsLost", "exp_alerts": []},
            {"eval_time": "5m", "alertname": "FarmPassRateDrop", "exp_alerts": []},
        ]}])


def test_lost_retried_and_cache_panels(tmp_path):
    """A scraped run: 3 attempts lost and 4 retried between 1m and 1m15s show as 3 and 4 at
    the next point, 0 a minute later (whole counts, not extrapolated); the cache panel reads
    locate 30 hits of 40 lookups (10 stale) as 75% and plan 1 of 4 as 25%."""
    lost, retried = (e.replace("$__interval", "1m")
                     for e in panel_exprs("Lost and retried attempts"))
    ratio = panel_exprs("Cache hit ratio")[0].replace("$__range", "1h")
    scraped = 'job="farm-run",instance="h:9400"'
    run_promtool(tmp_path, [{
        "input_series": [
            series("farm_attempts_lost_total", f'{scraped},platform="web"', "0x4 3x20"),
            series("farm_attempts_retried_total", f'{scraped},platform="web"', "0x4 4x20"),
            *(series("farm_cache_requests_total", f'{scraped},cache="{c}",result="{r}"',
                     f"0 {n}x20")
              for c, r, n in (("locate", "hit", 30), ("locate", "miss", 0),
                              ("locate", "stale", 10), ("plan", "hit", 1),
                              ("plan", "miss", 2), ("plan", "replanned", 1)))],
        "promql_expr_test": [
            {"expr": lost, "eval_time": "1m30s",
             "exp_samples": [{"labels": '{platform="web"}', "value": 3}]},
            {"expr": retried, "eval_time": "1m30s",
             "exp_samples": [{"labels": '{platform="web"}', "value": 4}]},
            {"expr": lost, "eval_time": "3m",
             "exp_samples": [{"labels": '{platform="web"}', "value": 0}]},
            {"expr": ratio, "eval_time": "3m",
             "exp_samples": [{"labels": '{cache="locate"}', "value": 0.75},
                             {"labels": '{cache="plan"}', "value": 0.25}]},
        ]}])
