"""`farm run --broker` with a worker whose events this farm cannot read (a worker of another
farm version, mid rolling upgrade: a step status this one does not know): that attempt ends
as an error saying which worker sent what, and the run goes on. Before, the ValidationError
ended the run ("farm: internal error"), every other case's result lost with it."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.results import CaseResult, StepRecord, now_iso
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

DEVICE = "browser-1@h"


def _case(name: str) -> Case:
    return Case(id=f"s/{name}", name=name, file=Path(f"/tmp/{name}.yaml"),
                suite_root=Path("/tmp"), platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1"),
                                             Step(kind="sleep", value="2")])])


def _finished(case: Case, status: str = "passed") -> dict:
    step = StepRecord(task="t", index=1, kind="sleep", label="sleep 1").model_dump(mode="json")
    step["status"] = status
    result = CaseResult(run_id="r1", case_id=case.id, name=case.name, file=str(case.file),
                        platform="web", device=DEVICE, status="passed", started=now_iso())
    return {"type": "case_finished", "case": case.id, "attempt": 1, "device": DEVICE,
            "result": {**result.model_dump(mode="json"), "steps": [step]}, "artifacts": {}}


def test_a_result_this_farm_cannot_read_ends_its_attempt_not_the_run(tmp_path):
    odd, fine = _case("odd"), _case("fine")
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {odd.id: odd, fine.id: fine}, services, RetryPolicy(), [])
    ex._pool_of, ex._queue = {odd.id: "web", fine.id: "web"}, {"web": []}
    ex.ledger.expected = {odd.id, fine.id}
    for case in (odd, fine):
        ex._inflight[case.id] = _Inflight(Job(case.id, "web", 1.0), 0.0)
        ex._handle({"type": "case_started", "case": case.id, "attempt": 1, "device": DEVICE,
                    "started": now_iso()})
    step = _finished(odd, "warned")["result"]["steps"][0]
    ex._handle({"type": "step", "case": odd.id, "attempt": 1, "device": DEVICE,
                "record": step})
    ex._handle(_finished(odd, "warned"))
    ex._handle(_finished(fine))
    got = ex.ledger.final[odd.id]
    assert got.status == "error" and got.error is not None
    assert got.error.message.startswith(f"the result {DEVICE} sent cannot be read by farm ")
    assert "(does that worker run another farm version?): steps.0.status: Input should be " \
        "'passed'" in got.error.message and "(got 'warned')" in got.error.message
    assert [s.status for s in got.steps] == ["error", "skipped"]
    assert ex.ledger.final[fine.id].status == "passed" and not ex._inflight
