"""`farm run --broker`, killed, then `farm report RUN_DIR`: the journal's ``start`` and
``file`` lines of a case its worker ran were written with the client's clock when the worker's
event came in (the worker sent its own time; the executor dropped it), while the case's
results and steps carry the worker's. With a worker host whose clock is off from the client's
(or events read late), the rebuilt report put the case that was running at another time than
the cases before it on the same device, and a unit's files that ended unsaved lasted the gaps
between the client reading their events, not their run time on the worker. The run's own
start and end stay the client's: the worker's clock offset is not in its duration."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.journal import CUT_SHORT, UNSAVED, JournalEvents, recover
from farm.metrics import CaseMetrics
from farm.progress import PlainProgress
from farm.results import ArtifactStore, CaseResult, StepRecord
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Shared, Step, Task, WebTarget

DEVICE = "browser-1@worker-host"
WORKER_T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
BEHIND = 3600.0         # the worker host's clock: an hour behind the client's
LATENCY = 0.05          # an event reaches the client this long after it is sent


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds")


def _at(seconds: float) -> str:
    """The worker's time ``seconds`` into the run."""
    return _iso(WORKER_T0 + timedelta(seconds=seconds))


@pytest.fixture
def client(monkeypatch) -> list[float]:
    """The client's clock (seconds into the run, by the worker's count): the journal's."""
    now = [-1.0]
    monkeypatch.setattr("farm.journal.now_iso", lambda: _iso(
        WORKER_T0 + timedelta(seconds=now[0] + BEHIND)))
    return now


def _case(name: str, parts: list[Case] | None = None) -> Case:
    return Case(id=f"s/{name}", name=name, file=Path(f"/tmp/{name}.yaml"),
                suite_root=Path("/tmp"), platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])],
                parts=parts or [])


def _unit() -> Case:
    parts = [_case(n).model_copy(update={"shared": Shared(batch="index.yaml",
                                                          unit_id="s/index", order=i)})
             for i, n in enumerate(("a", "b"))]
    return _case("index", parts)


def _executor(tmp_path: Path, cases: list[Case]) -> CeleryExecutor:
    settings = Settings(broker_url="redis://127.0.0.1:1/0")         # never connected to
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {c.id: c for c in cases}, services, RetryPolicy(), [])
    ex._pool_of, ex._queue = {c.id: "web" for c in cases}, {"web": []}
    ex.ledger.expected = {c.id for c in cases}
    for case in cases:
        ex._inflight[case.id] = _Inflight(Job(case.id, "web", 1.0), 0.0)
    planned = [(c.id, c.name, str(c.file), "web") for c in cases]
    files = {c.id: [(p.id, p.name, str(p.file), 1) for p in c.parts] for c in cases if c.parts}
    # as `farm run` chains them: case metrics → journal → progress view (which takes no time)
    journal = JournalEvents(PlainProgress(0, len(cases)), tmp_path, "r1", planned, files=files)
    ex.events = ex.ledger.events = CaseMetrics(journal)
    return ex


def _sent(ex: CeleryExecutor, client: list[float], at: float, event: dict) -> None:
    """The worker sends ``event`` at ``at`` (its clock); the client reads it a moment later."""
    client[0] = at + LATENCY
    ex._handle({**event, "attempt": 1, "device": DEVICE})


def test_a_killed_cluster_run_s_running_case_is_rebuilt_at_its_worker_s_time(tmp_path, client):
    first, second = _case("first"), _case("second")
    ex = _executor(tmp_path, [first, second])
    _sent(ex, client, 0, {"type": "case_started", "case": first.id, "started": _at(0)})
    result = CaseResult(run_id="r1", case_id=first.id, name="first", file=str(first.file),
                        platform="web", device=DEVICE, status="passed", started=_at(0),
                        duration=10.0)
    _sent(ex, client, 10, {"type": "case_finished", "case": first.id, "artifacts": {},
                           "result": result.model_dump(mode="json")})
    _sent(ex, client, 10, {"type": "case_started", "case": second.id, "started": _at(10)})
    client[0] = 40          # farm killed here, 30 s into second (the journal cannot know)
    summary = recover(tmp_path)
    rebuilt = {c.case_id: c for c in summary.cases}
    assert (rebuilt[second.id].reason, rebuilt[second.id].started) == (CUT_SHORT, _at(10))
    assert rebuilt[second.id].duration == 0.0       # (the last the journal saw: its start)
    # the run: from the client's start (1 s before the first case) to the last it saw
    assert summary.duration == pytest.approx(11 + LATENCY, abs=0.002)


def test_a_killed_unit_s_files_last_as_long_as_they_ran_on_the_worker(tmp_path, client):
    unit = _unit()
    ex = _executor(tmp_path, [unit])
    _sent(ex, client, 0, {"type": "case_started", "case": unit.id, "started": _at(0)})
    for file, at in (("s/a", 0.5), ("s/b", 7.5)):
        _sent(ex, client, at + 2, {"type": "file", "case": unit.id, "file": file,
                                   "started": _at(at)})       # (2 s late: a busy client)
    rebuilt = {c.case_id: c for c in recover(tmp_path).cases}     # farm killed during b
    assert (rebuilt["s/a"].reason, rebuilt["s/a"].started) == (UNSAVED, _at(0.5))
    assert rebuilt["s/a"].duration == 7.0
    assert (rebuilt["s/b"].reason, rebuilt["s/b"].started) == (CUT_SHORT, _at(7.5))


def test_files_told_by_an_older_worker_s_steps_are_on_its_clock_too(tmp_path, client):
    """A worker of an older farm says nothing when a file begins: the journal reads it from
    the steps, the next file beginning when a file's last step ended, by the step's times."""
    unit = _unit()
    ex = _executor(tmp_path, [unit])
    _sent(ex, client, 0, {"type": "case_started", "case": unit.id, "started": _at(0)})
    step = StepRecord(task="t", index=1, kind="sleep", label="sleep 1", started=_at(1),
                      duration=2.0)
    _sent(ex, client, 3, {"type": "step", "case": unit.id,
                          "record": step.model_dump(mode="json")})
    rebuilt = {c.case_id: c for c in recover(tmp_path).cases}     # killed during b's step 1
    assert (rebuilt["s/a"].reason, rebuilt["s/a"].duration) == (UNSAVED, 3.0)
    assert (rebuilt["s/b"].reason, rebuilt["s/b"].started) == (CUT_SHORT, _at(3))
