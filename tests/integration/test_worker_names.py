"""`farm worker --devices KIND:N` names its devices in the order of their /metrics ports:
device *i* is ``KIND-<i+1>`` on --metrics-port + i, however its processes race to Redis; a name
another process holds is left to it. Real redis-server (a database of its own per test); the
last test starts real `farm worker` processes on the test plugin's ``fake`` kind."""

from __future__ import annotations

import re
import socket

import pytest

from farm.cluster import store
from tests.support.cluster import wait_idle
from tests.support.farm_cli import wait_for
from tests.support.redis_server import free_port
from worker.main import claim_name

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
INFO = {"kind": "browser", "platform": "web", "group": "browser"}


def test_each_device_takes_the_name_of_its_place_whichever_process_starts_first(redis_url):
    r = store.connect(redis_url)
    # the three processes of `--devices browser:3` reach Redis last one first
    named = {index: claim_name(r, "browser", INFO, "vm", index) for index in (2, 1, 0)}
    assert named == {0: "browser-1@vm", 1: "browser-2@vm", 2: "browser-3@vm"}


def test_a_name_held_by_another_process_or_quarantined_falls_back_to_a_free_one(redis_url):
    r = store.connect(redis_url)
    assert store.acquire_lease(r, "browser-1@vm", {**INFO, "pid": 1})   # another farm worker
    r.hset(store.key("quarantine"), "browser-3@vm", "3 infrastructure errors in a row")
    assert claim_name(r, "browser", INFO, "vm", 0) == "browser-2@vm"
    assert claim_name(r, "browser", INFO, "vm", 1) == "browser-4@vm"     # its own is taken
    assert claim_name(r, "browser", INFO, "vm", 2) == "browser-5@vm"     # its own is out
    assert claim_name(r, "browser", INFO, "vm", 5) == "browser-6@vm"


def _free_ports(n: int) -> int:
    """A port with the ``n - 1`` after it free too (none of them fixed)."""
    while True:
        base, held = free_port(), []
        try:
            for port in range(base, base + n):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()


def test_farm_worker_ready_lines_pair_each_name_with_its_port(redis_url, workers, farm):
    base = _free_ports(3)
    workers("fake:3", "--metrics-port", str(base), FARM_WORKER_HOST="vm")
    wait_idle(redis_url, 3)

    def ready_lines() -> list[tuple[str, str]]:
        found = re.findall(r"(fake-\d)@vm ready \(.*metrics :(\d+)\)", farm.worker_logs())
        return found if len(found) == 3 else []
    ready = wait_for(ready_lines, 60, "three ready lines")
    assert sorted(ready) == [("fake-1", str(base)), ("fake-2", str(base + 1)),
                             ("fake-3", str(base + 2))], farm.worker_logs()
