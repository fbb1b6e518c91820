"""Scheduling as pure functions: jobs, ordering (longest expected first) and who takes what.

The one exception to longest-first: the files of a Midscene batch with ``concurrent: 1`` (its
default) form a *sequence* (``Job.sequence``): they run one after another in the batch's order,
as Midscene runs them, because teams write them to depend on each other (create → use →
cleanup). A sequence is queued ahead of independent jobs, its files in place order: it cannot
be spread over devices, so starting it first keeps it off the end of the run.

Retry decisions live in `farm.attempts`; device specs in `farm.devices.specs`.

No I/O here: the executors feed these functions what they observed and act on the answer.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Iterable, Mapping


@dataclass(frozen=True)
class Job:
    """One case attempt waiting for a device."""

    case_id: str
    platform: str
    expected_seconds: float
    attempt: int = 1
    infra_retries_used: int = 0
    test_retries_used: int = 0
    avoid_devices: frozenset[str] = field(default_factory=frozenset)
    test_retries: int | None = None     # the case's own quota (its `retries:`), else the policy's
    pin: str | None = None              # only the device answering to this name may take it
    sequence: str | None = None         # the concurrent: 1 batch whose files run in order
    place: int = 0                      # the job's place in that sequence (0-based)


def _order(job: Job) -> tuple[int, float, str, int]:
    if job.sequence is not None:
        return (0, 0.0, job.sequence, job.place)
    return (1, -job.expected_seconds, job.case_id, 0)


def order_jobs(jobs: Iterable[Job]) -> list[Job]:
    """Sequences first, each in place order; then the longest expected duration first (LPT),
    ties broken by case id for a stable order."""
    return sorted(jobs, key=_order)


def enqueue(queue: list[Job], job: Job) -> list[Job]:
    """``queue`` (ordered by `order_jobs`) with ``job`` inserted where the order puts it: a
    retry costs one insertion, not a sort of the whole queue."""
    bisect.insort_right(queue, job, key=_order)
    return queue


def expected_duration(history: Mapping[str, list[float]], case_id: str, platform: str,
                      default: float) -> float:
    """Estimate from remembered durations: the median of the most recent runs."""
    samples = history.get(f"{platform}:{case_id}") or []
    if not samples:
        return default
    recent = sorted(samples[-10:])
    mid = len(recent) // 2
    return recent[mid] if len(recent) % 2 else (recent[mid - 1] + recent[mid]) / 2


def pick_job(queue: list[Job], device: str, platform: str, other_live_devices: int,
             aliases: Iterable[str] = (), running: Iterable[Job] = ()) -> int | None:
    """Index of the job a free device should take next, or None.

    Jobs are kept in `order_jobs` order. A device skips jobs pinned to another device
    (Midscene's ``deviceId`` / ``wdaHost:wdaPort``; ``aliases`` are the other names this device
    answers to) and jobs that asked to avoid it (an infra retry goes to another device) unless
    no other live device of the platform could take them. A job of a sequence waits while an
    earlier job of its sequence is still queued (a retry, or one this device may not take)
    or ``running`` (on a device of another platform: a batch of web and android files).
    """
    fallback = None
    names = {device, *aliases}
    # sequences whose earlier job this device passed over, or is running now
    waiting: set[str] = {job.sequence for job in running if job.sequence is not None}
    for i, job in enumerate(queue):
        if job.sequence is not None and job.sequence in waiting:
            continue
        if job.sequence is not None:
            waiting.add(job.sequence)
        if job.platform != platform or (job.pin is not None and job.pin not in names):
            continue
        if device in job.avoid_devices and job.pin is None:   # (a pinned job has no other)
            if fallback is None and other_live_devices == 0:
                fallback = i
            continue
        return i
    return fallback
