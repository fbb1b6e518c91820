"""deploy/prometheus/prometheus.yml, deploy/alertmanager/alertmanager.yml and the ratios of the
dashboard and the rules, with the real tools: `promtool check config` and `promtool test rules`,
the compose Prometheus config (its targets made local, nothing else changed) in a real
Prometheus scraping a real `farm run --metrics-port` that also pushes to a real Pushgateway, and
(with Debian's prometheus-alertmanager installed) `amtool check-config` and an alert going from
that Prometheus through a real Alertmanager with alertmanager.yml to a webhook.

No fixed ports (every server takes a free one), no sleeps: every wait is for a condition, with
a deadline only to fail instead of hanging."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.support.agent_scripts import XML_FLOW, by_progress
from tests.support.farm_cli import ROOT, results, wait_for
from tests.support.prometheus import PROMTOOL, Daemon, Prometheus, Pushgateway
from tests.support.redis_server import free_port

DEPLOY = ROOT / "deploy"
PROMETHEUS_YML = DEPLOY / "prometheus" / "prometheus.yml"
ALERTS = DEPLOY / "prometheus" / "alerts.yml"
ALERTMANAGER_YML = DEPLOY / "alertmanager" / "alertmanager.yml"
DASHBOARD = DEPLOY / "grafana" / "farm.json"
COMPOSE = DEPLOY / "compose.yaml"
ALERTMANAGER = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
AMTOOL = shutil.which("amtool")
MODEL = "openai/scripted-vlm"
SHOPPING = [a for a in XML_FLOW if "DEMO_PASSWORD" not in a]
# a rule of the test's own, always firing: what the alerting path delivers
PROBE_RULES = {"groups": [{"name": "deploy-check", "rules": [
    {"alert": "DeployCheckAlwaysFiring", "expr": "vector(1)",
     "labels": {"severity": "info"}, "annotations": {"summary": "alerting path check"}}]}]}


# ---- the files, as Compose mounts them ---------------------------------------------------------
def prometheus_mounts() -> dict[str, Path]:
    """Path in the Prometheus container → the repository file compose.yaml mounts there."""
    volumes = yaml.safe_load(COMPOSE.read_text())["services"]["prometheus"]["volumes"]
    return {v.split(":")[1]: (DEPLOY / v.split(":")[0]).resolve()
            for v in volumes if v.startswith(".")}


def local_config(targets: dict[str, list[str]], alertmanagers: list[str],
                 extra_rules: list[Path] = (), interval: str = "1s") -> dict[str, Any]:
    """deploy/prometheus/prometheus.yml with only what cannot work outside Compose changed:
    the mounted rule file's path, each job's targets (the job's everything else — honor_labels,
    relabelling — kept), the Alertmanager's address, and the intervals."""
    config = yaml.safe_load(PROMETHEUS_YML.read_text())
    config["global"].update(scrape_interval=interval, evaluation_interval=interval)
    mounts = prometheus_mounts()
    config["rule_files"] = [str(mounts[r]) for r in config["rule_files"]] + \
        [str(r) for r in extra_rules]
    jobs = {job["job_name"] for job in config["scrape_configs"]}
    assert jobs == set(targets), f"the test covers jobs {sorted(targets)}, the config has {jobs}"
    for job in config["scrape_configs"]:
        for sd in [k for k in job if k.endswith("_sd_configs") or k == "static_configs"]:
            del job[sd]
        job["static_configs"] = [{"targets": targets[job["job_name"]]}]
    managers = config["alerting"]["alertmanagers"]
    assert len(managers) == 1
    managers[0]["static_configs"] = [{"targets": alertmanagers}]
    return config


class DeployPrometheus(Prometheus):
    """A real Prometheus on a free port running ``config`` (not one built from job names)."""

    def __init__(self, tmp: Path, config: dict[str, Any]) -> None:
        super().__init__(tmp, {})
        (self.dir / "prometheus.yml").write_text(yaml.safe_dump(config))

    def argv(self) -> list[str]:
        """Prometheus's, with firing alerts re-sent every second (default: a minute): an
        alert first evaluated before the Alertmanager's address is discovered is dropped and
        sent again only at the next resend."""
        return [*super().argv(), "--rules.alert.resend-delay=1s"]


class Alertmanager(Daemon):
    """Debian's prometheus-alertmanager on a free port running ``config``, alone (no
    cluster gossip to settle)."""

    name = "alertmanager"

    def __init__(self, folder: Path, config: dict[str, Any]) -> None:
        super().__init__(folder / "log")
        self.dir = folder
        (folder / "alertmanager.yml").write_text(yaml.safe_dump(config))

    def argv(self) -> list[str]:
        return [ALERTMANAGER, f"--config.file={self.dir / 'alertmanager.yml'}",
                f"--storage.path={self.dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}", "--cluster.listen-address="]


class AlertSink:
    """An HTTP server on a free port recording the JSON bodies POSTed to it: a webhook
    receiver, or (its path /api/v2/alerts) what Prometheus sends an Alertmanager."""

    def __init__(self) -> None:
        self.bodies: list[tuple[str, Any]] = []
        self.arrived = threading.Condition()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with sink.arrived:
                    sink.bodies.append((self.path, body))
                    sink.arrived.notify_all()
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, found: Any, timeout: float, what: str) -> Any:
        """The first ``found(path, body)`` that is not None, waiting for bodies as they arrive
        (``timeout``: only to fail instead of hanging)."""
        def hit() -> Any:
            return next((r for p, b in self.bodies if (r := found(p, b)) is not None), None)
        with self.arrived:
            result = self.arrived.wait_for(hit, timeout)
        assert result is not None, f"no {what} within {timeout}s; received: {self.bodies}"
        return result

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def grafana(expr: str, **values: str) -> str:
    for var, value in values.items():
        expr = expr.replace(var, value)
    assert "$" not in expr, expr
    return expr


def panel_expr(title: str, ref: str) -> str:
    panel = next(p for p in json.loads(DASHBOARD.read_text())["panels"] if p["title"] == title)
    return next(t["expr"] for t in panel["targets"] if t["refId"] == ref)


def rule(name: str) -> dict[str, Any]:
    return next(r for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]
                if r["alert"] == name)


# ---- promtool ---------------------------------------------------------------------------------
def test_promtool_accepts_the_compose_prometheus_config(tmp_path):
    """The config as it is, but for the rule file's path in the container (promtool reads
    the rule files a config names): the repository's alerts.yml that Compose mounts there."""
    config = yaml.safe_load(PROMETHEUS_YML.read_text())
    mounts = prometheus_mounts()
    config["rule_files"] = [str(mounts[r]) for r in config["rule_files"]]
    checked = tmp_path / "prometheus.yml"
    checked.write_text(yaml.safe_dump(config))
    done = subprocess.run([PROMTOOL, "check", "config", str(checked)], capture_output=True,
                          text=True, timeout=60)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "SUCCESS: 1 rule files found" in out and "is valid prometheus config" in out, out
    rules = sum(len(g["rules"]) for g in yaml.safe_load(ALERTS.read_text())["groups"])
    assert f"SUCCESS: {rules} rules found" in out, out


def test_promtool_rule_tests_ratios_are_zero_while_healthy_and_alerts_fire_on_errors(tmp_path):
    """`promtool test rules` on series made for it: no error (or no non-ai hit, no token) series
    at all gives ratio 0 on the dashboard, not "No data", and FarmModelErrorRate stays silent;
    half the requests failing gives 0.5 and the alert fires once its `for` has passed."""
    window = {"$__rate_interval": "5m", "$__range": "1h", "$platform": ".*"}
    error_ratio = grafana(panel_expr("Model requests: errors and latency p95", "A"), **window)
    zero_token = grafana(panel_expr("Zero-token locates", "A"), **window)
    per_case = grafana(panel_expr("Tokens and cost per case", "A"), **window)
    cost_case = grafana(panel_expr("Tokens and cost per case", "B"), **window)
    model_rule = rule("FarmModelErrorRate")
    ok = 'farm_model_requests_total{job="farm-workers",instance="w1",family="qwen",outcome="ok"}'
    healthy = [
        {"series": ok, "values": "0+60x60"},
        {"series": 'farm_locate_attempts_total{job="farm-workers",instance="w1",tier="ai",'
                   'result="hit"}', "values": "0+10x60"},
        {"series": 'farm_cases_total{job="farm-run",instance="r",platform="web",'
                   'status="passed"}', "values": "0+2x60"},
    ]
    failing = [
        {"series": ok, "values": "0+30x60"},
        {"series": ok.replace('"ok"', '"error"'), "values": "0+30x60"},
    ]
    tests = {
        "rule_files": [str(ALERTS)],
        "evaluation_interval": "1m",
        "tests": [
            {"interval": "1m", "input_series": healthy,
             "alert_rule_test": [{"eval_time": "40m", "alertname": "FarmModelErrorRate",
                                  "exp_alerts": []}],
             "promql_expr_test": [
                 {"expr": error_ratio, "eval_time": "40m",
                  "exp_samples": [{"labels": '{family="qwen"}', "value": 0}]},
                 {"expr": zero_token, "eval_time": "40m",
                  "exp_samples": [{"labels": "{}", "value": 0}]},
                 {"expr": per_case, "eval_time": "40m",
                  "exp_samples": [{"labels": "{}", "value": 0}]},
                 {"expr": cost_case, "eval_time": "40m",
                  "exp_samples": [{"labels": "{}", "value": 0}]},
                 # the alert's own ratio (its threshold taken off) is 0 as well
                 {"expr": model_rule["expr"].strip().rsplit(">", 1)[0], "eval_time": "40m",
                  "exp_samples": [{"labels": '{family="qwen"}', "value": 0}]},
             ]},
            {"interval": "1m", "input_series": failing,
             "alert_rule_test": [
                 {"eval_time": "5m", "alertname": "FarmModelErrorRate", "exp_alerts": []},
                 {"eval_time": "40m", "alertname": "FarmModelErrorRate", "exp_alerts": [
                     {"exp_labels": {"severity": "warning", "family": "qwen"},
                      "exp_annotations": {
                          "summary": "50% of qwen model requests fail",
                          "description": model_rule["annotations"]["description"]}}]}],
             "promql_expr_test": [
                 {"expr": error_ratio, "eval_time": "40m",
                  "exp_samples": [{"labels": '{family="qwen"}', "value": 0.5}]}]},
        ],
    }
    test_file = tmp_path / "ratios.test.yml"
    test_file.write_text(yaml.safe_dump(tests, sort_keys=False))
    done = subprocess.run([PROMTOOL, "test", "rules", str(test_file)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


# ---- the compose config in a real Prometheus, a real run scraped and pushed ---------------------
def le_values(text: str, sample: str) -> set[str]:
    return {s.labels["le"] for f in text_string_to_metric_families(text) for s in f.samples
            if s.name == sample}


def test_compose_prometheus_config_with_a_run_both_scraped_and_pushed(tmp_path, farm,
                                                                       model_server):
    """One run scraped (job farm-run) and pushed (job farm_run, through the pushgateway job):
    the pushed bucket bounds are stored as farm's own /metrics writes them (the heatmap has
    each bucket once), the pushed device and queue gauges are not stored, the error-ratio
    panel has a value per model family with every request ok, and Prometheus sends firing
    alerts to the Alertmanager address of the config. Both jobs hold the run's counts: a run
    that is both scraped and pushed is counted twice — hence one way per run
    (tests/unit/test_deploy.py). (Absent numerator series: the promtool test above.)"""
    srv = model_server(by_progress(SHOPPING))
    gateway = Pushgateway(tmp_path).start()
    manager = AlertSink()
    probe = tmp_path / "probe-rules.yml"
    probe.write_text(yaml.safe_dump(PROBE_RULES))
    run_port = free_port()
    prom = DeployPrometheus(tmp_path, local_config(
        {"farm-workers": [], "farm-run": [f"127.0.0.1:{run_port}"],
         "pushgateway": [gateway.url.removeprefix("http://")]},
        [manager.address], extra_rules=[probe])).start()
    try:
        proc = farm.run("run", ROOT / "suites" / "demo", "--devices", "browser:1", "-k",
                        "shopping or login_success", "--no-progress",
                        "--report-dir", tmp_path / "run", "--metrics-port", str(run_port),
                        "--pushgateway", gateway.url, "--model", MODEL,
                        "--model-base-url", srv.base_url, "--timeout", "300",
                        FARM_METRICS_LINGER_SECONDS="120", timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "nothing scraped" not in proc.stdout + proc.stderr
        summary = results(tmp_path / "run")
        passed = summary["counts"]["passed"]
        assert passed == 2 and len(srv.raw) > 0
        pushed = gateway.exposition()

        def both_jobs() -> dict[str, float] | None:
            got = prom.values('sum by (job) (last_over_time(farm_cases_total{status="passed"}'
                              '[10m]))', "job")
            return got if got == {"farm-run": passed, "farm_run": passed} else None
        wait_for(both_jobs, 60, f"Prometheus holding {passed} passed from farm-run and farm_run")

        # bucket bounds: one spelling, farm's own (le="1.0"), though the gateway writes le="1"
        scraped_le = le_values((tmp_path / "run" / "metrics.prom").read_text(),
                               "farm_case_duration_seconds_bucket")
        assert "1.0" in scraped_le and "1" in le_values(pushed, "farm_case_duration_seconds_bucket")
        for job in ("farm-run", "farm_run"):
            stored = prom.values(f'group by (le) (last_over_time(farm_case_duration_seconds_bucket'
                                 f'{{job="{job}"}}[10m]))', "le")
            assert set(stored) == scraped_le, job
        heatmap = grafana(panel_expr("Agent iterations per case", "A"),
                          **{"$__interval": "1s", "$platform": ".*"})    # (the scrape's)
        buckets = le_values((tmp_path / "run" / "metrics.prom").read_text(),
                            "farm_agent_iterations_bucket")
        assert len(buckets) == 13
        # the panel is a difference: it has values once Prometheus holds two samples of a series
        # (a loaded machine may not have scraped twice yet): wait for them, then compare
        shown = wait_for(lambda: prom.query(heatmap) or None, 120, "the heatmap's buckets")
        assert sorted(s["metric"]["le"] for s in shown) == sorted(buckets)

        # the gateway keeps the run's last device / queue state; Prometheus does not store it
        assert "farm_device_quarantined{" in pushed and "farm_queue_depth{" in pushed
        for gauge in ("farm_device_healthy", "farm_device_quarantined", "farm_queue_depth"):
            jobs = prom.values(f"count by (job) (last_over_time({gauge}[10m]))", "job")
            assert set(jobs) == {"farm-run"}, gauge

        # model requests all ok: the error ratio is 0 (or NaN while a rate is still 0), per
        # family the requests have — not absent
        ratio = prom.query(grafana(panel_expr("Model requests: errors and latency p95", "A"),
                                   **{"$__rate_interval": "10m"}))
        families = prom.values("sum by (family) (last_over_time(farm_model_requests_total"
                               "[10m]))", "family")
        assert families and {s["metric"]["family"] for s in ratio} == set(families)
        assert all(float(s["value"][1]) == 0 or math.isnan(float(s["value"][1]))
                   for s in ratio), ratio

        # alerts leave through the config's alerting block
        wait_for(lambda: [a["url"] for a in prom.api("alertmanagers")["activeAlertmanagers"]]
                 == [f"http://{manager.address}/api/v2/alerts"], 60,
                 "Prometheus using the configured Alertmanager address")
        manager.wait(lambda path, body: path == "/api/v2/alerts" and any(
            a["labels"].get("alertname") == "DeployCheckAlwaysFiring" for a in body) or None,
            60, "alert POSTed to the Alertmanager address")
    except BaseException:
        print(prom.log()[-5000:])
        raise
    finally:
        prom.stop()
        gateway.stop()
        manager.stop()


# ---- Alertmanager -----------------------------------------------------------------------------
needs_alertmanager = pytest.mark.skipif(
    not (ALERTMANAGER and AMTOOL),
    reason="Debian's prometheus-alertmanager (alertmanager + amtool) is not installed")


@needs_alertmanager
def test_amtool_accepts_the_alertmanager_config_and_routes_farm_alerts():
    done = subprocess.run([AMTOOL, "check-config", str(ALERTMANAGER_YML)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr
    config = yaml.safe_load(ALERTMANAGER_YML.read_text())
    receivers = {r["name"] for r in config["receivers"]}
    for alert in [r for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]]:
        labels = [f"alertname={alert['alert']}",
                  *(f"{k}={v}" for k, v in alert.get("labels", {}).items())]
        routed = subprocess.run([AMTOOL, "config", "routes", "test",
                                 f"--config.file={ALERTMANAGER_YML}", *labels],
                                capture_output=True, text=True, timeout=60)
        assert routed.returncode == 0, routed.stdout + routed.stderr
        assert routed.stdout.split() and set(routed.stdout.split()) <= receivers, routed.stdout


@needs_alertmanager
def test_a_firing_alert_reaches_the_alertmanager_receiver(tmp_path):
    """Prometheus (the compose config) → a real Alertmanager running alertmanager.yml, its
    placeholder webhook URL pointed at a local one and its group_wait shortened → the webhook
    gets the alert, from the configured receiver."""
    hook = AlertSink()
    config = yaml.safe_load(ALERTMANAGER_YML.read_text())
    hooks = [w for r in config["receivers"] for w in r.get("webhook_configs", [])]
    assert hooks, "the shipped receiver is a webhook (a placeholder to edit)"
    for w in hooks:
        w["url"] = f"http://{hook.address}/farm-alerts"
    config["route"]["group_wait"] = "1s"
    am = Alertmanager(tmp_path / "alertmanager", config)
    probe = tmp_path / "probe-rules.yml"
    probe.write_text(yaml.safe_dump(PROBE_RULES))
    prom = None
    try:
        am.start()
        prom = DeployPrometheus(tmp_path, local_config(
            {"farm-workers": [], "farm-run": [], "pushgateway": []},
            [f"127.0.0.1:{am.port}"], extra_rules=[probe])).start()
        body = hook.wait(lambda path, body: body if path == "/farm-alerts" and any(
            a["labels"].get("alertname") == "DeployCheckAlwaysFiring"
            for a in body["alerts"]) else None, 90, "the probe alert at the webhook")
        assert body["receiver"] == config["route"]["receiver"] and body["status"] == "firing"
    except BaseException:
        print(am.log()[-3000:])
        if prom is not None:
            print(prom.log()[-3000:])
        raise
    finally:
        if prom is not None:
            prom.stop()
        am.stop()
        hook.stop()
