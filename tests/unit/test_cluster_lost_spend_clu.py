"""CeleryExecutor: an attempt lost with its worker (killed mid-case) keeps the model spend of
the steps the worker reported: those calls were paid for, yet the run's summary, its model
budget and farm_case_tokens_total (every attempt, from its result's usage) counted none of
them (no broker: the watching logic is called with the leases a tick would read)."""

from __future__ import annotations

from pathlib import Path

from farm import metrics
from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.executors.celery import CeleryExecutor, _Inflight
from farm.results import ArtifactStore, case_usage
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

GRACE = 14.0        # store.LEASE_TTL_S + 2 * store.HEARTBEAT_S
DEVICE = "fake-1@h"
USAGE = {"prompt_tokens": 1289, "completion_tokens": 10, "cost_usd": 0.02, "calls": 1}


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def running(tmp_path: Path, clock: Clock) -> tuple[CeleryExecutor, Job]:
    """A run whose one case started on DEVICE and reported its first step, an ai step."""
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="do it"),
                                             Step(kind="sleep", value="8000")])])
    settings = Settings(broker_url="redis://127.0.0.1:1/0", cluster_infra_retries=0)
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {case.id: case}, services, RetryPolicy(), [], clock=clock)
    job = Job(case.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {case.id: "web"}, {"web": []}, {case.id}
    ex._inflight[case.id] = _Inflight(job, clock(), seen=clock())
    ex._handle({"type": "case_started", "case": case.id, "attempt": 1, "device": DEVICE})
    ex._handle({"type": "step", "case": case.id, "attempt": 1, "device": DEVICE,
                "record": {"task": "t", "index": 1, "kind": "ai", "label": "do it",
                           "status": "passed", "rounds": 1, "usage": USAGE}})
    return ex, job


def test_a_lost_attempt_keeps_the_spend_its_worker_reported(tmp_path):
    clock = Clock()
    ex, job = running(tmp_path, clock)
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())             # its lease is gone: the worker died
    result, = ex.ledger.results()
    assert result.status == "error" and result.usage is not None
    spent = case_usage(result)
    assert (spent.prompt_tokens, spent.completion_tokens, spent.calls) == (1289, 10, 1)
    assert round(spent.cost_usd, 3) == 0.02
    assert result.tokens == {"prompt": 1289, "completion": 10}
    before = metrics.CASE_TOKENS.labels("web", "prompt")._value.get()
    metrics.case_finished(result)
    assert metrics.CASE_TOKENS.labels("web", "prompt")._value.get() - before == 1289


def test_an_attempt_lost_before_any_model_call_spent_nothing(tmp_path):
    clock = Clock()
    ex, job = running(tmp_path, clock)
    ex._inflight[job.case_id].steps.clear()
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())
    result, = ex.ledger.results()
    assert result.usage is None and result.tokens == {}


def spend(case_id: str, after: int, calls: int) -> dict:
    """A worker's report of what the step after ``after`` reported steps has spent so far."""
    return {"type": "spend", "case": case_id, "attempt": 1, "device": DEVICE, "after": after,
            "usage": {"prompt_tokens": 500 * calls, "completion_tokens": 5 * calls,
                      "cost_usd": 0.01 * calls, "calls": calls}}


def test_a_lost_attempt_keeps_the_spend_of_the_step_it_was_in(tmp_path):
    """Killed mid-step: the calls that step had made are the attempt's and that step's."""
    clock = Clock()
    ex, job = running(tmp_path, clock)
    ex._handle(spend(job.case_id, 1, 1))
    ex._handle(spend(job.case_id, 1, 3))       # (each report: the step's spend so far)
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())
    result, = ex.ledger.results()
    spent = case_usage(result)
    assert (spent.prompt_tokens, spent.completion_tokens, spent.calls) == (1289 + 1500, 25, 4)
    assert result.tokens == {"prompt": 1289 + 1500, "completion": 25}
    first, current = result.steps
    assert first.usage is not None and first.usage.calls == 1
    assert current.status == "error" and current.usage is not None
    assert current.usage.calls == 3


def test_the_spend_of_a_step_already_reported_is_not_counted_twice(tmp_path):
    """A spend report sent before the step's record (the record has it) or for another
    attempt counts for nothing."""
    clock = Clock()
    ex, job = running(tmp_path, clock)
    ex._handle(spend(job.case_id, 0, 1))        # step 1's, its record already in
    ex._handle({**spend(job.case_id, 1, 2), "attempt": 2})
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())
    result, = ex.ledger.results()
    assert case_usage(result).calls == 1
    assert result.steps[1].usage is None


def test_a_lost_shared_context_unit_gives_each_file_its_steps_and_spend(tmp_path):
    """A unit (shareBrowserContext) lost in its second file: the first file's reported step
    and its spend are that file's, the spend of the step in progress the second's; before,
    the spend was the unit's own, on none of the files the run's results count."""
    from farm.shared_context import expand
    clock = Clock()
    files = [Case(id=f"s/{n}", name=n, file=Path(f"/tmp/{n}.yaml"), suite_root=Path("/tmp"),
                  platform="web", web=WebTarget(url="about:blank"),
                  tasks=[Task(name="t", steps=[Step(kind="ai", value="do it")])])
             for n in ("a", "b")]
    unit = files[0].model_copy(update={"id": "s/index", "tasks": [], "parts": files})
    settings = Settings(broker_url="redis://127.0.0.1:1/0", cluster_infra_retries=0)
    services = Services(settings=settings, artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    ex = CeleryExecutor(settings, {unit.id: unit}, services, RetryPolicy(), [], clock=clock)
    job = Job(unit.id, "web", 1.0)
    ex._pool_of, ex._queue, ex.ledger.expected = {unit.id: "web"}, {"web": []}, {unit.id}
    ex._inflight[unit.id] = _Inflight(job, clock(), seen=clock())
    ex._handle({"type": "case_started", "case": unit.id, "attempt": 1, "device": DEVICE})
    ex._handle({"type": "step", "case": unit.id, "attempt": 1, "device": DEVICE,
                "record": {"task": "t", "index": 1, "kind": "ai", "label": "do it",
                           "status": "passed", "usage": USAGE}})
    ex._handle(spend(unit.id, 1, 2))
    clock.t += GRACE + 1
    ex._check_inflight({}, {}, clock())
    lost, = ex.ledger.results()
    a, b = expand([lost], {unit.id: unit})
    assert (a.case_id, a.status, b.case_id, b.status) == ("s/a", "error", "s/b", "error")
    assert [s.index for s in a.steps] == [1] and b.steps == []
    assert a.usage is not None and a.usage.calls == 1
    assert b.usage is not None and b.usage.calls == 2
