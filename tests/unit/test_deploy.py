"""deploy/ and helm/farm/ as far as they can be checked without a container runtime or helm:
the chart's values against values.schema.json, every ``.Values.x`` its templates use,
compose.yaml against the Compose specification's JSON schema (vendored:
tests/schemas/compose-spec.json), and the commands the image, Compose and the chart start are
real `farm` commands and options. (PromQL and the rules: tests/integration/test_metrics.py.)"""

from __future__ import annotations

import copy
import json
import re
import shlex
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest
import yaml

from farm.cli import cli

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
CHART = ROOT / "helm" / "farm"


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


# ---- the chart ----------------------------------------------------------------------------------
def chart_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((CHART / "values.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_chart_values_validate_against_the_values_schema() -> None:
    validator = chart_validator()
    values = load_yaml(CHART / "values.yaml")
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(values)]
    assert not errors, errors


@pytest.mark.parametrize("path, bad", [
    (("metrics", "port"), "9464"),                     # a string where a port goes
    (("pools", 0, "replicas"), -1),
    (("pools", 0, "name"), "Browser Pool"),            # not a Kubernetes name
    (("broker", "url"), "amqp://rabbit"),              # farm's broker is Redis
    (("metrics", "serviceMonitor", "intervall"), "15s"),   # a typo'd key
])
def test_the_values_schema_rejects_mistakes(path: tuple, bad: Any) -> None:
    values = copy.deepcopy(load_yaml(CHART / "values.yaml"))
    node = values
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = bad
    assert list(chart_validator().iter_errors(values)), f"{path} = {bad!r} was accepted"


def _helm_set(values: dict, assignments: str) -> dict:
    """``values`` after ``helm install --set assignments`` as helm applies them: the --set
    values are parsed into a map of their own and merged over values.yaml, a list replacing
    the chart's list whole (helm/helm#11734), not merging item by item."""
    given: dict = {}
    for assignment in assignments.split(","):
        path, value = assignment.split("=", 1)
        keys: list[Any] = [int(k[1:-1]) if k.startswith("[") else k
                           for k in re.findall(r"[A-Za-z_]\w*|\[\d+\]", path)]
        node: Any = given
        for key, nxt in zip(keys, keys[1:]):
            if isinstance(key, int):
                node.extend({} for _ in range(key + 1 - len(node)))
                node = node[key]
            else:
                node = node.setdefault(key, [] if isinstance(nxt, int) else {})
        node[keys[-1]] = yaml.safe_load(value)
    return {**copy.deepcopy(values), **given}


def test_the_readmes_helm_install_command_gives_values_the_chart_accepts() -> None:
    """A `--set pools[0].replicas=4` alone would leave a pool without its name and kind."""
    readme = (ROOT / "README.md").read_text()
    commands = [shlex.split(line.split("#")[0]) for line in readme.splitlines()
                if line.strip().startswith("helm install")]
    assert commands, "the README shows no helm install command"
    for argv in commands:
        values = load_yaml(CHART / "values.yaml")
        for i, arg in enumerate(argv):
            if arg == "--set":
                values = _helm_set(values, argv[i + 1])
        errors = [e.message for e in chart_validator().iter_errors(values)]
        assert not errors, (argv, errors)


_VALUES_REF = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def test_every_values_reference_in_the_templates_exists_in_values_yaml() -> None:
    values = load_yaml(CHART / "values.yaml")
    missing = []
    refs = 0
    for template in sorted((CHART / "templates").iterdir()):
        for match in _VALUES_REF.finditer(template.read_text()):
            refs += 1
            node: Any = values
            for key in match.group(1).strip(".").split("."):
                if not isinstance(node, dict) or key not in node:
                    missing.append(f"{template.name}: .Values{match.group(1)}")
                    break
                node = node[key]
    assert refs > 20 and not missing, missing


def test_chart_files_are_the_deploy_rules_and_dashboard() -> None:
    assert (CHART / "files" / "alerts.yml").resolve() == (DEPLOY / "prometheus" / "alerts.yml")
    assert (CHART / "files" / "farm.json").resolve() == (DEPLOY / "grafana" / "farm.json")
    for template, name in (("prometheusrule.yaml", "files/alerts.yml"),
                           ("dashboard.yaml", "files/farm.json")):
        assert f'.Files.Get "{name}"' in (CHART / "templates" / template).read_text()


# ---- the commands everything starts --------------------------------------------------------------
def assert_farm_command(argv: list[str], where: str) -> None:
    """``argv`` (after ``farm``) names a farm subcommand and only options it has."""
    command = cli.commands.get(argv[0])
    assert isinstance(command, click.Command), f"{where}: no `farm {argv[0]}`"
    known = {o for p in command.params for o in getattr(p, "opts", [])}
    used = {a.split("=", 1)[0] for a in argv[1:] if a.startswith("-")}
    assert used <= known, f"{where}: `farm {argv[0]}` has no {sorted(used - known)}"


def dockerfile() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    return [tuple(line.split(None, 1)) for line in text.splitlines()  # type: ignore[misc]
            if line.strip() and not line.lstrip().startswith("#")]


def test_the_image_entry_point_is_the_farm_console_script_and_its_command_a_farm_command() -> None:
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    steps = dockerfile()
    entry = json.loads(next(arg for op, arg in steps if op == "ENTRYPOINT"))
    cmd = json.loads(next(arg for op, arg in steps if op == "CMD"))
    assert entry == ["farm"] and scripts["farm"] == "farm.entry:main"
    assert_farm_command(cmd, "Dockerfile CMD")
    for op, arg in steps:
        if op == "COPY":
            *sources, _ = arg.split()
            for src in sources:
                assert (ROOT / src).exists(), f"Dockerfile copies {src}: not in the repository"


def compose() -> dict[str, Any]:
    return load_yaml(DEPLOY / "compose.yaml")


def test_compose_file_validates_against_the_compose_specification() -> None:
    schema = json.loads((ROOT / "tests" / "schemas" / "compose-spec.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(compose())]
    assert not errors, errors


def test_compose_services_run_farm_commands_and_mount_files_that_exist() -> None:
    services = compose()["services"]
    farm_services = [n for n, s in services.items() if s.get("image", "").startswith("farm")]
    assert {"worker", "run"} <= set(farm_services)
    for name in farm_services:
        svc = services[name]
        assert (DEPLOY / svc["build"]["context"] / svc["build"]["dockerfile"]).resolve() == \
            (DEPLOY / "Dockerfile")
        # ${VAR:-default} in a command is filled in by Compose: check the default
        argv = [re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", a) for a in svc["command"]]
        assert_farm_command(argv, f"compose service {name}")
    for svc in services.values():
        for volume in svc.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"compose mounts {source}: missing"


def test_prometheus_config_loads_the_mounted_rules_and_scrapes_the_worker_port() -> None:
    prom = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")
    mounts = {v.split(":")[1]: v.split(":")[0] for v in compose()["services"]["prometheus"]
              ["volumes"] if v.startswith(".")}
    for rule_file in prom["rule_files"]:
        assert (DEPLOY / mounts[rule_file]).resolve() == DEPLOY / "prometheus" / "alerts.yml"
    jobs = {j["job_name"]: j for j in prom["scrape_configs"]}
    from farm.config import Settings
    assert jobs["farm-workers"]["dns_sd_configs"][0]["port"] == Settings().worker_metrics_port


def test_chart_workers_run_a_farm_command() -> None:
    text = (CHART / "templates" / "workers.yaml").read_text()
    args = re.search(r"args: \[(.*?)\]", text, re.S).group(1)
    argv = [a for a in shlex.split(re.sub(r"\{\{.*?\}\}", "X", args).replace(",", " "))]
    assert_farm_command(argv, "helm workers.yaml")
    assert "/healthz" in text and "/ready" in text


# ---- Compose and its Prometheus: every device scraped, alerts delivered, each run counted once ---
def prometheus_config() -> dict[str, Any]:
    return load_yaml(DEPLOY / "prometheus" / "prometheus.yml")


def filled(argv: list[str]) -> list[str]:
    """A compose command with ``${VAR:-default}`` as Compose fills it in without VAR."""
    return [re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", a) for a in argv]


def option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def target_service(target: str) -> tuple[str, dict[str, Any], str]:
    """``service:port`` of a Prometheus target → (service name, that compose service, port)."""
    host, port = target.rsplit(":", 1)
    services = compose()["services"]
    assert host in services, f"Prometheus targets {target}: no compose service {host}"
    return host, services[host], port


def test_every_compose_worker_container_runs_one_device_on_the_port_prometheus_scrapes() -> None:
    """`farm worker --devices KIND:N` serves device i on the first free port from 9464 + i;
    Prometheus scrapes one port per container: so one device per container, replicas for more
    (a phone worker's devices 2..N had no metrics and no alert)."""
    from farm.config import Settings
    services = compose()["services"]
    workers = {name: svc for name, svc in services.items()
               if svc.get("image", "").startswith("farm") and svc["command"][0] == "worker"}
    assert {"worker", "android-worker", "ios-worker"} <= set(workers)
    sd = prometheus_config()["scrape_configs"]
    sd = next(j for j in sd if j["job_name"] == "farm-workers")["dns_sd_configs"]
    scraped = {name: c["port"] for c in sd for name in c["names"]}
    for name, svc in workers.items():
        argv = svc["command"]
        devices = option(argv, "--devices")
        assert devices and re.fullmatch(r"[a-z-]+:1", devices), \
            f"compose service {name} runs --devices {devices}: one device per container"
        assert "replicas" in svc.get("deploy", {}), f"{name}: scale it with deploy.replicas"
        env = svc.get("environment", {})
        port = int(option(filled(argv), "--metrics-port")
                   or env.get("FARM_WORKER_METRICS_PORT", Settings().worker_metrics_port))
        assert scraped.get(name) == port, f"Prometheus does not scrape {name}:{port}"


def test_prometheus_sends_alerts_to_the_compose_alertmanager_and_every_route_has_a_receiver() -> None:
    alerting = prometheus_config()["alerting"]["alertmanagers"]
    targets = [t for am in alerting for sc in am["static_configs"] for t in sc["targets"]]
    assert targets
    for target in targets:
        _, svc, port = target_service(target)
        assert svc["image"].startswith("prom/alertmanager:")
        assert port == "9093" and not any("listen-address" in a for a in svc.get("command", []))
        mounts = {v.split(":")[1]: v.split(":")[0] for v in svc["volumes"] if v.startswith(".")}
        config = option(svc["command"], "--config.file") or next(
            a.split("=", 1)[1] for a in svc["command"] if a.startswith("--config.file="))
        assert (DEPLOY / mounts[config]).resolve() == DEPLOY / "alertmanager" / "alertmanager.yml"
    am = load_yaml(DEPLOY / "alertmanager" / "alertmanager.yml")
    receivers = {r["name"]: r for r in am["receivers"]}

    def routes(route: dict) -> list[dict]:
        return [route, *(r for child in route.get("routes", []) for r in routes(child))]
    for route in routes(am["route"]):
        if "receiver" in route:
            receiver = receivers[route["receiver"]]
            assert any(k.endswith("_configs") and v for k, v in receiver.items()), \
                f"receiver {route['receiver']} delivers nowhere"


def test_the_pushgateway_job_keeps_pushed_labels_and_targets_the_compose_pushgateway() -> None:
    jobs = {j["job_name"]: j for j in prometheus_config()["scrape_configs"]}
    job = jobs["pushgateway"]
    assert job.get("honor_labels") is True      # job farm_run, instance = the pushing host
    for target in [t for sc in job["static_configs"] for t in sc["targets"]]:
        _, svc, port = target_service(target)
        assert svc["image"].startswith("prom/pushgateway:") and port == "9091"
    relabel = job.get("metric_relabel_configs", [])
    assert any(r.get("source_labels") == ["le"] and r.get("target_label") == "le"
               for r in relabel), "bucket bounds pushed as le=\"1\" are not normalised"


def test_the_charts_pushgateway_monitor_relabels_as_the_compose_prometheus_does() -> None:
    """A Kubernetes Prometheus scraping a Pushgateway needs the same rules as Compose's: the
    chart's ServiceMonitor carries them (camelCase), honorLabels on."""
    template = (CHART / "templates" / "pushgateway-servicemonitor.yaml").read_text()
    assert re.search(r"^\s+honorLabels: true$", template, re.M)
    block = template.split("metricRelabelings:\n", 1)[1].split("{{-", 1)[0]
    chart = yaml.safe_load(block)
    names = {"source_labels": "sourceLabels", "target_label": "targetLabel"}
    jobs = {j["job_name"]: j for j in prometheus_config()["scrape_configs"]}
    compose_rules = [{names.get(k, k): v for k, v in rule.items()}
                     for rule in jobs["pushgateway"]["metric_relabel_configs"]]
    assert chart == compose_rules
    values = load_yaml(CHART / "values.yaml")
    assert values["metrics"]["pushgateway"]["serviceMonitor"]["enabled"] is False


def test_no_compose_run_is_both_scraped_and_pushed() -> None:
    """A run with --metrics-port and --pushgateway is in Prometheus twice (jobs farm-run and
    farm_run) and every unfiltered sum counts its cases twice: one way per run."""
    services = compose()["services"]
    runs = {name: svc for name, svc in services.items()
            if svc.get("image", "").startswith("farm") and svc["command"][0] == "run"}
    assert "run" in runs
    for name, svc in runs.items():
        argv, env = svc["command"], svc.get("environment", {})
        scraped = "--metrics-port" in argv or "FARM_METRICS_PORT" in env
        pushed = "--pushgateway" in argv or "FARM_PUSHGATEWAY_URL" in env
        assert not (scraped and pushed), f"compose service {name} is scraped and pushed"
    # the farm-run job scrapes the run service where it serves
    job = next(j for j in prometheus_config()["scrape_configs"] if j["job_name"] == "farm-run")
    (target,) = [t for sc in job["static_configs"] for t in sc["targets"]]
    name, svc, port = target_service(target)
    assert name == "run" and option(filled(svc["command"]), "--metrics-port") == port


def expected_unit(expr: str) -> str:
    names = set(re.findall(r"\bfarm_[a-z_]+", expr))
    if any("_cost_usd_" in n for n in names):
        return "currencyUSD"
    if expr.startswith("histogram_quantile(") and all(n.endswith("_seconds_bucket")
                                                      for n in names):
        return "s"
    if " / " in expr and len(names) == 1:         # a share of one counter: 0..1
        return "percentunit"
    return "short"


def shown_unit(panel: dict[str, Any], ref: str) -> str | None:
    unit = panel["fieldConfig"]["defaults"].get("unit")
    for override in panel["fieldConfig"].get("overrides", []):
        if override["matcher"] == {"id": "byFrameRefID", "options": ref}:
            unit = next((p["value"] for p in override["properties"] if p["id"] == "unit"), unit)
    return unit


def test_every_dashboard_query_is_shown_in_its_unit() -> None:
    """USD as currency, seconds as time, a share as a percentage, counts plain — per query, so
    a panel mixing them (tokens and USD per case; error ratio and p95 latency) overrides it."""
    dashboard = json.loads((DEPLOY / "grafana" / "farm.json").read_text())
    wrong = [(p["title"], t["refId"], shown_unit(p, t["refId"]), expected_unit(t["expr"]))
             for p in dashboard["panels"] for t in p["targets"]
             if shown_unit(p, t["refId"]) != expected_unit(t["expr"])]
    assert not wrong, wrong


def test_the_shipped_redis_keeps_its_data_across_a_restart() -> None:
    """Compose and the chart ran Redis with `--save ""` and no volume: a restart of Redis
    un-quarantined broken devices and wiped the results history (`farm report --history`,
    new-failure verdicts) and the durations longest-first scheduling uses."""
    redis = compose()["services"]["redis"]
    argv = filled(redis["command"])
    assert option(argv, "--appendonly") == "yes" and option(argv, "--save") != "", argv
    data = [v.split(":")[0] for v in redis.get("volumes", []) if v.split(":")[1] == "/data"]
    assert data and data[0] in compose()["volumes"], redis.get("volumes")
    assert load_yaml(CHART / "values.yaml")["redis"]["persistence"]["enabled"] is True
    text = (CHART / "templates" / "redis.yaml").read_text()
    persistent = text.split("{{- if .Values.redis.persistence.enabled }}", 1)[1].split(
        "{{- else }}", 1)[0]
    assert '"--appendonly", "yes"' in persistent and "mountPath: /data" in persistent
    assert "kind: PersistentVolumeClaim" in text and "persistentVolumeClaim:" in text


def test_case_counts_on_the_dashboard_are_whole_numbers() -> None:
    """increase() extrapolates a step-wise pushed counter: 5 failed cases read 5.455 (rounded:
    6) on the "Failures and infra errors" panel. A count of cases (not a ratio) is the
    counter's difference from one point to the next (exact: tests/integration/
    test_dashboard_counts_h1.py); the chart ships the same file
    (test_chart_files_are_the_deploy_rules_and_dashboard)."""
    dashboard = json.loads((DEPLOY / "grafana" / "farm.json").read_text())
    counts = [(p, t["expr"]) for p in dashboard["panels"] for t in p["targets"]
              if "farm_cases_total{" in t["expr"] and " / " not in t["expr"]]
    assert counts, "no panel counts cases"
    for panel, expr in counts:
        assert "increase(" not in expr and "offset $__interval" in expr, (panel["title"], expr)
        assert panel["fieldConfig"]["defaults"].get("decimals") == 0, panel["title"]
