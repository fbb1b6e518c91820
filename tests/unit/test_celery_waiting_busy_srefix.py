"""farm.log said 'waiting for a web worker (none usable left)' while both workers were busy
with this run's own cases (their leases said so before the run heard the cases start): now
it says they are busy with this run's cases, and 'none usable left' only when they are gone."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from farm.executors.celery import CeleryExecutor


def _run() -> SimpleNamespace:
    run = SimpleNamespace(run_id="r1", _said_waiting=set(), _pool_served={"web"})
    run._busy_here = lambda pool, leases: CeleryExecutor._busy_here(run, pool, leases)
    return run


LEASES = {"browser-1@h": {"platform": "web", "state": "busy", "run": "r1"},
          "browser-2@h": {"platform": "web", "state": "busy", "run": "r1"},
          "browser-3@h": {"platform": "web", "state": "busy", "run": "other"}}


def test_devices_busy_with_this_run_s_cases_are_not_called_gone(caplog, capsys):
    run = _run()
    caplog.set_level(logging.INFO, logger="farm")
    busy = run._busy_here("web", LEASES)
    assert busy == 2
    CeleryExecutor._say_waiting(run, "web", 60, [], busy=busy)
    said = [r.getMessage() for r in caplog.records]
    assert said == ["waiting for a web device: its 2 device(s) are busy with this run's cases"]
    assert capsys.readouterr().err == ""


def test_devices_gone_are_still_none_usable_left(caplog, capsys):
    run = _run()
    caplog.set_level(logging.INFO, logger="farm")
    CeleryExecutor._say_waiting(run, "web", 60, [], busy=run._busy_here("web", {}))
    assert "(none usable left; FARM_CLUSTER_DEVICE_WAIT=60s)" in capsys.readouterr().err
