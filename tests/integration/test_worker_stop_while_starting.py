"""Ctrl-C of a `farm worker` whose devices are still starting (a Chromium launching, a phone
being attached): the stop's SIGTERM reached a device process before it had its handler, and
the worker said "device fake-1@host was killed by SIGTERM" and exited 143, as if something
had gone wrong. It is the stop that was asked for: "device ... stopped", exit 0. Real
redis-server, a real `farm worker` (the test device plugin's ``fake`` kind, held in its
start-up by a gate file)."""

from __future__ import annotations

import signal

import pytest

from tests.support.farm_cli import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_ctrl_c_while_a_device_starts_stops_it_cleanly(tmp_path, workers, farm):
    journal = tmp_path / "journal"
    journal.mkdir()
    worker = workers("fake:1", FARM_TEST_FAKE_JOURNAL=str(journal),
                     FARM_TEST_FAKE_OPEN_GATE=str(tmp_path / "never"))
    wait_for(lambda: any("opening" in p.read_text() for p in journal.glob("*.log")), 90,
             "the device starting")
    worker.send_signal(signal.SIGINT)
    code = worker.wait(60)
    said = farm.worker_logs()
    assert code == 0, said
    assert "killed by SIGTERM" not in said, said
    stopped = [line for line in said.splitlines() if line.startswith("farm worker: device ")]
    assert len(stopped) == 1 and stopped[0].startswith("farm worker: device fake-1@"), said
    assert stopped[0].endswith(" stopped"), said
