"""`farm run --broker` whose run directory cannot take a worker's screenshots (a full disk):
the case keeps the result its worker sent, and the run says once, at its end, that images
were not written, as a local run does. Before, the write's OSError was taken for the
broker's ("broker unreachable"): the result was lost, and the case, its worker idle, was
then called lost and run again."""

from __future__ import annotations

import base64
from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.results import ArtifactStore, CaseResult, now_iso
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

DEVICE = "browser-1@h"


def test_a_result_whose_screenshots_cannot_be_written_is_kept(tmp_path, capsys):
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [])
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    ex._inflight[case.id] = _Inflight(job, 0.0)
    (tmp_path / "artifacts").write_text("")     # no directory can be made there
    result = CaseResult(run_id="r1", case_id=case.id, name="c", file="/tmp/c.yaml",
                        platform="web", device=DEVICE, status="passed", started=now_iso())
    ex._handle({"type": "case_finished", "case": case.id, "attempt": 1, "device": DEVICE,
                "result": result.model_dump(mode="json"),
                "artifacts": {"artifacts/s/c/1/step-1.jpg": base64.b64encode(b"jpg").decode()}})
    assert ex.ledger.final[case.id].status == "passed" and not ex._inflight
    services.artifacts.flush()          # (the run's end)
    err = capsys.readouterr().err
    assert "farm: warning: 1 screenshot(s) not written under" in err
    assert "the report shows them missing" in err
