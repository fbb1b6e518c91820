"""A run both served for scraping (--metrics-port) and pushed (--pushgateway) is stored twice
by Prometheus, every sum on the dashboard and in the alerts counting its cases twice; farm took
both silently. It now says so in one warning as the run starts, before any push."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.support.farm_cli import PLUGIN, FarmCli
from tests.support.redis_server import free_port
from tests.support.suites import write_case

SAID = "will be stored twice"


def _run(farm: FarmCli, tmp_path: Path, *args: str, **env: str):
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    with socket.socket() as bound:       # bound, not listening: a Pushgateway that is down
        bound.bind(("127.0.0.1", 0))
        gateway = f"127.0.0.1:{bound.getsockname()[1]}"
        outputs = () if "--collect-only" in args else (
            "--overwrite", "--report-dir", tmp_path / "run")
        return farm.run("run", suite, "--devices", "fake:1", "--no-progress", *outputs,
                        *[a.replace("GATEWAY", gateway) for a in args],
                        FARM_DEVICE_PLUGINS=PLUGIN, FARM_METRICS_LINGER_SECONDS="0",
                        FARM_PUSHGATEWAY_TIMEOUT="2",
                        **{k: v.replace("GATEWAY", gateway) for k, v in env.items()})


def _warning(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if SAID in line]


def test_a_run_scraped_and_pushed_says_it_once_before_any_push(tmp_path, farm) -> None:
    port = str(free_port())
    done = _run(farm, tmp_path, "--metrics-port", port, "--pushgateway", "GATEWAY")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    said = _warning(done.stderr)
    assert len(said) == 1, done.stderr
    assert said[0].startswith(f"farm: warning: --metrics-port {port} and --pushgateway "), said
    assert "give only one" in said[0], said
    pushes = [i for i, line in enumerate(lines) if "push" in line and SAID not in line]
    assert pushes and lines.index(said[0]) < min(pushes), done.stderr     # (the gateway is down)


def test_the_settings_are_named_as_set(tmp_path, farm) -> None:
    done = _run(farm, tmp_path, FARM_METRICS_PORT=str(free_port()),
                FARM_PUSHGATEWAY_URL="http://user:pw-sre51@GATEWAY")
    said = _warning(done.stderr)
    assert len(said) == 1 and "FARM_METRICS_PORT" in said[0], done.stderr
    assert "FARM_PUSHGATEWAY_URL http://user:***@127.0.0.1:" in said[0], said
    assert "pw-sre51" not in done.stderr


def test_one_of_them_or_collecting_only_says_nothing(tmp_path, farm) -> None:
    alone = _run(farm, tmp_path, "--metrics-port", str(free_port()))
    assert alone.returncode == 0 and not _warning(alone.stderr), alone.stderr
    listed = _run(farm, tmp_path, "--collect-only", "--metrics-port", str(free_port()),
                  "--pushgateway", "GATEWAY")
    assert listed.returncode == 0 and not _warning(listed.stderr), listed.stderr
