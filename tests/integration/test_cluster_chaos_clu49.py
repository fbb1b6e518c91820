"""What a platform engineer's chaos on a cluster found (real redis-server, real `farm worker`
processes of the test device plugin, real `farm run`):

- a broker that does not answer as a run starts (Redis restarting as a CI job starts) is
  waited for as a running run waits for it (FARM_CLUSTER_OUTAGE_SECONDS, said once), then exit
  3, an infrastructure error; it was exit 4, "configuration error", at once. A broker host
  name that does not resolve (a typo) is still exit 4 at once;
- the message of an attempt whose device process was killed mid-case (its body holds the
  case's secrets) is deleted from the broker's unacknowledged messages once the run re-runs
  the attempt elsewhere, where it stayed an hour (the visibility timeout), then came back;
- results.json's ``farm_version`` is the run's full build (``0.1.0+<commit>[.dirty]``)."""

from __future__ import annotations

import json

import psutil
import pytest
import redis

from farm.metrics import build_version
from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_idle
from tests.support.farm_cli import PLUGIN, results, wait_for
from tests.support.redis_server import free_port
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

UNACKED = f"{PREFIX}:celery:unacked"
UNACKED_INDEX = f"{PREFIX}:celery:unacked_index"


def run(farm, tmp_path, url: str, **env: str):
    return farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", url,
                    "--devices", "fake:1", "--report-dir", tmp_path / "run",
                    "--junit-xml", tmp_path / "junit.xml",
                    FARM_DEVICE_PLUGINS=PLUGIN, **{**CLUSTER_ENV, **env})


def test_a_broker_that_does_not_answer_at_start_is_waited_for_then_exit_3_clu49(
        tmp_path, farm):
    url = f"redis://127.0.0.1:{free_port()}/7"      # never reached from this state dir
    done = run(farm, tmp_path, url, FARM_CLUSTER_OUTAGE_SECONDS="1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.count(f"farm: waiting for the broker {url} (") == 1, done.stderr
    assert "(waited 1s: FARM_CLUSTER_OUTAGE_SECONDS)" in done.stderr, done.stderr
    junit = (tmp_path / "junit.xml").read_text()
    assert "ConfigError" not in junit and junit.count('type="BrokerLost"') == 2, junit
    cases = results(tmp_path / "run")["cases"]
    assert [(c["status"], c["error"]["kind"]) for c in cases] == [("error", "BrokerLost")] * 2


def test_a_run_started_while_its_redis_is_starting_goes_on_once_it_answers_clu49(
        tmp_path, farm, workers):
    from tests.support.redis_server import RedisServer
    server = RedisServer()          # its port chosen, not started yet
    proc = farm.start("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", server.url,
                      "--devices", "fake:1", "--report-dir", tmp_path / "run",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    try:
        said = proc.wait_for_line("waiting for the broker")
        assert said.startswith(f"farm: waiting for the broker {server.url} ("), said
        server.start()
        workers("fake:1", broker=server.url)
        out = proc.finish()
        assert proc.returncode == 0, out + farm.worker_logs()
    finally:
        server.stop()
    assert results(tmp_path / "run")["counts"]["passed"] == 1


def test_a_broker_host_that_does_not_resolve_is_a_config_error_at_once_clu49(tmp_path, farm):
    url = "redis://no-such-broker-clu49.invalid:6379/7"
    done = run(farm, tmp_path, url, FARM_CLUSTER_OUTAGE_SECONDS="600")
    assert done.returncode == 4, done.stdout + done.stderr
    assert (f"farm: error: the broker {url}: its host name 'no-such-broker-clu49.invalid' "
            "does not resolve (") in done.stderr, done.stderr
    assert "waiting for the broker" not in done.stderr, done.stderr


def messages_of(r: redis.Redis, run_id: str) -> list[str]:
    """The ``argsrepr`` of each unacknowledged message of ``run_id``."""
    out = []
    for raw in r.hvals(UNACKED):
        said = json.loads(raw)[0]["headers"]["argsrepr"]
        if said.startswith(f"(run {run_id}, "):
            out.append(said)
    return sorted(out)


def test_a_killed_attempt_s_message_leaves_the_broker_when_it_is_run_again_clu49(
        tmp_path, redis_url, workers, farm):
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    gate = tmp_path / "go"
    write_case(tmp_path / "s", "killed", [f"javascript: farm-test:wait-for:{gate}"],
               timeout=900)
    workers("fake:2")
    wait_idle(redis_url, 2)
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:2",
                      "--report-dir", tmp_path / "run",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV,
                         "FARM_CLUSTER_INFRA_RETRIES": "1"})

    def running(n: int) -> dict | None:
        return next((v for v in leases(redis_url).values()
                     if v.get("state") == "busy" and v.get("attempt") == n), None)

    first = wait_for(lambda: running(1), 120, "attempt 1 running")
    run_id = first["run"]
    wait_for(lambda: messages_of(r, run_id), 60, "attempt 1's message delivered")
    psutil.Process(first["pid"]).kill()
    wait_for(lambda: running(2), 120, "attempt 2 running elsewhere")
    kept = wait_for(lambda: (m := messages_of(r, run_id)) and m, 60, "attempt 2's message")
    assert kept == [f"(run {run_id}, case s/killed, attempt 2)"], kept
    gate.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    assert case["status"] in ("passed", "flaky") and case["attempt"] == 2, case
    assert messages_of(r, run_id) == []
    assert r.zcard(UNACKED_INDEX) == r.hlen(UNACKED) == 0
    assert summary["farm_version"] == build_version()


def test_a_killed_run_s_late_events_are_kept_minutes_not_a_day_clu49(
        tmp_path, redis_url, workers, farm):
    """`farm run` SIGKILLed with a case in flight: its run key expires (deleted here, as its
    30 s TTL would), the case ends on its worker, whose result (screenshots: hundreds of KB)
    was kept a day for a client that never comes back; now ORPHAN_EVENTS_TTL_S at most. A live
    run's events keep their day (a client waiting out an outage takes them once back)."""
    from farm.cluster import store
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    gate = tmp_path / "go"
    write_case(tmp_path / "s", "inflight", [f"javascript: farm-test:wait-for:{gate}"],
               timeout=900)
    workers("fake:1")
    wait_idle(redis_url, 1)
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                      "--report-dir", tmp_path / "run",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    busy = wait_for(lambda: next((v for v in leases(redis_url).values()
                                  if v.get("state") == "busy"), None), 120, "the case running")
    alive = f"{PREFIX}:events:{busy['run']}"
    proc.send_signal(9)
    proc.finish()                                   # (SIGKILLed: no tidying up)
    r.delete(f"{PREFIX}:run:{busy['run']}")         # (its TTL run out)
    before = r.llen(alive)
    gate.touch()
    wait_for(lambda: r.llen(alive) > before and any(
        json.loads(e).get("type") == "case_finished" for e in r.lrange(alive, 0, -1)),
        120, "the case's result pushed")
    assert 0 < r.ttl(alive) <= store.ORPHAN_EVENTS_TTL_S, r.ttl(alive)


def test_a_live_run_s_events_keep_their_day_clu49(redis_url):
    from farm.cluster import store
    r = store.connect(redis_url)
    store.use_prefix(PREFIX)
    r.hset(f"{PREFIX}:run:r-live", "alive", 1)
    assert store.push_event(r, "r-live", "{}", 24 * 3600)
    assert r.ttl(f"{PREFIX}:events:r-live") > 23 * 3600
    r.delete(f"{PREFIX}:run:r-live")                # its client gone
    assert store.push_event(r, "r-live", "{}", 24 * 3600)
    assert 0 < r.ttl(f"{PREFIX}:events:r-live") <= store.ORPHAN_EVENTS_TTL_S


def test_a_device_s_outage_lines_are_said_in_the_workers_own_style_clu49(
        private_redis, workers, farm):
    """Through a Redis outage each device's "redis unavailable" line came as logging's dated
    line among the `farm worker: …` ones; now in the same style, naming its device."""
    import re
    server = private_redis()
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    server.stop()
    wait_for(lambda: "redis unavailable" in farm.worker_logs(), 60, "the heartbeat failing")
    said = [line for line in farm.worker_logs().splitlines() if "redis unavailable" in line]
    assert all(re.match(r"farm worker: fake-1@\S+ redis unavailable \(", line)
               for line in said), said
    dated = [line for line in farm.worker_logs().splitlines()
             if re.match(r"\d{4}-\d\d-\d\d ", line)]
    assert dated == [], dated
