"""`farm worker` stopped (SIGTERM: `systemctl stop`, `docker stop`) while a device process that
died (the OOM killer, a crash) waits out its back-off ends 0, saying the device stopped: it
ended with that death's code (137 after a SIGKILL), which systemd takes for a failed unit and
an operator for `farm worker` itself killed, and said nothing of that device. Real
redis-server, real `farm worker` on the test device plugin's ``fake`` kind."""

from __future__ import annotations

import signal

import psutil
import pytest

from tests.support.cluster import wait_idle
from tests.support.farm_cli import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def _device_process(supervisor: int, not_pid: int) -> int:
    kids = [p.pid for p in psutil.Process(supervisor).children() if p.pid != not_pid]
    return kids[0] if kids else 0


def test_a_worker_stopped_while_a_dead_device_waits_to_start_again_ends_0(redis_url, workers,
                                                                           farm):
    worker = workers("fake:1")
    wait_idle(redis_url, 1)
    killed = 0
    for _ in range(3):      # back-off 1 s, 2 s, then 4 s: the stop lands in that one
        killed = wait_for(lambda: _device_process(worker.pid, killed), 60,
                          "the device process (started again)")
        psutil.Process(killed).kill()
    wait_for(lambda: "was killed by SIGKILL: starting it again in 4s" in farm.worker_logs(), 60,
             "the device process's third death said")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(60) == 0, farm.worker_logs()
    said = farm.worker_logs().split("starting it again in 4s", 1)[1]
    assert "device fake" in said and "stopped" in said, said
