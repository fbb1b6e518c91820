"""LocalExecutor after a second Ctrl-C: a case whose device has not come back ends with what
it did so far, its model spend included; one whose device came back just then (killed by the
interrupt) ends with the result its thread hands in. Read in the wrong order, that case ended
blank: no step, no spend, 0 s (the device's thread left its case as the run looked)."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.local import LocalExecutor
from farm.results import ArtifactStore, CaseResult, StepRecord
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from farm.usage import Usage

CASE = Case(id="s/c", name="c", file=Path("/tmp/s/c.yaml"), suite_root=Path("/tmp/s"),
            platform="web", web=WebTarget(url="about:blank"),
            tasks=[Task(name="t", steps=[Step(kind="ai", value="do it")])])
STEP = StepRecord(task="t", index=1, kind="ai", label="do it", status="interrupted")


def stopped(tmp_path: Path) -> tuple[LocalExecutor, Job]:
    """A run stopped with CASE in flight on device d1."""
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r",
                        env={})
    ex = LocalExecutor([], {CASE.id: CASE}, services, RetryPolicy())
    job = Job(CASE.id, "web", 1.0)
    ex.ledger.expected = {CASE.id}
    ex._slots = {"d1": SimpleNamespace(about=None)}     # type: ignore[dict-item]
    ex._inflight = {"d1": job}
    ex._stopping = True
    return ex, job


def result(status: str, **kw) -> CaseResult:
    return CaseResult(run_id="r", case_id=CASE.id, name="c", file="c.yaml", platform="web",
                      device="d1", status=status, **kw)


def test_a_case_still_running_ends_with_its_steps_and_its_spend(tmp_path):
    ex, job = stopped(tmp_path)
    spent = Usage(prompt_tokens=900, completion_tokens=9, calls=3)
    ex.services.in_flight["d1"] = SimpleNamespace(
        job=job, case=CASE, agent=SimpleNamespace(usage=spent),
        so_far=lambda: result("interrupted", steps=[STEP]))
    with ex._cond:
        ex._unreturned()
    final, = ex.ledger.results()
    assert final.status == "interrupted" and [s.index for s in final.steps] == [1]
    assert final.usage is not None and final.usage.calls == 3
    assert final.tokens == {"prompt": 900, "completion": 9}


def test_a_case_whose_device_came_back_ends_with_the_result_it_hands_in(tmp_path):
    ex, job = stopped(tmp_path)                 # its case run over: not in services.in_flight
    came_back = result("error", steps=[STEP], usage=Usage(prompt_tokens=5, calls=1))

    def hand_in() -> None:                      # the device's thread: `_record` when stopping
        with ex._cond:
            ex._inflight.pop("d1")
            ex.ledger.keep(job, came_back, "d1")
            ex._cond.notify_all()

    with ex._cond:
        threading.Thread(target=hand_in).start()    # (it waits for the lock: the run holds it)
        ex._unreturned()
    final, = ex.ledger.results()
    assert final.status == "error" and final.usage is not None and final.usage.calls == 1
