"""deploy/ as a DevOps engineer wiring it up found it: the README's `--scale worker=4` then
`docker compose run … run` ran `--devices browser:2` (2 of 4 workers used); the image's
HEALTHCHECK (9464/healthz) was inherited by the `run` service and `docker run farm run …`,
which serve no /healthz, so they turned unhealthy after 60 s; REDIS_PASSWORD fell back to
`change-me` without a word. Compose's own interpolation (`${VAR:-default}`, `${VAR:?message}`,
`$$`) is applied here as `docker compose config` applies it (no container runtime here)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
_VARIABLE = re.compile(r"\$(?:(\$)|\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|([A-Za-z_]\w*))")


class Refused(Exception):
    """What Compose says when a required variable is not set (and it starts nothing)."""


def interpolated(value: Any, env: dict[str, str]) -> Any:
    """``value`` (compose.yaml, loaded) with variables filled in from ``env`` as Compose does."""
    if isinstance(value, dict):
        return {k: interpolated(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolated(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def fill(m: re.Match) -> str:
        if m.group(1):
            return "$"
        name = m.group(2) or m.group(6)
        found = env.get(name)
        missing = found is None or (m.group(3) == ":" and found == "")
        if m.group(4) == "?" and missing:
            raise Refused(f"required variable {name} is missing a value: {m.group(5)}")
        return m.group(5) if m.group(4) == "-" and missing else (found or "")
    return _VARIABLE.sub(fill, value)


def compose(env: dict[str, str]) -> dict[str, Any]:
    return interpolated(yaml.safe_load((DEPLOY / "compose.yaml").read_text()), env)


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_compose_refuses_to_start_without_a_redis_password() -> None:
    with pytest.raises(Refused, match="^required variable REDIS_PASSWORD is missing a value: "
                                      r"set REDIS_PASSWORD \(the password of the farm Redis\)$"):
        compose({})
    with pytest.raises(Refused):
        compose({"REDIS_PASSWORD": ""})         # (an unset variable exported empty)
    services = compose({"REDIS_PASSWORD": "s3cret"})["services"]
    assert option(services["redis"]["command"], "--requirepass") == "s3cret"
    for name in ("worker", "android-worker", "ios-worker", "run"):
        broker = services[name]["environment"]["FARM_BROKER_URL"]
        assert broker == "redis://:s3cret@redis:6379/0", (name, broker)
    assert "change-me" not in (DEPLOY / "compose.yaml").read_text()


@pytest.mark.parametrize("env", [{}, {"FARM_WORKERS": "4"}])
def test_the_run_service_holds_as_many_browsers_as_compose_starts_workers(env) -> None:
    services = compose({"REDIS_PASSWORD": "s3cret", **env})["services"]
    workers = int(services["worker"]["deploy"]["replicas"])
    assert workers == int(env.get("FARM_WORKERS", 2))
    assert option(services["run"]["command"], "--devices") == f"browser:{workers}"


def test_the_documented_commands_scale_workers_with_the_variable_the_run_reads() -> None:
    """`--scale worker=N` reaches the workers, not the run's --devices: not what to tell."""
    for doc in (DEPLOY / "README.md", DEPLOY / "compose.yaml"):
        text = doc.read_text()
        commands = [line for line in text.splitlines() if "docker compose" in line]
        assert commands and not any("--scale worker" in line for line in commands), doc
        assert "FARM_WORKERS=" in text and "REDIS_PASSWORD=" in text, doc


def _healthcheck_url(argv: list[str]) -> str:
    found = re.search(r"urlopen\('(http://127\.0\.0\.1:\d+/\w+)'", " ".join(argv))
    assert found, argv
    return found.group(1)


def test_only_worker_containers_are_health_checked_on_the_port_they_serve() -> None:
    """The image has no HEALTHCHECK (a `farm run` container, compose's or `docker run farm
    run …`, serves no /healthz and read "unhealthy"); each worker service polls its own
    /metrics port's /ready."""
    from farm.config import Settings
    steps = [line.split(None, 1) for line in (DEPLOY / "Dockerfile").read_text().splitlines()
             if line.strip() and not line.startswith((" ", "#"))]
    checks = [arg for op, *arg in steps if op == "HEALTHCHECK"]
    assert checks in ([], [["NONE"]]), checks
    services = compose({"REDIS_PASSWORD": "s3cret"})["services"]
    farm = {n: s for n, s in services.items() if s.get("image", "").startswith("farm")}
    port = Settings().worker_metrics_port
    for name, svc in farm.items():
        check = svc.get("healthcheck")
        if svc["command"][0] == "worker":
            assert check and _healthcheck_url(check["test"]) == \
                f"http://127.0.0.1:{port}/ready", name
        else:
            assert check is None or check.get("disable") is True, (name, json.dumps(check))
    assert {n for n, s in farm.items() if s["command"][0] == "worker"} == \
        {"worker", "android-worker", "ios-worker"}
