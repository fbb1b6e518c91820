"""`farm worker` as a container runs it: PID 1 (the image's entrypoint is `farm`), here in a
PID namespace of its own (``unshare``), with a real headless Chromium device and a real Redis."""

from __future__ import annotations

import shutil
import subprocess

import psutil
import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import ROOT, FarmCli, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def as_pid_1(farm: FarmCli, *args: str, **env: str) -> subprocess.Popen:
    """``farm ARGS`` as PID 1 of a PID namespace of its own (skipped where that is not
    allowed)."""
    unshare = shutil.which("unshare")
    prefix = [unshare, "--pid", "--fork", "--mount-proc"] if unshare else []
    if not prefix or subprocess.run([*prefix, "true"], capture_output=True).returncode:
        pytest.skip("cannot start a process in a PID namespace of its own here")
    log = (farm.tmp / "pid1.log").open("w")
    proc = subprocess.Popen([*prefix, *farm.command(*args)], cwd=ROOT, env=farm.env(**env),
                            stdout=log, stderr=subprocess.STDOUT)
    log.close()
    farm.started.append(proc)
    return proc


def command(proc: psutil.Process) -> str:
    try:
        return " ".join(proc.cmdline())
    except psutil.Error:        # a zombie has none
        return ""


def test_a_killed_device_s_browser_is_reaped_by_a_farm_worker_that_is_pid_1(chromium,
                                                                            redis_url, farm):
    """A device process killed (the OOM killer, a crash) leaves its Chromium and Playwright
    driver to PID 1. Before, they stayed zombies for the container's life (three a kill)."""
    unshare = as_pid_1(farm, "worker", "--broker", redis_url, "--devices", "browser:1",
                       FARM_CHROMIUM_PATH=str(chromium.path), FARM_WORKER_METRICS_PORT="0",
                       **CLUSTER_ENV)
    wait_idle(redis_url, 1)
    supervisor = wait_for(lambda: next(iter(psutil.Process(unshare.pid).children()), None),
                          30, "the farm worker inside the namespace")

    def device() -> psutil.Process | None:
        return next((p for p in supervisor.children() if "worker.main" in command(p)), None)
    first = wait_for(device, 30, "the device process")
    assert first.children(recursive=True), "no browser under the device process"
    first.kill()
    wait_for(lambda: (d := device()) is not None and d.pid != first.pid, 60,
             "the device process started again")
    wait_idle(redis_url, 1)

    def zombies() -> list[psutil.Process]:
        return [p for p in supervisor.children() if p.status() == psutil.STATUS_ZOMBIE]
    wait_for(lambda: not zombies(), 60, "no zombie left under the farm worker")
