"""The live view (`farm run --broker` on a terminal) after a worker dies mid-case: the row of
a device whose process came back under its name (the supervisor restarts a killed one) is no
longer 'busy' with the lost case. Before, it said 'busy s/c 24s' to the end of the run, its
timer running, while the case had been re-run and passed on another device."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.progress import RichProgress
from farm.results import ArtifactStore, now_iso
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

GRACE = 14.0        # store.LEASE_TTL_S + 2 * store.HEARTBEAT_S
DEVICE = "browser-1@h"


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def lease(state: str = "idle", **more: object) -> dict:
    return {"device": DEVICE, "platform": "web", "group": "browser", "state": state, **more}


def started(tmp_path: Path, clock: Clock) -> tuple[CeleryExecutor, RichProgress]:
    """A run whose one case has started on DEVICE, shown in a live view."""
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [], clock=clock)
    view = RichProgress(0, 1)
    ex.events = ex.ledger.events = view
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    ex._inflight[case.id] = _Inflight(Job(case.id, "web", 1.0), clock(), seen=clock())
    ex._handle({"type": "case_started", "case": case.id, "attempt": 1, "device": DEVICE,
                "started": now_iso()})
    assert view.rows[DEVICE]["state"] == "busy" and view.rows[DEVICE]["case"] == case.id
    return ex, view


def test_a_device_back_after_losing_its_case_is_not_shown_busy_with_it(tmp_path):
    clock = Clock()
    ex, view = started(tmp_path, clock)
    back = {DEVICE: lease()}            # its process killed, started again: idle
    clock.t += GRACE + 1
    ex._check_inflight(back, {"web": list(back.values())}, clock())
    assert DEVICE in ex.outcome.lost
    assert view.rows[DEVICE]["state"] == "idle" and view.rows[DEVICE]["case"] == ""


def test_a_device_back_and_busy_with_another_case_of_the_run_keeps_that_row(tmp_path):
    clock = Clock()
    ex, view = started(tmp_path, clock)
    other = Job("s/d", "web", 1.0)
    ex.cases["s/d"] = ex.cases["s/c"].model_copy(update={"id": "s/d", "name": "d"})
    ex._pool_of["s/d"] = "web"
    ex._inflight["s/d"] = _Inflight(other, clock(), seen=clock())
    ex._handle({"type": "case_started", "case": "s/d", "attempt": 1, "device": DEVICE,
                "started": now_iso()})
    back = {DEVICE: lease("busy", run="r1", case="s/d", attempt=1)}
    clock.t += GRACE + 1
    ex._check_inflight(back, {"web": list(back.values())}, clock())
    assert DEVICE in ex.outcome.lost
    assert view.rows[DEVICE]["state"] == "busy" and view.rows[DEVICE]["case"] == "s/d"


def test_a_device_gone_after_losing_its_case_is_shown_dead(tmp_path):
    clock = Clock()
    ex, view = started(tmp_path, clock)
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())
    assert view.rows[DEVICE]["state"] == "dead"


def test_a_late_step_of_a_lost_attempt_does_not_show_on_its_device_row(tmp_path):
    """A frozen worker (SIGSTOP, a VM paused) past the lease grace loses its attempt; when it
    wakes it reports the step it was in. That step belongs to no attempt the run awaits: the
    row of its device (idle now, or running the case's retry) must not show it."""
    clock = Clock()
    ex, view = started(tmp_path, clock)
    clock.t += GRACE + 1
    ex._check_inflight({DEVICE: lease()}, {"web": [lease()]}, clock())
    step = {"task": "t", "index": 1, "kind": "sleep", "label": "sleep 1", "line": 3,
            "status": "passed", "started": now_iso(), "duration": 30.0}
    ex._handle({"type": "step", "case": "s/c", "attempt": 1, "device": DEVICE,
                "record": step})
    assert view.rows[DEVICE]["state"] == "idle" and view.rows[DEVICE]["step"] == "", \
        view.rows[DEVICE]
