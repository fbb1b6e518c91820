"""FARM_PUSHGATEWAY_INSTANCE: the pushed group's instance label instead of the host name. A CI
runner whose host name is new for every job (a hosted runner, a pod) left one group a job on
the Pushgateway, each kept for ever and scraped for ever (about 200 series a job); with one
name set, every job's run pushes to one group, and its totals go on from the last job's (a new
runner has a new state dir: they are read back from the gateway). Real farm runs, Debian's
prometheus-pushgateway."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support.farm_cli import PLUGIN, FarmCli
from tests.support.prometheus import Pushgateway
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))


def _instances(gateway: Pushgateway, job: str) -> set[str]:
    from prometheus_client.parser import text_string_to_metric_families
    return {s.labels.get("instance", "") for family in
            text_string_to_metric_families(gateway.exposition())
            for s in family.samples if s.labels.get("job") == job}


def _run(tmp_path: Path, gateway: Pushgateway, job: str, **env: str) -> None:
    """One CI job on a fresh runner: its own state dir, one passing case."""
    cli = FarmCli(tmp_path / job)
    suite = write_case(tmp_path / f"suite-{job}", "ok", ["sleep: 1"]).parent
    try:
        out = cli.run("run", suite, "--devices", "fake:1", "--report-dir",
                      tmp_path / f"run-{job}", "--pushgateway", gateway.url,
                      FARM_DEVICE_PLUGINS=PLUGIN, **env)
    finally:
        cli.close()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "could not push" not in out.stderr, out.stderr


def test_jobs_on_fresh_runners_push_to_the_one_group_named(tmp_path: Path) -> None:
    gateway = Pushgateway(tmp_path / "gateway").start()
    try:
        for job in ("job-1", "job-2"):
            _run(tmp_path, gateway, job, FARM_PUSHGATEWAY_INSTANCE="nightly-ci")
        assert _instances(gateway, "farm_run") == {"nightly-ci"}
        assert gateway.held("farm_run")[PASSED] == 2       # the second job went on from 1
        _run(tmp_path, gateway, "job-3")                     # unset: the host's own group
        assert _instances(gateway, "farm_run") == {"nightly-ci", socket.gethostname()}
    finally:
        gateway.stop()
