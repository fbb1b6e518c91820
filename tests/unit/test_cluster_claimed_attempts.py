"""CeleryExecutor: whose loss an attempt is when its worker dies (no broker: the watching
logic is called with the leases and claims a tick would read). A device known only from its
claim of the attempt (its process died before its lease or an event said it started it) is
named lost, after the same lease grace as one seen running; one whose process was started
again is lost at once, and said so, not "lease expired"."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

GRACE = 14.0        # store.LEASE_TTL_S + 2 * store.HEARTBEAT_S
DEVICE = "fake-1@h"


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def sent(tmp_path: Path, clock: Clock) -> tuple[CeleryExecutor, Job]:
    """A run with one case sent and not heard of since."""
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [], clock=clock)
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    ex._inflight[case.id] = _Inflight(job, clock(), seen=clock())
    return ex, job


def lease(state: str = "idle", since: float = 100.0, **more: object) -> dict:
    return {"device": DEVICE, "platform": "web", "group": "fake", "state": state,
            "since": since, **more}


def test_a_claimed_attempt_is_its_devices_loss_once_the_grace_is_over(tmp_path):
    clock = Clock()
    ex, job = sent(tmp_path, clock)
    back = {DEVICE: lease(since=200.0)}         # started again, idle
    pools = {"web": list(back.values())}
    clock.t += GRACE + 1
    ex._check_inflight(back, pools, clock(), {job.case_id: (DEVICE, GRACE - 2)})
    assert job.case_id in ex._inflight and not ex.outcome.lost     # claimed 12 s ago: not yet
    clock.t += 3
    ex._check_inflight(back, pools, clock())
    assert ex.outcome.lost == {DEVICE: "its worker stopped answering right after taking the "
                                       "case (s/c attempt 1); it came back later in the run"}
    retry, = ex._queue["web"]                   # re-run, on another device if there is one
    assert retry.attempt == 2 and DEVICE in retry.avoid_devices


def test_an_unclaimed_attempt_is_still_a_job_that_vanished(tmp_path):
    clock = Clock()
    ex, job = sent(tmp_path, clock)
    idle = {DEVICE: lease()}
    clock.t += 21
    ex._check_inflight(idle, {"web": list(idle.values())}, clock(), {})
    assert not ex.outcome.lost and job.case_id not in ex._inflight


def test_a_device_started_again_mid_case_is_lost_at_once(tmp_path):
    clock = Clock()
    ex, job = sent(tmp_path, clock)
    running = {DEVICE: lease("busy", run="r1", case=job.case_id, attempt=1)}
    ex._check_inflight(running, {"web": list(running.values())}, clock())
    clock.t += 3                                # well within the lease grace
    again = {DEVICE: lease("starting", since=103.0)}
    ex._check_inflight(again, {}, clock())
    assert ex.outcome.lost == {DEVICE: "its worker stopped answering mid-case (s/c attempt 1, "
                                       "a new process took the device over); it came back "
                                       "later in the run"}


def test_the_same_process_not_showing_the_case_waits_out_the_grace(tmp_path):
    clock = Clock()
    ex, job = sent(tmp_path, clock)
    running = {DEVICE: lease("busy", run="r1", case=job.case_id, attempt=1)}
    ex._check_inflight(running, {"web": list(running.values())}, clock())
    idle = {DEVICE: lease()}                    # the same process (same since), idle
    clock.t += GRACE - 1
    ex._check_inflight(idle, {"web": list(idle.values())}, clock())
    assert not ex.outcome.lost
    clock.t += 2
    ex._check_inflight(idle, {"web": list(idle.values())}, clock())
    assert ex.outcome.lost[DEVICE].startswith(
        "its worker stopped answering mid-case (s/c attempt 1, its lease stopped showing")
