"""`farm worker --devices KIND:N` names its devices in the order of their /metrics ports:
device *i* is ``KIND-<i+1>`` on --metrics-port + i, however its processes race to Redis; a name
another live process holds is left to it, one left by a dead process of this machine is taken
back. Real redis-server (a database of its own per test); the last tests start real `farm
worker` processes on the test plugin's ``fake`` kind."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest
import redis

from farm.cluster import store
from tests.support.cluster import PREFIX, wait_idle
from tests.support.farm_cli import kill_tree, wait_for
from tests.support.redis_server import free_port
from worker.main import claim_name

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
INFO = {"kind": "browser", "platform": "web", "group": "browser"}


def test_each_device_takes_the_name_of_its_place_whichever_process_starts_first(redis_url):
    r = store.connect(redis_url)
    # the three processes of `--devices browser:3` reach Redis last one first
    named = {index: claim_name(r, "browser", INFO, "vm", index) for index in (2, 1, 0)}
    assert named == {0: "browser-1@vm", 1: "browser-2@vm", 2: "browser-3@vm"}


def test_a_name_held_by_another_process_falls_back_to_a_free_one_a_quarantined_own_is_kept(
        redis_url):
    r = store.connect(redis_url)
    assert store.acquire_lease(r, "browser-1@vm", {**INFO, "pid": 1})   # another farm worker
    r.hset(store.key("quarantine"), "browser-3@vm", "3 infrastructure errors in a row")
    assert claim_name(r, "browser", INFO, "vm", 0) == "browser-2@vm"
    assert claim_name(r, "browser", INFO, "vm", 1) == "browser-4@vm"     # its own is taken
    # its own is quarantined: kept (the worker waits for its release), not a fresh name
    assert claim_name(r, "browser", INFO, "vm", 2) == "browser-3@vm"
    assert claim_name(r, "browser", INFO, "vm", 5) == "browser-6@vm"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_name_left_by_a_dead_process_of_this_machine_is_taken_back(redis_url):
    """A `farm worker` killed and started again at once: its old processes' leases (10 s TTL)
    no longer push its devices onto other names. A live process's lease, or one from another
    machine of the same host name, is left alone."""
    r = store.connect(redis_url)
    here = store.this_machine()
    with subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                          stdin=subprocess.PIPE) as live:
        assert store.acquire_lease(r, "browser-1@vm", {**INFO, **here, "pid": _dead_pid()})
        assert claim_name(r, "browser", {**INFO, "pid": live.pid}, "vm", 0) == "browser-1@vm"
        assert store.leases(r)["browser-1@vm"]["pid"] == live.pid            # its lease now
        assert store.acquire_lease(r, "browser-3@vm", {**INFO, **here, "boot": "another",
                                                       "pid": _dead_pid()})
        assert claim_name(r, "browser", INFO, "vm", 0) == "browser-2@vm"     # held by live
        assert claim_name(r, "browser", INFO, "vm", 2) == "browser-4@vm"     # another machine
        live.stdin.close()


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

    def ready_lines() -> dict[str, str]:
        # name -> port of its latest ready line (a device process started again on a loaded
        # machine says it again: three names, not three lines)
        found = dict(re.findall(r"(fake-\d+)@vm ready \([^)]*metrics :(\d+)\)",
                                farm.worker_logs()))
        return found if len(found) >= 3 else {}
    try:
        ready = wait_for(ready_lines, 60, "three ready lines")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the workers said:\n{farm.worker_logs()}") from None
    assert ready == {"fake-1": str(base), "fake-2": str(base + 1),
                     "fake-3": str(base + 2)}, farm.worker_logs()


def test_a_worker_killed_and_started_again_at_once_keeps_its_names_and_ports(redis_url, workers,
                                                                             farm):
    """kill -9 of `farm worker` and its device processes, then `farm worker` again (a
    container restarted): device i is still ``fake-<i>`` on port base + i - 1 (before: the dead
    processes' leases held the names, the new devices came up as fake-3, fake-4)."""
    base = _free_ports(3)
    first = workers("fake:2", "--metrics-port", str(base), FARM_WORKER_HOST="vm")
    before = wait_idle(redis_url, 2)
    kill_tree(first)
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    for name in before:     # as if started again within their 10 s, however slowly it starts
        r.persist(f"{PREFIX}:lease:{name}")
    workers("fake:2", "--metrics-port", str(base), FARM_WORKER_HOST="vm")

    def ready_again() -> dict[str, str]:
        # name -> port of the restarted worker's own log's latest ready line for it (a device
        # process started again on a loaded machine says it again)
        found = dict(re.findall(r"(fake-\d+)@vm ready \([^)]*metrics :(\d+)\)",
                                (farm.tmp / "worker-2.log").read_text(errors="replace")))
        return found if len(found) >= 2 else {}
    try:
        again = wait_for(ready_again, 150, "the restarted worker's two ready lines")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the workers said:\n{farm.worker_logs()}") from None
    assert again == {"fake-1": str(base), "fake-2": str(base + 1)}, farm.worker_logs()
    assert sorted(wait_idle(redis_url, 2)) == ["fake-1@vm", "fake-2@vm"]
