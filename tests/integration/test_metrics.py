"""Prometheus metrics end to end: a real Prometheus scrapes real `farm worker`s and a
`farm run --metrics-port` running demo cases (one of them with the AI agent, against the
scripted model server) through the cluster; what it stored agrees with results.json, and every
PromQL expression of deploy/grafana/farm.json and deploy/prometheus/alerts.yml evaluates on
it. The local executor's metrics.prom agrees with its results.json too, and a real Pushgateway
receives the same."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.agent_scripts import XML_FLOW, by_progress
from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import ROOT, FarmCli, results, wait_for
from tests.support.prometheus import PROMTOOL, Prometheus, PromQLError, Pushgateway
from tests.support.redis_server import free_port

pytestmark = pytest.mark.integration

ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "farm.json"
SHOPPING = [a for a in XML_FLOW if "DEMO_PASSWORD" not in a]
MODEL = "openai/scripted-vlm"
STATUSES = ("passed", "failed", "error", "flaky", "skipped", "interrupted")
# Grafana's variables, as a dashboard would fill them in
GRAFANA_VARS = {"$__rate_interval": "1m", "$__range": "1h", "$__interval": "15s",
                "$platform": ".*"}


def demo_suite(tmp_path: Path) -> Path:
    """Four demo cases: the AI one, two that pass without a model, one that fails."""
    suite = tmp_path / "demo"
    suite.mkdir()
    shutil.copytree(ROOT / "suites" / "demo" / "app", suite / "app")
    for name in ("farm.yaml", "ai_shopping.yaml", "login_success.yaml", "logout.yaml"):
        shutil.copy(ROOT / "suites" / "demo" / name, suite / name)
    wrong = (ROOT / "tests" / "integration" / "suites" / "faults" / "wrong_text.yaml")
    shutil.copy(wrong, suite / "wrong_text.yaml")
    return suite


def attempts(summary: dict) -> list[dict]:
    return [a for c in summary["cases"] for a in [c, *c.get("previous", [])]]


def token_totals(summary: dict) -> dict[str, float]:
    """Tokens of every attempt in results.json (retried attempts spent tokens too)."""
    out = {"prompt": 0.0, "completion": 0.0}
    for a in attempts(summary):
        for kind in out:
            out[kind] += (a.get("usage") or {}).get(f"{kind}_tokens", 0)
    return out


def rounds(summary: dict) -> list[int]:
    """Agent rounds per final case that ran ai steps, every attempt's."""
    per_case = [[s["rounds"] for a in [c, *c.get("previous", [])] for s in a["steps"]
                 if s.get("rounds") is not None] for c in summary["cases"]]
    return [sum(r) for r in per_case if r]


def prom_file(path: Path) -> dict[str, dict[tuple, float]]:
    """metrics.prom: sample name → {sorted label items: value}."""
    out: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(path.read_text()):
        for s in family.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out


def by_label(samples: dict[tuple, float], label: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for labels, value in samples.items():
        key = dict(labels).get(label, "")
        out[key] = out.get(key, 0.0) + value
    return out


def model_args(base_url: str) -> list[str]:
    """The scripted model; a case timeout for a loaded machine (not what is measured)."""
    return ["--model", MODEL, "--model-base-url", base_url, "--timeout", "300"]


# ---- local executor --------------------------------------------------------------------------
def test_local_run_metrics_prom_and_pushgateway_agree_with_results_json(tmp_path, farm,
                                                                        model_server):
    srv = model_server(by_progress(SHOPPING))
    gateway = Pushgateway(tmp_path).start()
    try:
        proc = farm.run("run", demo_suite(tmp_path), "--devices", "browser:2", "--no-progress",
                        "--report-dir", tmp_path / "run", "--pushgateway", gateway.url,
                        *model_args(srv.base_url), timeout=600)
        pushed = gateway.exposition()
    finally:
        gateway.stop()
    assert proc.returncode == 1, proc.stdout + proc.stderr          # wrong_text fails
    summary = results(tmp_path / "run")
    prom = prom_file(tmp_path / "run" / "metrics.prom")
    # the Pushgateway holds what metrics.prom says, under job farm_run
    at_gateway = [s for f in text_string_to_metric_families(pushed) for s in f.samples
                  if s.name == "farm_cases_total" and s.labels.get("job") == "farm_run"]
    assert {s.labels["status"]: s.value for s in at_gateway} == \
        by_label(prom["farm_cases_total"], "status")
    counted = by_label(prom["farm_cases_total"], "status")
    assert {s: counted.get(s, 0) for s in STATUSES} == \
        {s: summary["counts"][s] for s in STATUSES}
    assert summary["counts"]["passed"] == 3 and summary["counts"]["failed"] == 1
    tokens = token_totals(summary)
    assert tokens["prompt"] > 0
    # the run-level series (from the results) and the model client's agree with results.json
    assert by_label(prom["farm_case_tokens_total"], "kind") == tokens
    assert by_label(prom["farm_model_tokens_total"], "kind") == tokens
    calls = sum((a.get("usage") or {}).get("calls", 0) for a in attempts(summary))
    # the family's other outcomes are there at 0 (an error rate has a base to count from)
    assert by_label(prom["farm_model_requests_total"], "outcome") == \
        {"ok": calls, "error": 0, "timeout": 0, "interrupted": 0}
    assert calls == len(srv.raw)
    assert list(prom["farm_agent_iterations_count"].values()) == [len(rounds(summary))] == [1]
    assert list(prom["farm_agent_iterations_sum"].values()) == [sum(rounds(summary))]
    hits = by_label({k: v for k, v in prom["farm_locate_attempts_total"].items()
                     if ("result", "hit") in k}, "tier")
    assert hits.get("text", 0) > 0
    devices = by_label(prom["farm_device_healthy"], "device")
    assert set(devices) == {"browser-1", "browser-2"}
    # locate-cache lookups as the steps' cache records say (a fresh state dir: none hit; a
    # target the page text found is no cache miss)
    used = [st["cache"] for a in attempts(summary) for st in a["steps"] if st.get("cache")]
    lookups = {r: sum(u[k] for u in used) for r, k in
               (("hit", "hits"), ("miss", "misses"), ("stale", "stale"))}
    locate = by_label({k: v for k, v in prom.get("farm_cache_requests_total", {}).items()
                       if ("cache", "locate") in k}, "result")
    assert lookups["hit"] == 0 and locate == lookups    # results none had: there at 0


# ---- cluster, scraped by a real Prometheus ---------------------------------------------------
def metrics_ports(farm: FarmCli, n: int) -> list[int]:
    """The /metrics ports the workers' ready lines announce."""
    def found() -> list[int] | None:
        ports = re.findall(r"ready \(queues [^)]*, metrics :(\d+)\)", farm.worker_logs())
        return [int(p) for p in ports] if len(ports) >= n else None
    return wait_for(found, 120, f"{n} workers announcing their /metrics port")


def grafana_exprs() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    exprs += [v["query"]["query"].replace("label_values(", "group by (platform) (")
              .replace(", platform)", ")") for v in dashboard["templating"]["list"]
              if v["type"] == "query"]
    filled = []
    for expr in exprs:
        for var, value in GRAFANA_VARS.items():
            expr = expr.replace(var, value)
        assert "$" not in expr, expr
        filled.append(expr)
    return filled


def rule_exprs() -> list[str]:
    import yaml
    return [r["expr"] for g in yaml.safe_load(ALERTS.read_text())["groups"] for r in g["rules"]]


def get_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.cluster
def test_prometheus_scrapes_workers_and_the_run_and_agrees_with_results_json(
        tmp_path, redis_url, workers, farm, model_server):
    srv = model_server(by_progress(SHOPPING))
    workers("browser:2", "--metrics-port", str(free_port()), FARM_MODEL=MODEL,
            FARM_MODEL_BASE_URL=srv.base_url)
    ports = metrics_ports(farm, 2)
    wait_idle(redis_url, 2)
    run_port = free_port()
    prom = Prometheus(tmp_path, {"farm-workers": [f"127.0.0.1:{p}" for p in ports],
                                 "farm-run": [f"127.0.0.1:{run_port}"]}, rules=[ALERTS]).start()
    try:
        proc = farm.start("run", demo_suite(tmp_path), "--broker", redis_url, "--devices",
                          "browser:2", "--no-progress", "--report-dir", tmp_path / "run",
                          "--metrics-port", str(run_port), *model_args(srv.base_url),
                          FARM_METRICS_LINGER_SECONDS="120", **CLUSTER_ENV)
        out = proc.finish(600)
        assert proc.returncode == 1, out
        assert "nothing scraped" not in out          # Prometheus collected the final values
        summary = results(tmp_path / "run")
        check_run_series(prom, summary, tmp_path / "run" / "metrics.prom")
        check_worker_series(prom, summary, ports)
        check_dashboard_and_rules(prom)
    except BaseException:
        print(prom.log()[-5000:])
        raise
    finally:
        prom.stop()


def check_run_series(prom: Prometheus, summary: dict, metrics_prom: Path) -> None:
    """Cases and tokens come from `farm run` alone, as results.json says; no model series."""
    expected = {s: summary["counts"][s] for s in STATUSES}

    def final_counts() -> dict[str, float] | None:
        # `farm run` exits once its last scrape is written out; Prometheus stores it a moment
        # later, as it reads it in
        counts = prom.values('sum by (status) (last_over_time(farm_cases_total{job="farm-run"}'
                             '[10m]))', "status")
        return counts if {s: counts.get(s, 0) for s in STATUSES} == expected else None
    counts = wait_for(final_counts, 30, f"Prometheus holding the run's final counts {expected}")
    assert counts["passed"] == 3 and counts["failed"] == 1
    tokens = token_totals(summary)
    assert tokens["prompt"] > 0
    assert prom.values('sum by (kind) (last_over_time(farm_case_tokens_total[10m]))',
                       "kind") == tokens
    assert prom.query('last_over_time(farm_model_requests_total{job="farm-run"}[10m])') == []
    iterations = prom.values('sum(last_over_time(farm_agent_iterations_sum[10m]))', "")
    assert iterations == {"": float(sum(rounds(summary)))} and sum(rounds(summary)) > 0
    # metrics.prom of the run says the same (and has no model series: none were called here)
    local = prom_file(metrics_prom)
    assert by_label(local["farm_cases_total"], "status")["passed"] == 3
    assert by_label(local["farm_case_tokens_total"], "kind") == tokens
    assert "farm_model_tokens_total" not in local


def check_worker_series(prom: Prometheus, summary: dict, ports: list[int]) -> None:
    """Model calls, locates, screenshots and devices come from the workers, counted once."""
    ended = datetime.fromisoformat(summary["finished"]).timestamp()
    wait_for(lambda: prom.scraped_since("farm-workers", ended), 60,
             "every worker scraped after the run ended")
    tokens = token_totals(summary)
    wait_for(lambda: prom.values(
        'sum by (kind) (farm_model_tokens_total{job="farm-workers"})', "kind") == tokens,
        60, "the workers' model tokens equal to results.json's")
    calls = sum((a.get("usage") or {}).get("calls", 0) for a in attempts(summary))
    # each series' last scraped value (last_over_time): a later scrape that fails (a loaded
    # worker past the 1 s timeout) marks its series stale, and an instant query would miss them
    assert prom.values('sum(last_over_time(farm_model_requests_total{outcome="ok"}[1m]))',
                       "") == {"": calls}
    hits = prom.values('sum by (tier) (last_over_time(farm_locate_attempts_total'
                       '{result="hit"}[1m]))', "tier")
    assert hits.get("text", 0) > 0
    assert prom.values('sum(last_over_time(farm_device_healthy{job="farm-workers"}[1m]))',
                       "") == {"": 2.0}
    assert prom.values('count(last_over_time(farm_build_info{role="worker"}[1m]))',
                       "") == {"": 2.0}
    assert prom.query('time() - farm_worker_heartbeat_timestamp_seconds > 60') == []
    assert prom.query('farm_cases_total{job="farm-workers"}') == []
    assert [get_status(f"http://127.0.0.1:{p}/ready") for p in ports] == [200, 200]


def check_dashboard_and_rules(prom: Prometheus) -> None:
    """Every dashboard and alert expression evaluates, naming only series farm exported."""
    exprs = grafana_exprs() + rule_exprs()
    errors = []
    for expr in exprs:
        try:
            prom.query(expr)
        except PromQLError as exc:
            errors.append(str(exc))
    assert not errors, "\n".join(errors)
    known = set(prom.api("label/__name__/values"))
    used = {name for expr in exprs for name in re.findall(r"\bfarm_[a-z_]+", expr)}
    assert used and used <= known, f"not exported by farm: {sorted(used - known)}"

    def evaluated() -> list[dict] | None:
        rules = [r for g in prom.api("rules")["groups"] for r in g["rules"]]
        return rules if rules and all(r.get("lastEvaluation", "").startswith("2")
                                      and not r["lastEvaluation"].startswith("0001")
                                      for r in rules) else None
    rules = wait_for(evaluated, 60, "every alert rule evaluated")
    assert len(rules) == len(rule_exprs())
    assert [(r["name"], r["health"], r.get("lastError", "")) for r in rules
            if r["health"] != "ok"] == []


def test_promtool_accepts_the_alert_rules():
    done = subprocess.run([PROMTOOL, "check", "rules", str(ALERTS)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(rule_exprs())} rules found" in done.stdout
