"""What an SRE running `farm worker` on several hosts meets, end to end: a case longer than
the cluster's FARM_CLUSTER_MAX_CASE_SECONDS (Redis's visibility timeout hands its job to a
second worker while the first still runs it), and an attempt claimed by a worker of the farm
before the claim TTL grew (a rolling upgrade).

Real redis-server, real `farm worker` (Celery, solo pool) processes on the ``fake`` kind of
the test device plugin, `farm run --broker` as a user runs it. The visibility timeout (the
setting plus 11 min) is not waited out: the test moves the message's delivery time back in
kombu's unacked index, and a worker starting up sweeps that index as every consumer does."""

from __future__ import annotations

import signal

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

UNACKED_INDEX = f"{PREFIX}:celery:unacked_index"    # kombu's unacked messages by delivery time
SHORT = {"FARM_CLUSTER_MAX_CASE_SECONDS": "2"}


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def sessions(journals) -> int:
    """How many case sessions the fake devices started (their journals' "session" lines)."""
    return sum(p.read_text().splitlines().count("session") for p in journals.glob("*.log"))


def test_a_case_longer_than_the_cluster_allows_is_named_and_still_runs_once(
        tmp_path, redis_url, workers, farm):
    """FARM_CLUSTER_MAX_CASE_SECONDS=2 on the workers and the run; one case's timeout is 60 s.
    Before any case is sent the run names that case (not the one within the limit) and the
    value to set, and says it is the workers' setting. Its job comes back from Redis while it
    runs: a second worker drops it, the case passes once, attempt 1, on the first device."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    gate, journals = tmp_path / "go", tmp_path / "journals"
    journals.mkdir()
    write_case(tmp_path / "s", "long", [f"javascript: farm-test:wait-for:{gate}"], timeout=60)
    write_case(tmp_path / "s", "quick", ["sleep: 10"], timeout=2)
    workers("fake:1", "--loglevel", "info", FARM_TEST_FAKE_JOURNAL=str(journals), **SHORT)
    wait_idle(redis_url, 1)
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1",
                  **SHORT)
    said = proc.wait_for_line("FARM_CLUSTER_MAX_CASE_SECONDS=2 ")
    assert "1 case timeout(s) above FARM_CLUSTER_MAX_CASE_SECONDS=2 (s/long 60s)" in said, said
    assert "set FARM_CLUSTER_MAX_CASE_SECONDS=60 where each `farm worker` runs" in said, said
    first = wait_for(lambda: next((v for v in leases(redis_url).values()
                                   if v.get("case") == "s/long"), None), 120, "s/long running")
    tags = wait_for(lambda: r.zrange(UNACKED_INDEX, 0, -1), 60, "its unacknowledged message")
    r.zadd(UNACKED_INDEX, {tag: 0 for tag in tags})     # delivered longer ago than any timeout
    workers("fake:1", "--loglevel", "info", FARM_TEST_FAKE_JOURNAL=str(journals), **SHORT)
    wait_for(lambda: "s/long attempt 1: dropped: attempt already claimed" in farm.worker_logs(),
             90, "the second worker dropping the job handed out again")
    assert leases(redis_url)[first["device"]]["case"] == "s/long"    # the first still runs it
    gate.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    by_id = {c["case_id"]: c for c in results(tmp_path / "run")["cases"]}
    assert (by_id["s/long"]["status"], by_id["s/long"]["attempt"],
            by_id["s/long"]["device"]) == ("passed", 1, first["device"]), by_id
    assert by_id["s/quick"]["status"] == "passed", by_id
    assert out.count("FARM_CLUSTER_MAX_CASE_SECONDS=2 ") == 1, out
    assert sessions(journals) == 2, journals


def test_ctrl_c_of_one_ci_run_leaves_the_other_runs_case_running(tmp_path, redis_url, workers,
                                                                 farm):
    """Two CI jobs run on one cluster at once, each on one device of two. Ctrl-C of the first
    stops its case (interrupted, exit 2) and frees its device; the second's case on the other
    device goes on, is not retried, and passes on the device that ran it; the second's other
    case then runs on the device the first gave back. No result crosses over."""
    gate_a, gate_b = tmp_path / "never", tmp_path / "go-b"
    write_case(tmp_path / "a", "held", [f"javascript: farm-test:wait-for:{gate_a}"], timeout=900)
    write_case(tmp_path / "b", "held", [f"javascript: farm-test:wait-for:{gate_b}"], timeout=900)
    write_case(tmp_path / "b", "next", ["sleep: 10"])
    workers("fake:2")
    wait_idle(redis_url, 2)
    a = run_on(farm, redis_url, tmp_path / "a", tmp_path / "run-a", "--devices", "fake:1")
    wait_for(lambda: any(v.get("case") == "a/held" for v in leases(redis_url).values()), 120,
             "run A's case running")
    b = run_on(farm, redis_url, tmp_path / "b", tmp_path / "run-b", "--devices", "fake:2")
    b_dev = wait_for(lambda: next((n for n, v in leases(redis_url).items()
                                   if v.get("case") == "b/held"), None), 120,
                     "run B's held case running")
    a.send_signal(signal.SIGINT)
    out_a = a.finish()
    assert a.returncode == 2, out_a
    case_a, = results(tmp_path / "run-a")["cases"]
    assert case_a["status"] == "interrupted", case_a
    wait_for(lambda: sum(v.get("state") == "idle" for v in leases(redis_url).values()) == 1,
             120, "run A's device freed")
    assert leases(redis_url)[b_dev]["case"] == "b/held"      # B's case was not stopped
    gate_b.touch()
    out_b = b.finish()
    assert b.returncode == 0, out_b + farm.worker_logs()
    by_id = {c["case_id"]: c for c in results(tmp_path / "run-b")["cases"]}
    assert set(by_id) == {"b/held", "b/next"}, by_id
    assert (by_id["b/held"]["status"], by_id["b/held"]["attempt"], by_id["b/held"]["device"]
            ) == ("passed", 1, b_dev), by_id
    assert by_id["b/next"]["status"] == "passed" and not results(tmp_path / "run-b")["lost"]


# ---- a rolling upgrade: claims made by workers of an earlier farm ------------------------------
OLD_CLAIM_TTL_S = 4 * 3600      # what a worker of farm before the 25 h claims set
DEVICE = "fake-1@old-host"


class Clock:
    t = 5000.0

    def __call__(self) -> float:
        return self.t


def sent_a_minute_ago(tmp_path, url: str):
    """A run (its client, in this process, on the test's Redis) whose one job was sent a
    minute ago and not heard of since: it waited in the broker behind another run's case."""
    from farm.attempts import RetryPolicy
    from farm.config import Settings
    from farm.executors.celery import CeleryExecutor, _Inflight
    from farm.results import ArtifactStore
    from farm.runner import Services
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    case = Case(id="s/c", name="c", file=tmp_path / "c.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url=url, cluster_prefix=PREFIX)
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r-upgrade", env={})
    clock = Clock()
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [], clock=clock)
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    ex._inflight[case.id] = _Inflight(job, clock(), seen=clock())
    clock.t += 60
    return ex, job, clock


def lease(state: str, **more) -> dict:
    return {"device": DEVICE, "platform": "web", "group": "fake", "state": state,
            "since": 100.0, **more}


def test_a_claim_an_earlier_farm_s_worker_just_made_is_not_taken_for_a_dead_one(tmp_path,
                                                                               redis_url):
    """An earlier farm's worker claims the attempt (its claim lives 4 h) and is about to say
    it is busy when the run looks. The run waits the lease grace for it, as for one of its
    own farm: before, the claim read as 21 h old, the device was named lost ('stopped
    answering right after taking the case') and the case run again elsewhere while it ran."""
    ex, job, clock = sent_a_minute_ago(tmp_path, redis_url)
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    r.set(f"{PREFIX}:claim:r-upgrade:{job.case_id}:1", DEVICE, ex=OLD_CLAIM_TTL_S)
    idle = {DEVICE: lease("idle")}
    ex._check_inflight(idle, {"web": list(idle.values())}, clock(), ex._claims(clock()))
    assert not ex.outcome.lost and job.case_id in ex._inflight, ex.outcome.lost
    busy = {DEVICE: lease("busy", run="r-upgrade", case=job.case_id, attempt=1)}
    clock.t += 1
    ex._check_inflight(busy, {"web": list(busy.values())}, clock(), ex._claims(clock()))
    assert ex._inflight[job.case_id].device == DEVICE and not ex.outcome.lost


def test_a_claim_of_this_farm_still_counts_the_grace_from_when_it_was_made(tmp_path,
                                                                          redis_url):
    """A worker of this farm that claimed the attempt 20 s ago and never said so since is
    gone: its device is named lost at once (the grace counts from the claim)."""
    from farm.cluster import store
    ex, job, clock = sent_a_minute_ago(tmp_path, redis_url)
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    r.set(f"{PREFIX}:claim:r-upgrade:{job.case_id}:1", DEVICE, ex=int(store.CLAIM_TTL_S) - 20)
    idle = {DEVICE: lease("idle")}
    ex._check_inflight(idle, {"web": list(idle.values())}, clock(), ex._claims(clock()))
    assert list(ex.outcome.lost) == [DEVICE] and job.case_id not in ex._inflight
