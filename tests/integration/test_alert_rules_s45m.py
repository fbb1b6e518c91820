"""`promtool test rules` on deploy/prometheus/alerts.yml (SRE journeys): a worker whose Redis
went away as it started has its heartbeat series from the start, standing still at that time,
and FarmWorkerNoHeartbeat fires as for one that lost Redis later; FarmDeviceQuarantined tells a
local run's device (no broker; quarantined for that run only) from a worker's."""

from __future__ import annotations

import pytest

from tests.integration.test_alert_rules_h1 import run_promtool

pytestmark = pytest.mark.integration


def test_a_worker_that_never_renewed_its_lease_alerts(tmp_path):
    """Started at t=0 (the series' value: its start, `worker.main._beat_from_start`), no
    renewal since: over 60 s old from 1m, firing 1m later (the rule's `for`)."""
    run_promtool(tmp_path, [{
        "input_series": [
            {"series": 'farm_worker_heartbeat_timestamp_seconds{job="farm-workers",'
                       'instance="w1:9464",device="fake-1@h1"}', "values": "0x40"},
            {"series": 'up{job="farm-workers",instance="w1:9464"}', "values": "1x40"}],
        "alert_rule_test": [
            {"eval_time": "1m30s", "alertname": "FarmWorkerNoHeartbeat", "exp_alerts": []},
            {"eval_time": "2m30s", "alertname": "FarmWorkerNoHeartbeat", "exp_alerts": [
                {"exp_labels": {"severity": "critical", "device": "fake-1@h1"},
                 "exp_annotations": {
                     "summary": "farm worker fake-1@h1 has not renewed its Redis lease for "
                                "over a minute",
                     "description": "Its process answers but cannot reach Redis: runs treat "
                                    "its device as gone."}}]},
            {"eval_time": "2m30s", "alertname": "FarmWorkerDown", "exp_alerts": []}]}])


def _quarantined(job: str) -> dict[str, str]:
    return {"series": f'farm_device_quarantined{{job="{job}",instance="h:9400",'
                      f'platform="web",device="browser-1"}}', "values": "1x20"}


def _fired(job: str, description: str) -> dict:
    return {"exp_labels": {"severity": "warning", "platform": "web", "device": "browser-1",
                           "job": job},
            "exp_annotations": {"summary": "device browser-1 (web) is quarantined",
                                "description": description}}


def test_a_local_runs_quarantined_device_is_not_told_to_be_released(tmp_path):
    run_promtool(tmp_path, [{
        "input_series": [_quarantined("farm-run"), _quarantined("my-farm")],
        "alert_rule_test": [
            {"eval_time": "2m", "alertname": "FarmDeviceQuarantined", "exp_alerts": [
                _fired("farm-run", "3 infrastructure errors in a row. A local run's device: "
                                   "it takes no more cases in this run, and the next run uses "
                                   "it again (fix it before then)."),
                _fired("my-farm", "3 infrastructure errors in a row. Fix it, then, for a farm "
                                  "worker's device: farm devices --broker URL --release "
                                  "browser-1 (a farm run's own device is quarantined for the "
                                  "rest of that run only: the next run uses it again).")]}]}])
