"""CeleryExecutor's bookkeeping of jobs sent but not started (no broker: the watching logic
is called with the leases a tick would read)."""

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


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def executor(tmp_path: Path, clock: Clock) -> tuple[CeleryExecutor, Job]:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    from farm.cluster.store import use_prefix
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [], clock=clock)
    use_prefix("farm")
    retry = Job(case.id, "web", 1.0, attempt=2, avoid_devices=frozenset({"fake-1@h"}))
    ex._pool_of = {case.id: "web"}
    ex._queue = {"web": []}
    ex.ledger.expected = {case.id}
    ex._inflight[case.id] = _Inflight(retry, clock(), seen=clock(), target="fake-2@h")
    return ex, retry


def lease(name: str, state: str = "idle") -> dict:
    return {"device": name, "platform": "web", "group": "fake", "state": state}


def test_a_retry_sent_to_a_device_that_is_gone_is_taken_back(tmp_path):
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    others = {"web": [lease("fake-1@h")]}             # only the device the retry avoids
    clock.t += GRACE - 1
    ex._check_inflight({}, others, clock())
    assert retry.case_id in ex._inflight              # its lease may come back yet
    clock.t += 2
    ex._check_inflight({}, others, clock())
    assert retry.case_id not in ex._inflight and ex._queue["web"] == [retry]
    assert retry.case_id not in ex.ledger.final       # not an attempt lost: it never ran


def test_a_retry_waits_while_its_device_is_there_even_busy(tmp_path):
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    pools = {"web": [lease("fake-1@h"), lease("fake-2@h", "busy")]}
    for _ in range(5):
        clock.t += GRACE
        ex._check_inflight({}, pools, clock())
    assert retry.case_id in ex._inflight and not ex._queue["web"]   # not lost, not taken back


def test_a_taken_back_job_that_starts_after_all_is_in_flight_again(tmp_path):
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())
    assert ex._queue["web"] == [retry]
    ex._handle({"type": "case_started", "case": retry.case_id, "attempt": 2,
                "device": "fake-2@h"})
    assert ex._inflight[retry.case_id].device == "fake-2@h" and not ex._queue["web"]


def test_the_orphan_clock_runs_while_a_sent_job_waits_for_a_device(tmp_path):
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    wait = ex.settings.cluster_device_wait
    ex._fail_orphans({}, clock())                     # the pool is empty from now on
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())               # taken back ...
    ex._fail_orphans({}, clock())
    assert retry.case_id not in ex.ledger.final
    clock.t += wait - GRACE
    ex._fail_orphans({}, clock())                     # ... and failed once the pool has been
    assert ex.ledger.final[retry.case_id].status == "error"    # empty for the device wait


def test_a_concurrent_1_batch_s_next_file_waits_behind_its_retry(tmp_path):
    """01 failed on browser-1 and must go elsewhere; the only other device is busy, so its
    retry waits: 02 of the same batch is not sent ahead of it (an unrelated case is)."""
    ex, _ = executor(tmp_path, Clock())
    first = Job("b/01", "web", 1.0, attempt=2, avoid_devices=frozenset({"browser-1"}),
                sequence="b.yaml", place=0)
    second = Job("b/02", "web", 1.0, sequence="b.yaml", place=1)
    other = Job("x/y", "web", 1.0)
    ex._queue = {"web": [first, second, other]}
    ex._share = lambda *_: 3
    ex.r = type("NoRuns", (), {"zrangebyscore": lambda *a, **k: []})()
    sent: list[tuple[str, str]] = []
    ex._send = lambda job, queue: sent.append((job.case_id, queue))
    ex._top_up({"web": [{"device": "browser-1", "state": "idle"},
                        {"device": "browser-2", "state": "busy"}]})
    assert sent == [("x/y", "farm.web")]
    assert ex._queue["web"] == [first, second]


def test_a_run_waiting_for_a_worker_says_so_once_on_stderr(tmp_path, capsys):
    """Silent before until FARM_CLUSTER_DEVICE_WAIT expired; one line per pool now, which
    says whether the pool never had a worker or lost the ones it had."""
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    ex._inflight.clear()
    ex._queue["web"] = [retry]
    for _ in range(3):
        ex._fail_orphans({}, clock())
        clock.t += 1
    assert capsys.readouterr().err == ("farm: waiting for a web worker (none in the cluster "
                                       "yet; FARM_CLUSTER_DEVICE_WAIT=60s)\n")
    ex._said_waiting.clear()
    ex._fail_orphans({"web": [lease("fake-1@h")]}, clock())
    ex._fail_orphans({}, clock())
    assert capsys.readouterr().err == ("farm: waiting for a web worker (none usable left; "
                                       "FARM_CLUSTER_DEVICE_WAIT=60s)\n")


def test_a_lost_attempt_keeps_its_steps_and_links_only_images_that_came_back(tmp_path):
    """(before: started when the loss was noticed, 0.0 s, no steps)"""
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    inf = ex._inflight[retry.case_id]
    ex._handle({"type": "case_started", "case": retry.case_id, "attempt": 2,
                "device": "fake-2@h", "started": "2026-12-02T04:00:00.000+00:00"})
    (tmp_path / "artifacts").mkdir()
    (tmp_path / "artifacts" / "here.jpg").write_bytes(b"\xff\xd8\xff")
    clock.t += 5
    ex._handle({"type": "step", "case": retry.case_id, "attempt": 2, "device": "fake-2@h",
                "record": {"task": "t", "index": 1, "kind": "sleep", "label": "sleep", "line": 7,
                           "before": "artifacts/missing.jpg", "after": "artifacts/here.jpg"}})
    clock.t += 14                   # its lease expired: lost, its time until last heard of
    ex._lost(inf, "worker of fake-2@h stopped answering mid-case (lease expired)")
    lost = ex.ledger.attempts[retry.case_id][0]
    assert (lost.started, lost.duration) == ("2026-12-02T04:00:00.000+00:00", 5.0)
    assert [(s.index, s.status, s.before, s.after) for s in lost.steps] == [
        (1, "passed", None, "artifacts/here.jpg")]


def test_a_lost_attempt_lasts_at_least_to_the_end_of_the_steps_its_worker_reported(tmp_path):
    """Heard of last (a heartbeat) before its first step's report came in: the attempt still
    ran until that step ended, by the worker's own clock."""
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    inf = ex._inflight[retry.case_id]
    ex._handle({"type": "case_started", "case": retry.case_id, "attempt": 2,
                "device": "fake-2@h", "started": "2026-12-02T04:00:00.000+00:00"})
    ex._handle({"type": "step", "case": retry.case_id, "attempt": 2, "device": "fake-2@h",
                "record": {"task": "t", "index": 1, "kind": "sleep", "label": "sleep", "line": 7,
                           "started": "2026-12-02T04:00:02.000+00:00", "duration": 1.5}})
    ex._lost(inf, "worker of fake-2@h stopped answering mid-case (lease expired)")
    lost = ex.ledger.attempts[retry.case_id][0]
    assert lost.duration == 3.5


def test_a_pool_whose_devices_are_quarantined_names_them_and_the_release_command(tmp_path):
    """The pool's only device was there, quarantined, and the run said "(start one: farm
    worker)". Now it names the quarantined device and how to release it (password masked)."""
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    ex.url = "redis://:s3cret@10.0.0.5:6379/0"
    ex._inflight.clear()
    ex._queue["web"] = [retry]
    leases = {"fake-1@h": lease("fake-1@h", "quarantined"), "a-1@h": {
        **lease("a-1@h", "quarantined"), "platform": "android"}}
    bad = {"fake-1@h": "3 infrastructure errors in a row", "a-1@h": "3 infrastructure errors"}
    ex._fail_orphans({}, clock(), leases, bad)
    clock.t += ex.settings.cluster_device_wait
    ex._fail_orphans({}, clock(), leases, bad)
    assert ex.ledger.final[retry.case_id].error.message == (
        "no usable web worker in the cluster for 60s (fake-1@h is quarantined: 3 "
        "infrastructure errors in a row; once fixed: farm devices --broker "
        "redis://:***@10.0.0.5:6379/0 --release fake-1@h)")


def test_a_case_that_never_started_is_at_its_url_line_whichever_way_it_ended(tmp_path):
    """A case no worker ever took was reported at its first step's line (an aiInput that never
    ran) one way, and with no line another way. The README: the FAILED line names "its
    `launch:` / `url:` when it ended before its first step"."""
    from farm.results import RunSummary
    from farm.run_console import failure_lines
    from farm.suite.loader import load_suites
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "slow.yaml").write_text(
        "name: slow\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: Username\n        value: demo\n      - sleep: 1\n")
    case = load_suites([tmp_path / "s"], env={})[0].cases[0]
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    ex.cases = ex.ledger.cases = {case.id: case}
    orphan, outage = Job(case.id, "web", 1.0), Job(case.id, "web", 1.0)
    ex._inflight.clear()
    ex._pool_of, ex._queue["web"] = {case.id: "web"}, [orphan]
    ex._fail_orphans({}, clock())
    clock.t += ex.settings.cluster_device_wait
    ex._fail_orphans({}, clock())
    never_taken = ex.ledger.final.pop(case.id)
    ex._give_up([outage], ConnectionError("gone"))
    broker_lost = ex.ledger.final[case.id]
    for result in (never_taken, broker_lost):
        assert result.status == "error" and result.line == 3 == case.setup_line, result
        [line] = failure_lines(RunSummary(run_id="r1", started="", cases=[result]))
        assert f"({result.file}:3)" in line, line


class Runs:
    """The Redis calls `_top_up` makes: runs seen (id → last announce) and their claims."""

    def __init__(self, seen: dict[str, float], claims: dict[str, tuple[str, str]]) -> None:
        self.seen, self.claims = seen, claims

    def zrangebyscore(self, _key, low, _high, withscores=False):
        return [(run, t) for run, t in self.seen.items() if t >= low]

    def hmget(self, key, *_fields):
        return list(self.claims.get(key.rsplit(":", 1)[-1], (None, None)))


def test_a_run_whose_driver_was_killed_holds_only_the_devices_busy_with_its_cases(tmp_path):
    """A driver killed with SIGKILL leaves its claim (2 devices of 2 in flight) in Redis for
    RUN_TTL_S: the next run used to wait half a minute on two idle devices. A run silent for
    SILENT_S counts for its busy devices only; one still announcing keeps its claim."""
    import time

    from farm.executors.celery import SILENT_S
    ex, _ = executor(tmp_path, Clock())
    ex._inflight.clear()
    jobs = [Job(f"s/c{i}", "web", 1.0) for i in range(2)]
    ex._queue = {"web": list(jobs)}
    ex._pool_of = {job.case_id: "web" for job in jobs}
    ex.limit = {"web": 2}
    sent: list[str] = []
    ex._send = lambda job, queue: sent.append(job.case_id)
    idle = {"web": [lease("fake-1@h"), lease("fake-2@h")]}
    now = time.time()
    ex.r = Runs({"alive": now - 1}, {"alive": ("2", "2")})
    ex._top_up(idle)
    assert sent == []                                   # a live run's claim is respected
    ex.r = Runs({"dead": now - SILENT_S - 5}, {"dead": ("2", "2")})
    ex._top_up(idle)
    assert sent == ["s/c0", "s/c1"]                     # both idle devices, at once
    ex._queue = {"web": list(jobs)}
    sent.clear()
    one_busy = {"web": [lease("fake-1@h"), {**lease("fake-2@h", "busy"), "run": "dead"}]}
    ex._top_up(one_busy)
    assert sent == ["s/c0"]                             # the dead run's case still runs there


def test_the_step_a_lost_attempt_was_in_began_as_the_last_reported_one_ended(tmp_path):
    """(before: its start was "", which the report's timeline cannot place)"""
    clock = Clock()
    ex, retry = executor(tmp_path, clock)
    case = ex.cases[retry.case_id]
    ex.cases[retry.case_id] = case.model_copy(update={"tasks": [Task(name="t", steps=[
        Step(kind="sleep", value="1"), Step(kind="sleep", value="2")])]})
    inf = ex._inflight[retry.case_id]
    ex._handle({"type": "case_started", "case": retry.case_id, "attempt": 2,
                "device": "fake-2@h", "started": "2026-12-02T04:00:00.000+00:00"})
    ex._handle({"type": "step", "case": retry.case_id, "attempt": 2, "device": "fake-2@h",
                "record": {"task": "t", "index": 1, "kind": "sleep", "label": "sleep", "line": 7,
                           "started": "2026-12-02T04:00:00.500+00:00", "duration": 1.25}})
    ex._lost(inf, "worker of fake-2@h stopped answering mid-case (lease expired)")
    lost = ex.ledger.attempts[retry.case_id][0]
    assert [(s.index, s.status, s.started) for s in lost.steps] == [
        (1, "passed", "2026-12-02T04:00:00.500+00:00"),
        (2, "error", "2026-12-02T04:00:01.750+00:00")]


def retry_beside_a_starting_device(tmp_path: Path, clock: Clock
                                   ) -> tuple[CeleryExecutor, Job, dict, list]:
    """A retry avoiding fake-1 (idle), fake-2 still starting; what it sends is recorded."""
    ex, retry = executor(tmp_path, clock)
    ex._share = lambda *_: 1
    ex.r = type("NoRuns", (), {"zrangebyscore": lambda *a, **k: []})()
    sent: list[tuple[str, str]] = []
    ex._send = lambda job, queue: sent.append((job.case_id, queue))
    ex._queue = {"web": [retry]}
    leases = {name: {"device": name, "platform": "web", "group": "default", "state": state}
              for name, state in (("fake-1@h", "idle"), ("fake-2@h", "starting"))}
    return ex, retry, leases, sent


def test_a_retry_waits_for_another_device_still_starting_not_the_one_that_failed(tmp_path):
    """A plugin device failed on fake-1 before fake-2's worker had opened it: the retry went
    to the pool, fake-1 took it again (and again: quarantined, the case in error) while
    fake-2 was a moment from ready. It waits for fake-2 now, the device wait at most."""
    ex, retry, leases, sent = retry_beside_a_starting_device(tmp_path, Clock())
    ex._top_up(ex._pools(leases, {}), leases, {})
    assert sent == [] and ex._queue["web"] == [retry]           # kept for fake-2
    leases["fake-2@h"]["state"] = "idle"
    ex._top_up(ex._pools(leases, {}), leases, {})
    assert sent == [(retry.case_id, "farm.dev.fake-2@h")]


def test_a_retry_goes_back_to_its_pool_when_the_starting_device_never_comes(tmp_path):
    clock = Clock()
    ex, retry, leases, sent = retry_beside_a_starting_device(tmp_path, clock)
    ex._top_up(ex._pools(leases, {}), leases, {})
    assert sent == []
    clock.t += ex.settings.cluster_device_wait
    ex._top_up(ex._pools(leases, {}), leases, {})
    assert sent == [(retry.case_id, "farm.web")]
