"""A shareBrowserContext unit farm is killed in: which of its files was running. The journal
guessed it from step numbers, so a file that ended early (a failure, its batch going on) was
taken for the one running until the next file's first step ended: killed during that step
(a long sleep, a model call), the rebuild said the failed file "farm stopped while it ran" and
the one running "not run". The runner now says when each file begins (`Services.on_file`),
both executors pass it on as ``file_started``, and the journal writes it as it comes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.executors.base import NullEvents
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.executors.local import LocalExecutor
from farm.journal import CUT_SHORT, NOT_STARTED, UNSAVED, JournalEvents, recover
from farm.results import ArtifactStore, StepRecord
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Shared, Step, Task, WebTarget
from worker.outbox import describe

PLANNED = [("s/index", "batch (shared context: a.yaml, b.yaml, c.yaml)", "s/a.yaml", "web")]
FILES = {"s/index": [("s/a", "A", "s/a.yaml", 2), ("s/b", "B", "s/b.yaml", 2),
                     ("s/c", "C", "s/c.yaml", 1)]}


def _step(index: int, status: str = "passed") -> StepRecord:
    return StepRecord(task="t", index=index, kind="javascript", label="js", status=status)


def _rebuilt(run_dir: Path) -> dict[str, tuple[str, str | None]]:
    return {c.case_id: (c.status, c.reason) for c in recover(run_dir).cases}


def test_a_file_that_failed_early_is_not_taken_for_the_one_running(tmp_path):
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", PLANNED, files=FILES)
    journal.case_started("browser-1", "s/index", "batch", 1)
    journal.file_started("browser-1", "s/index", "s/a")
    journal.step_finished("browser-1", _step(1, "failed"))     # a fails; its batch goes on
    journal.file_started("browser-1", "s/index", "s/b")
    # killed during b's first step (a 20 s sleep): no close()
    assert _rebuilt(tmp_path) == {"s/a": ("interrupted", UNSAVED),
                                  "s/b": ("interrupted", CUT_SHORT),
                                  "s/c": ("skipped", NOT_STARTED)}


def test_a_retry_s_files_are_its_own(tmp_path):
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", PLANNED, files=FILES)
    journal.case_started("browser-1", "s/index", "batch", 1)
    for file in ("s/a", "s/b", "s/c"):
        journal.file_started("browser-1", "s/index", file)
    journal.case_started("browser-1", "s/index", "batch", 2)
    journal.file_started("browser-1", "s/index", "s/a")
    assert _rebuilt(tmp_path) == {"s/a": ("interrupted", CUT_SHORT),
                                  "s/b": ("skipped", NOT_STARTED),
                                  "s/c": ("skipped", NOT_STARTED)}


def _unit(tmp_path: Path) -> Case:
    """a.yaml fails at its first step of two; b.yaml's first step runs the script ``hold``;
    continueOnError: true."""
    steps = {"a": [Step(kind="javascript", value="fail"), Step(kind="javascript", value="1")],
             "b": [Step(kind="javascript", value="hold"), Step(kind="javascript", value="2")]}
    parts = [Case(id=f"s/{n}", name=n, file=tmp_path / f"{n}.yaml", suite_root=tmp_path,
                  platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                  tasks=[Task(name="t", steps=steps[n])],
                  shared=Shared(batch="index.yaml", unit_id="s/index", order=i,
                                continue_on_error=True))
             for i, n in enumerate(("a", "b"))]
    return parts[0].model_copy(update={"id": "s/index", "name": "batch", "tasks": [],
                                       "parts": parts})


def test_a_local_run_killed_in_the_next_file_is_rebuilt_with_that_file_running(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    seen: dict[str, Any] = {}

    def hold(device: FakeDevice) -> str:      # farm killed here: what would the rebuild say
        seen.update(_rebuilt(run_dir))
        return "held"
    unit = _unit(tmp_path)
    journal = JournalEvents(NullEvents(), run_dir, "run-1",
                            [(unit.id, unit.name, "s/a.yaml", "web")],
                            files={unit.id: [("s/a", "a", "a.yaml", 2),
                                             ("s/b", "b", "b.yaml", 2)]})
    device = FakeDevice(UITree(source="dom"), name="browser-1",
                        scripts={"fail": StepFailed("boom"), "hold": hold, "1": 1, "2": 2})
    services = Services(settings=Settings(), artifacts=ArtifactStore(run_dir), run_id="r1",
                        env={})
    LocalExecutor([device], {unit.id: unit}, services, RetryPolicy()).run(
        [Job(unit.id, "web", 1.0)], journal)
    assert seen == {"s/a": ("interrupted", UNSAVED), "s/b": ("interrupted", CUT_SHORT)}


class Told(NullEvents):
    def __init__(self) -> None:
        self.files: list[tuple[str, str, str]] = []

    def file_started(self, device: str, unit_id: str, file_id: str, started: str = "") -> None:
        self.files.append((device, unit_id, file_id))


def test_a_worker_s_word_that_a_file_began_reaches_the_run_s_events(tmp_path):
    """CeleryExecutor: a worker's ``file`` event goes on to the events (the journal) under the
    run's own id of the attempt; one of an attempt the run no longer awaits does not."""
    unit = _unit(tmp_path)
    settings = Settings(broker_url="redis://127.0.0.1:1/0")
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {unit.id: unit}, services, RetryPolicy(), [])
    told = ex.events = Told()
    job = Job(unit.id, "web", 1.0, attempt=2)
    ex._inflight[unit.id] = _Inflight(job, 0.0)
    event = {"type": "file", "case": unit.id, "attempt": 2, "device": "fake-1@h",
             "file": "s/b"}
    ex._handle(event)
    ex._handle({**event, "attempt": 1})         # a lost attempt's, late
    assert told.files == [("fake-1@h", "s/index", "s/b")]
    assert describe(event) == "the start of s/b in s/index attempt 2"
