"""A worker running another farm version: its lease says which, and a run that uses it says
so once on stderr and in the error of a job that vanished unread (an older worker cannot read
a newer run's case and drops it unclaimed: the run said only that the job vanished from the
broker, leaving the user to guess)."""

from __future__ import annotations

from pathlib import Path

from farm import __version__
from farm.attempts import RetryPolicy
from farm.cluster import store
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

DEVICE = "fake-1@h"


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def sent(tmp_path: Path, clock: Clock) -> tuple[CeleryExecutor, Job]:
    """A run with one case sent and not heard of since (no infra retry: its loss is final)."""
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0", cluster_infra_retries=0)
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [], clock=clock)
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    ex._inflight[case.id] = _Inflight(job, clock(), seen=clock())
    return ex, job


def lease(**more: object) -> dict:
    return {"device": DEVICE, "platform": "web", "group": "fake", "state": "idle",
            "since": 100.0, **more}


def vanished_error(tmp_path: Path, idle: dict) -> str:
    clock = Clock()
    ex, job = sent(tmp_path, clock)
    clock.t += 21
    ex._check_inflight({DEVICE: idle}, {"web": [idle]}, clock(), {})
    result, = ex.ledger.results()
    assert result.status == "error" and result.error is not None
    return result.error.message


def test_a_workers_lease_says_its_farm_version():
    assert store.this_machine()["version"] == __version__


def test_a_job_an_older_worker_dropped_names_its_version(tmp_path):
    said = vanished_error(tmp_path, lease(version="0.0.9"))
    assert said.startswith("the job vanished from the broker before any worker took it (")
    assert f"{DEVICE} runs farm 0.0.9; this run farm {__version__}" in said
    unsaid = vanished_error(tmp_path, lease())           # a lease of before: no version
    assert f"{DEVICE} runs an earlier farm" in unsaid


def test_a_job_that_vanished_from_a_worker_of_this_version_says_only_that(tmp_path):
    said = vanished_error(tmp_path, lease(version=__version__))
    assert said == "the job vanished from the broker before any worker took it"


def test_the_run_warns_once_of_a_worker_of_another_version(tmp_path, capsys):
    ex, _ = sent(tmp_path, Clock())
    pools = {"web": [lease(version="0.0.9"),
                     {**lease(version=__version__), "device": "fake-2@h"}]}
    ex._say_versions(pools)
    ex._say_versions(pools)
    err = capsys.readouterr().err
    assert err == (f"farm: warning: worker {DEVICE} runs farm 0.0.9, this run farm "
                   f"{__version__}: it may not read this run's cases (run the same farm "
                   "version on every worker and client)\n")
