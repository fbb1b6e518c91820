"""What Redis hands a `farm worker` again, and what it must never run: a case still running
when the broker's visibility timeout passes (Redis gives its message to a second worker), the
copies a killed worker left unacknowledged (given again once their visibility timeout passes,
brokers keep no count of deliveries), and a message that is not JSON (a pickle, refused).

Real redis-server and `farm worker` processes on the ``fake`` kind of the test device plugin
(tests/support/devices.py). The visibility timeout (an hour and more) is not waited out: the
test moves a message's delivery time back in kombu's unacked index, and a worker starting up
sweeps that index as every consumer does, as it would an hour later."""

from __future__ import annotations

import builtins

import psutil
import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

UNACKED = f"{PREFIX}:celery:unacked"                # kombu's unacknowledged messages
UNACKED_INDEX = f"{PREFIX}:celery:unacked_index"    # ... by the time each was delivered


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def sessions(journals) -> dict[str, int]:
    """Device name → how many case sessions it started (its journal's "session" lines)."""
    return {p.stem: p.read_text().splitlines().count("session")
            for p in journals.glob("*.log")}


def visibility_timeout_passed(r: redis.Redis, n: int) -> None:
    """The ``n`` unacknowledged messages were delivered longer ago than any visibility
    timeout: the next sweep of the unacked index gives them out again."""
    tags = wait_for(lambda: (t := r.zrange(UNACKED_INDEX, 0, -1)) and len(t) == n and t, 60,
                    f"{n} unacknowledged message(s)")
    r.zadd(UNACKED_INDEX, {tag: 0 for tag in tags})


def test_a_case_running_past_the_visibility_timeout_is_not_run_again_elsewhere(
        tmp_path, redis_url, workers, farm):
    """The case's timeout (2 h) is above the broker's visibility timeout (cluster default:
    1 h 11 min), so Redis gives its message to a second worker while the first still runs it.
    The second drops it: the case runs once, on the first device, and passes."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    gate, journals = tmp_path / "go", tmp_path / "journals"
    journals.mkdir()
    write_case(tmp_path / "s", "long", [f"javascript: farm-test:wait-for:{gate}"], timeout=7200)
    workers("fake:1", "--loglevel", "info", FARM_TEST_FAKE_JOURNAL=str(journals))
    wait_idle(redis_url, 1)
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1")
    first = wait_busy(redis_url)[0]
    visibility_timeout_passed(r, 1)
    workers("fake:1", "--loglevel", "info", FARM_TEST_FAKE_JOURNAL=str(journals))
    wait_for(lambda: "long attempt 1: dropped: attempt already claimed" in farm.worker_logs(),
             90, "the second worker dropping the redelivered case")
    assert leases(redis_url)[first["device"]]["state"] == "busy"     # the first still runs it
    gate.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    case, = results(tmp_path / "run")["cases"]
    assert (case["status"], case["attempt"], case["device"]) == (
        "passed", 1, first["device"]), case
    assert sum(sessions(journals).values()) == 1, sessions(journals)


def test_a_case_whose_worker_is_killed_every_time_ends_and_its_copies_never_run(
        tmp_path, redis_url, workers, farm):
    """Each attempt's worker is SIGKILLed mid-case. The run re-runs it within its infra
    retries (1 here), then ends it as an error; the killed workers' messages, left
    unacknowledged, are deleted by the run (they would come back after the broker's visibility
    timeout): never run again."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    gate, journals = tmp_path / "never", tmp_path / "journals"
    journals.mkdir()
    write_case(tmp_path / "s", "killer", [f"javascript: farm-test:wait-for:{gate}"],
               timeout=900)
    workers("fake:2", "--loglevel", "info", FARM_TEST_FAKE_JOURNAL=str(journals))
    wait_idle(redis_url, 2)
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:2",
                  FARM_CLUSTER_INFRA_RETRIES="1")
    killed = []
    for attempt in (1, 2):
        busy = wait_for(lambda n=attempt: next(
            (v for v in leases(redis_url).values()
             if v.get("state") == "busy" and v.get("attempt") == n), None), 120,
            f"attempt {attempt} running")
        # (a lease says busy as the worker takes the case, before its device session starts:
        # killed in between, the attempt had no session to count below)
        wait_for(lambda n=attempt: sum(sessions(journals).values()) >= n, 120,
                 f"attempt {attempt}'s device session started")
        psutil.Process(busy["pid"]).kill()
        killed.append(busy["device"])
    out = proc.finish()
    case, = results(tmp_path / "run")["cases"]
    assert (case["status"], case["attempt"]) == ("error", 2), case
    assert case["error"]["kind"] == "DeviceLost", case
    assert [p["device"] for p in case["previous"]] == killed[:1], case
    assert proc.returncode != 0, out
    # the killed workers' messages (they hold the case's environment) are deleted by the run:
    # none comes back after a visibility timeout, and a worker starting now runs nothing
    assert r.zcard(UNACKED_INDEX) == 0 and r.hlen(UNACKED) == 0, r.hkeys(UNACKED)
    workers("fake:1", "--loglevel", "info", FARM_TEST_FAKE_JOURNAL=str(journals))
    wait_idle(redis_url, 1)
    assert sum(sessions(journals).values()) == 2, sessions(journals)


class Unpickled:
    """A pickle that writes a file where it is read: a worker taking pickles would."""

    def __init__(self, path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return builtins.open, (self.path, "w")


def test_a_pickle_message_is_refused_and_the_worker_serves_on(tmp_path, redis_url, workers,
                                                              farm):
    """Someone who can write to the broker sends the task as a pickle: the worker never
    unpickles it (nothing it carries runs), drops it, and goes on serving runs."""
    from celery import Celery
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    workers("fake:1")
    (name, lease), = wait_idle(redis_url, 1).items()
    sender = Celery("evil", broker=redis_url)
    sender.conf.update(task_serializer="pickle", accept_content=["pickle", "json"],
                       broker_transport_options={"global_keyprefix": f"{PREFIX}:celery:"})
    planted = tmp_path / "unpickled"
    sender.send_task("farm.run_case", args=[Unpickled(planted)], queue=f"farm.dev.{name}",
                     serializer="pickle")
    queue = f"{PREFIX}:celery:farm.dev.{name}"
    refused = "untrusted content of type pickle"
    wait_for(lambda: planted.exists() or refused in farm.worker_logs(), 90,
             "the worker taking the pickle in")
    assert not planted.exists(), "the worker unpickled a message"
    assert refused in farm.worker_logs()
    assert r.llen(queue) == 0 and r.hlen(UNACKED) == 0      # dropped, not handed out again
    assert psutil.Process(lease["pid"]).is_running()
    write_case(tmp_path / "s", "after", ["sleep: 10"])
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1")
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    case, = results(tmp_path / "run")["cases"]
    assert (case["status"], case["device"]) == ("passed", name), case
