"""A cluster run hearing from a worker that its device is quarantined, said before the result
of the attempt that did it (worker.runtime `_say_out_of_service`): the run names it
quarantined at once, as a local run does (results.json ``quarantined``, the summary line, the
report's banner), even when that result ends the run before its next look at Redis; the live
view keeps the device quarantined, not idle, after that result. Before, the run read
quarantines from Redis only, once a tick: a run ended by that result never named it."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import QUARANTINE_REASON, RetryPolicy, synthetic
from farm.config import Settings
from farm.errors import DeviceLost
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.progress import RichProgress
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

DEVICE = "fake-1@h"


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


def finished(ex: CeleryExecutor) -> dict:
    result = synthetic(ex.cases["s/c"], "r1", 3, "error", DEVICE,
                       error=DeviceLost(f"{DEVICE}: start_session fails"))
    return {"type": "case_finished", "case": "s/c", "attempt": 3, "device": DEVICE,
            "result": result.model_dump(mode="json"), "artifacts": {}}


def test_a_quarantine_said_before_the_run_s_last_result_is_named(tmp_path):
    ex, view = executor(tmp_path)
    ex._inflight["s/c"] = _Inflight(Job("s/c", "web", 1.0, attempt=3, infra_retries_used=2),
                                    0.0, seen=0.0)
    ex._handle({"type": "case_started", "case": "s/c", "attempt": 3, "device": DEVICE})
    ex._handle({"type": "device_state", "device": DEVICE, "state": "quarantined",
                "detail": QUARANTINE_REASON})
    ex._handle(finished(ex))
    assert ex.ledger.done
    assert ex.outcome.quarantined == [DEVICE]
    assert view.rows[DEVICE]["state"] == "quarantined"
    ex._note_quarantine({DEVICE: QUARANTINE_REASON})    # (the next tick's look: named once)
    assert ex.outcome.quarantined == [DEVICE]
