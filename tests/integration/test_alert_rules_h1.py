"""Every alert of deploy/prometheus/alerts.yml under `promtool test rules`, on series shaped as
farm exports them: a nightly pushed to the Pushgateway (its counters step up once, at the
run's end), workers scraped every 15 s. Each alert fires when what its summary says is true,
with the figure a user reads in it, and stays silent on a healthy or too small night."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.farm_cli import ROOT
from tests.support.prometheus import PROMTOOL

pytestmark = pytest.mark.integration

ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
PUSHED = '{job="farm_run",instance="ci"'


def rule(name: str) -> dict[str, Any]:
    return next(r for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]
                if r["alert"] == name)


def nightly(metric: str, labels: str, total: float) -> dict[str, str]:
    """A pushed counter: 0 (the run's baseline) for 10 scrapes, then ``total`` (its end)."""
    return {"series": f"{metric}{PUSHED},{labels}}}", "values": f"0x10 {total:g}x200"}


def cases(platform: str, **counts: int) -> list[dict[str, str]]:
    statuses = ("passed", "failed", "error", "flaky", "skipped", "interrupted")
    return [nightly("farm_cases_total", f'platform="{platform}",status="{s}"', counts.get(s, 0))
            for s in statuses]


def run_promtool(tmp_path: Path, tests: list[dict]) -> None:
    doc = {"rule_files": [str(ALERTS)], "evaluation_interval": "15s",
           "tests": [{"interval": "15s", **t} for t in tests]}
    path = tmp_path / "alerts.test.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    done = subprocess.run([PROMTOOL, "test", "rules", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_pass_rate_and_infra_error_alerts_follow_a_pushed_nightly(tmp_path):
    """A nightly of 40 web cases, 34 passed or flaky, 3 failed, 3 infrastructure errors: pass
    rate 85% (under 90%) and 7.5% errors (over 5%): both fire after its push, naming those
    figures; a night of 5 cases with 2 failures (too few to judge) and one of 20 with 1
    failure stay silent; 7 h later the bad night is out of the pass-rate window."""
    bad = cases("web", passed=32, flaky=2, failed=3, error=3, skipped=4)
    small = cases("android", passed=3, failed=2)
    good = cases("ios", passed=19, failed=1)
    drop, infra = rule("FarmPassRateDrop"), rule("FarmInfraErrorRate")
    run_promtool(tmp_path, [{
        "input_series": bad + small + good,
        "alert_rule_test": [
            {"eval_time": "2m", "alertname": "FarmPassRateDrop", "exp_alerts": []},
            {"eval_time": "5m", "alertname": "FarmPassRateDrop", "exp_alerts": [
                {"exp_labels": {"severity": "warning", "platform": "web"},
                 "exp_annotations": {
                     "summary": "farm pass rate on web is 85% over 6h",
                     "description": drop["annotations"]["description"]}}]},
            {"eval_time": "5m", "alertname": "FarmInfraErrorRate", "exp_alerts": [
                {"exp_labels": {"severity": "warning", "platform": "web"},
                 "exp_annotations": {
                     "summary": "7.5% of web cases ended in an infrastructure error (1h)",
                     "description": infra["annotations"]["description"]}}]},
            {"eval_time": "2h", "alertname": "FarmInfraErrorRate", "exp_alerts": []},
            {"eval_time": "7h", "alertname": "FarmPassRateDrop", "exp_alerts": []},
        ]}])


def test_cost_and_model_error_alerts_follow_what_the_model_client_counted(tmp_path):
    """60 USD pushed by a nightly fires the 12 h cost alert (threshold 50) naming 60.00, and
    stops 12 h later; 30% of requests failing at the workers fires the model error alert once
    its 10 minutes have passed."""
    worker = 'farm_model_requests_total{job="farm-workers",instance="w1",family="qwen",'
    run_promtool(tmp_path, [{
        "input_series": [
            nightly("farm_model_cost_usd_total", 'family="qwen"', 60),
            {"series": worker + 'outcome="ok"}', "values": "0+7x200"},
            {"series": worker + 'outcome="error"}', "values": "0+3x200"},
        ],
        "alert_rule_test": [
            {"eval_time": "5m", "alertname": "FarmNightlyCostHigh", "exp_alerts": [
                {"exp_labels": {"severity": "info"},
                 "exp_annotations": {
                     "summary": "farm spent 60.00 USD on models in 12h (threshold 50)",
                     "description": rule("FarmNightlyCostHigh")["annotations"]["description"]}}]},
            {"eval_time": "13h", "alertname": "FarmNightlyCostHigh", "exp_alerts": []},
            {"eval_time": "5m", "alertname": "FarmModelErrorRate", "exp_alerts": []},
            {"eval_time": "40m", "alertname": "FarmModelErrorRate", "exp_alerts": [
                {"exp_labels": {"severity": "warning", "family": "qwen"},
                 "exp_annotations": {
                     "summary": "30% of qwen model requests fail",
                     "description": rule("FarmModelErrorRate")["annotations"]["description"]}}
            ]},
        ]}])


def test_device_and_worker_alerts(tmp_path):
    """A quarantined device alerts after a minute; a worker whose lease heartbeat stands still
    (its process still scraped) alerts once it is over a minute old for a minute; a worker
    that does not answer alerts after 2 minutes, and with no worker up at all for 5 minutes
    the cluster alert fires too. A worker that beats every 2 s never alerts."""
    w1 = '{job="farm-workers",instance="w1:9464"}'
    w2 = '{job="farm-workers",instance="w2:9464"}'
    run_promtool(tmp_path, [{
        "input_series": [
            {"series": 'farm_device_quarantined{job="farm-workers",instance="w1:9464",'
                       'platform="android",device="android-1@h1"}', "values": "0x4 1x100"},
            # epoch seconds of the last renewal: every scrape until 3 min, then it stands still
            {"series": 'farm_worker_heartbeat_timestamp_seconds{job="farm-workers",'
                       'instance="w1:9464",device="android-1@h1"}',
             "values": "0+15x12 180x100"},
            {"series": 'farm_worker_heartbeat_timestamp_seconds{job="farm-workers",'
                       'instance="w2:9464",device="browser-1@h2"}', "values": "13+15x112"},
            {"series": f"up{w1}", "values": "1x40 0x100"},
            {"series": f"up{w2}", "values": "1x40 0x100"},
        ],
        "alert_rule_test": [
            {"eval_time": "30s", "alertname": "FarmDeviceQuarantined", "exp_alerts": []},
            {"eval_time": "3m", "alertname": "FarmDeviceQuarantined", "exp_alerts": [
                {"exp_labels": {"severity": "warning", "platform": "android",
                                "device": "android-1@h1", "job": "farm-workers"},
                 "exp_annotations": {
                     "summary": "device android-1@h1 (android) is quarantined",
                     "description": "3 infrastructure errors in a row. Fix it, then: farm "
                                    "devices --broker URL --release android-1@h1"}}]},
            {"eval_time": "4m", "alertname": "FarmWorkerNoHeartbeat", "exp_alerts": []},
            {"eval_time": "5m30s", "alertname": "FarmWorkerNoHeartbeat", "exp_alerts": [
                {"exp_labels": {"severity": "critical", "device": "android-1@h1"},
                 "exp_annotations": {
                     "summary": "farm worker android-1@h1 has not renewed its Redis lease for "
                                "over a minute",
                     "description": rule("FarmWorkerNoHeartbeat")["annotations"]["description"]}}
            ]},
            {"eval_time": "11m", "alertname": "FarmWorkerDown", "exp_alerts": []},
            {"eval_time": "13m", "alertname": "FarmWorkerDown", "exp_alerts": [
                {"exp_labels": {"severity": "critical", "job": "farm-workers",
                                "instance": i},
                 "exp_annotations": {"summary": f"farm worker {i} does not answer /metrics"}}
                for i in ("w1:9464", "w2:9464")]},
            {"eval_time": "13m", "alertname": "FarmNoWorkers", "exp_alerts": []},
            {"eval_time": "16m", "alertname": "FarmNoWorkers", "exp_alerts": [
                {"exp_labels": {"severity": "critical"},
                 "exp_annotations": {"summary": "no farm worker is up: cluster runs cannot "
                                                "start any case"}}]},
        ]}])
