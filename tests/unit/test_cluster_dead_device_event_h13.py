"""A cluster run hearing from a worker that its device died (could not be restarted): the run
names it lost with why, as a local run names a dead device, shows it dead in the live view, and
hands it no job while its lease still reads "dead" (before it says "draining"): before, the
run ignored the event, and a job sent in that second waited a lease grace for nothing."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.progress import RichProgress
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

DEVICE = "browser-1@h"
WHY = "could not restart: the browser would not start"


def executor(tmp_path: Path) -> tuple[CeleryExecutor, RichProgress]:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [])
    view = RichProgress(0, 1)
    ex.events = ex.ledger.events = view
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    return ex, view


def dead(**more: object) -> dict:
    return {"type": "device_state", "device": DEVICE, "state": "dead", "detail": WHY,
            "platform": "web", "group": "browser", **more}


def test_a_device_its_worker_says_died_after_a_case_is_named_lost_with_why(tmp_path):
    ex, view = executor(tmp_path)
    ex._handle(dead())
    assert ex.outcome.lost == {DEVICE: WHY}
    assert view.rows[DEVICE]["state"] == "dead"
    ex._handle(dead())                  # (said again: named once)
    assert ex.outcome.lost == {DEVICE: WHY}


def test_the_job_it_gave_back_untried_is_taken_back_and_fails_saying_why(tmp_path):
    ex, _ = executor(tmp_path)
    ex._inflight["s/c"] = _Inflight(Job("s/c", "web", 1.0), 0.0, seen=0.0)
    ex._handle(dead(case="s/c", attempt=1))
    assert not ex._inflight and [j.case_id for j in ex._queue["web"]] == ["s/c"]
    ex._fail_orphans({}, 0.0)
    ex._fail_orphans({}, ex.settings.cluster_device_wait + 1)
    (result,) = ex.ledger.results()
    assert result.status == "error" and f"{DEVICE} died in the run: {WHY}" in (
        result.error.message)


def test_a_lease_that_reads_dead_is_no_usable_device(tmp_path):
    ex, _ = executor(tmp_path)
    lease = {"device": DEVICE, "platform": "web", "group": "browser", "state": "dead",
             "detail": WHY}
    assert ex._pools({DEVICE: lease}, {}) == {}
