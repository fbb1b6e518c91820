"""A `--matrix` run's pools (web.g1) and a plain run's (web) hold the same devices: each run
counts the other's demand for them (no broker: two executors announce into, and read from, a
Redis stand-in, and `_top_up` is called with the devices a tick would read)."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job


class Redis:
    """What announcing and topping up use of Redis: run hashes and the runs' heartbeats."""

    def __init__(self) -> None:
        self.hashes: dict[str, dict[str, str]] = {}
        self.seen: dict[str, float] = {}

    def pipeline(self) -> "Redis":
        return self

    def hset(self, key: str, mapping: dict) -> None:
        self.hashes.setdefault(key, {}).update({k: str(v) for k, v in mapping.items()})

    def expire(self, *_args) -> None:
        pass

    def zadd(self, _key: str, mapping: dict[str, float]) -> None:
        self.seen.update(mapping)       # (time.time(): runs announcing now)

    def zremrangebyscore(self, _key: str, _low: str, high: float) -> None:
        self.seen = {run: t for run, t in self.seen.items() if t > high}

    def execute(self) -> None:
        pass

    def zrangebyscore(self, _key, low, _high, withscores=False):
        return [(run, t) for run, t in self.seen.items() if t >= low]

    def hmget(self, key: str, *fields: str) -> list[str | None]:
        return [self.hashes.get(key, {}).get(f) for f in fields]


def run(tmp_path: Path, r: Redis, run_id: str, pool: str, cases: int, inflight: int,
        matrix: bool) -> tuple[CeleryExecutor, list[str]]:
    """A run of ``cases`` cases on ``pool``, ``inflight`` of them sent; the cases it sends."""
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path / run_id),
                        run_id=run_id, env={})
    ex = CeleryExecutor(settings, {}, services, RetryPolicy(), [], matrix=matrix)
    from farm.cluster.store import use_prefix
    use_prefix("farm")
    ex.r, ex.limit = r, {"web": 2}
    jobs = [Job(f"{run_id}/c{i}", "web", 1.0) for i in range(cases)]
    ex._pool_of = {job.case_id: pool for job in jobs}
    ex._queue = {pool: jobs[inflight:]}
    ex._inflight = {job.case_id: _Inflight(job, 0.0) for job in jobs[:inflight]}
    sent: list[str] = []
    ex._send = lambda job, queue: sent.append(job.case_id)
    ex._announce()
    return ex, sent


def devices(*states: tuple[str, str | None]) -> dict[str, list[dict]]:
    """The pools of a tick: one device of group g1 per (state, run of its case)."""
    leases = [{"device": f"fake-{i}@h", "platform": "web", "group": "g1", "state": state,
               **({"run": busy_with} if busy_with else {})}
              for i, (state, busy_with) in enumerate(states, 1)]
    return {"web": leases, "web.g1": leases}


def test_a_plain_run_waits_while_a_matrix_run_holds_its_share_of_the_devices(tmp_path):
    r = Redis()
    run(tmp_path, r, "m", "web.g1", 6, 2, matrix=True)          # holds both devices
    plain, sent = run(tmp_path, r, "p", "web", 4, 0, matrix=False)
    plain._top_up(devices(("busy", "m"), ("busy", "m")))
    assert sent == []           # before: it sent both its cases to devices it could not get
    run(tmp_path, r, "m", "web.g1", 6, 1, matrix=True)          # one of them ended
    plain._top_up(devices(("busy", "m"), ("idle", None)))
    assert sent == ["p/c0"]


def test_a_matrix_run_leaves_a_plain_run_its_share_of_the_devices(tmp_path):
    r = Redis()
    run(tmp_path, r, "p", "web", 4, 1, matrix=False)            # holds one device of two
    matrix, sent = run(tmp_path, r, "m", "web.g1", 6, 0, matrix=True)
    matrix._top_up(devices(("busy", "p"), ("idle", None)))
    assert sent == ["m/c0"]     # before: both, one of them to wait for the plain run's device
    assert r.hashes["farm:run:m"]["demand:web"] == "2"      # what plain runs read of it
