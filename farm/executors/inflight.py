"""An attempt a cluster run has sent to its workers (`Inflight`: what the run knows of it), and
the result of one that ends on the run's side — interrupted, or lost with its worker — made of
what its worker reported so far (`so_far`), as a local run reports such an attempt: its start,
its time, its steps, the step it was in, and the model spend of each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from farm.attempts import synthetic
from farm.results import CaseResult, StepRecord, timestamp
from farm.schedule import Job
from farm.suite.model import Case
from farm.usage import Usage


@dataclass
class Inflight:
    job: Job
    sent: float
    device: str | None = None       # who started it
    seen: float = 0.0               # last time a lease or event confirmed it running (or,
                                    # before it started, that a device could still take it)
    target: str | None = None       # sent to this device's own queue (a steered retry)
    started: str = ""               # when it started on its device (the worker's clock)
    began: float | None = None      # when we heard it started (our clock)
    steps: list[StepRecord] = field(default_factory=list)     # its steps reported so far
    spending: Usage | None = None   # the model spend of the step it is in, as last reported
    since: float | None = None      # when the process seen running it took the device
    claimed: bool = False           # its device known only from the attempt's claim
    alive: float = 0.0              # its worker's last heartbeat seen (our clock): a lost
                                    # attempt's time ends there, not when the loss was seen
    missing: float | None = None    # when the run first saw its device without a lease
                                    # since it last saw it running (our clock)


def so_far(inf: Inflight, case: Case, run_id: str, run_dir: Path, status: str, until: float,
           error: BaseException | None = None) -> CaseResult:
    """The result of an attempt ended here (interrupted, lost) with what it did so far, as
    a local run reports it: when it started, its time until ``until``, the steps its
    worker reported (their images only if they came back: a worker sends them with the
    result), the step it was in marked ``status`` and the rest not run (skipped)."""
    reason = "interrupted: the run was stopped" if status == "interrupted" else None
    result = synthetic(case, run_id, inf.job.attempt, status, inf.device, reason,
                       error)
    if inf.began is None:           # never started (or not that we heard of)
        return result
    steps = [_with_images(s, run_dir) for s in inf.steps]
    current = len(steps) + 1        # the step it was in
    rest = [(t.name, st) for t in case.tasks for st in t.steps][len(steps):]
    began = _step_began(inf.started, inf.steps)     # the step it was in: when the last
    for n, (task, step) in enumerate(rest, start=current):     # reported one ended
        steps.append(StepRecord(task=task, index=n, kind=step.kind, label=step.label,
                                line=step.line, status=status if n == current else "skipped",
                                error=str(error) if n == current and error else None,
                                started=began if n == current else "",
                                usage=inf.spending if n == current else None))
    result.started = inf.started or result.started
    result.duration = round(max(until - inf.began, _reported(result.started, inf.steps)),
                            3)
    result.steps = steps
    _spent_so_far(result, [*(s.usage for s in inf.steps), inf.spending])
    if result.parts:
        _share_out(result, case, inf.spending)
    if result.error is not None and len(steps) >= current:
        result.error.step = current
    # the step it was in, as the FAILED line names it
    result.line = next((s.line for s in steps if s.index == current and s.line),
                       result.line)
    return result


def _with_images(step: StepRecord, run_dir: Path) -> StepRecord:
    """``step`` without links to images that are not in ``run_dir``."""
    there = {f: getattr(step, f) for f in ("before", "after", "marked")}
    return step.model_copy(update={f: p if p and (run_dir / p).is_file() else None
                                   for f, p in there.items()})


def _share_out(unit: CaseResult, case: Case, spending: Usage | None) -> None:
    """A shared-context unit's attempt ended here: its steps, as its worker reported them
    (each file's numbered from 1), go to their files, each file's spend with them, as a
    unit's result keeps them; the step in progress is the last of those files' unless that
    one reported all its steps (then the next file's). Each file is a case of the run's
    results and metrics: the unit's own steps and spend were on none of them, and the run
    counted none of the calls a lost unit's attempt had paid for."""
    groups: list[list[StepRecord]] = []
    for step in unit.steps:
        if step.index == 1 or not groups:
            groups.append([])
        groups[-1].append(step)
    for part, steps in zip(unit.parts, groups):
        part.steps = steps
        _spent_so_far(part, [s.usage for s in steps])
    at = max(len(groups) - 1, 0)
    if groups and len(groups[-1]) >= sum(len(t.steps) for t in case.parts[at].tasks):
        at += 1         # (the last file reported every step: the next one had begun)
    current = unit.parts[min(at, len(unit.parts) - 1)]
    _spent_so_far(current, [*(s.usage for s in current.steps), spending])
    unit.steps = []


def _spent_so_far(result: CaseResult, reported: list[Usage | None]) -> None:
    """The model spend of the steps an attempt's worker reported before it was lost or
    stopped (the one it was in: what it had spent so far), as its result's: the calls were
    paid for, and the run's tokens, cost, budget and farm_case_tokens_total count every
    attempt from its result's usage."""
    spent = Usage()
    for usage in reported:
        if usage is not None:
            spent.add(usage)
    if spent.spent:
        result.usage = spent
        result.tokens = {"prompt": spent.prompt_tokens, "completion": spent.completion_tokens}


def _step_began(started: str, steps: list[StepRecord]) -> str:
    """When the step after ``steps`` began: as the last of them ended (the attempt's start
    when there are none); "" when that is not known."""
    if not steps:
        return started
    t = timestamp(steps[-1].started)
    if t is None:
        return ""
    return datetime.fromtimestamp(t + steps[-1].duration, timezone.utc).isoformat(
        timespec="milliseconds")


def _reported(started: str, steps: list[StepRecord]) -> float:
    """Seconds from ``started`` to the end of the last step a worker reported (0 when unknown):
    an attempt lost between heartbeats ran at least that long."""
    t0 = timestamp(started)
    ends = [t + s.duration for s in steps if (t := timestamp(s.started)) is not None]
    return 0.0 if t0 is None else max((end - t0 for end in ends), default=0.0)
