"""Scheduling as pure functions: device specs, job expansion, ordering and retry decisions.

No I/O here: the executors feed these functions what they observed and act on the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from farm.errors import ConfigError

# Spec kind → platform it serves.
DEVICE_KINDS = {
    "browser": "web",
    "android": "android",
    "android-sim": "android",
    "ios": "ios",
    "ios-sim": "ios",
}

_SPEC = re.compile(r"^\s*([a-z][a-z-]*)\s*(?::\s*(\d+))?\s*$")


@dataclass(frozen=True)
class DeviceSpec:
    kind: str
    count: int

    @property
    def platform(self) -> str:
        return DEVICE_KINDS[self.kind]


def parse_device_specs(text: str) -> list[DeviceSpec]:
    """``"browser:2,android:1"`` → specs. A missing count means 1."""
    specs: list[DeviceSpec] = []
    for part in text.split(","):
        if not part.strip():
            continue
        m = _SPEC.match(part)
        if not m:
            raise ConfigError(f"bad device spec {part.strip()!r}: expected KIND[:COUNT], "
                              f"e.g. browser:2")
        kind, count = m.group(1), int(m.group(2) or 1)
        if kind not in DEVICE_KINDS:
            raise ConfigError(f"unknown device kind {kind!r}: expected one of "
                              + ", ".join(DEVICE_KINDS))
        if count < 1:
            raise ConfigError(f"device count must be at least 1 in {part.strip()!r}")
        specs.append(DeviceSpec(kind, count))
    if not specs:
        raise ConfigError("no devices given: use e.g. --devices browser:2")
    return specs


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


def order_jobs(jobs: Iterable[Job]) -> list[Job]:
    """Longest expected duration first (LPT); ties broken by case id for a stable order."""
    return sorted(jobs, key=lambda j: (-j.expected_seconds, j.case_id))


def expected_duration(history: Mapping[str, list[float]], case_id: str, platform: str,
                      default: float) -> float:
    """Estimate from remembered durations: the median of the most recent runs."""
    samples = history.get(f"{platform}:{case_id}") or []
    if not samples:
        return default
    recent = sorted(samples[-10:])
    mid = len(recent) // 2
    return recent[mid] if len(recent) % 2 else (recent[mid - 1] + recent[mid]) / 2


def pick_job(queue: list[Job], device: str, platform: str, other_live_devices: int) -> int | None:
    """Index of the job a free device should take next, or None.

    Jobs are kept longest-first. A device skips jobs that asked to avoid it (an infra retry
    goes to another device) unless no other live device of the platform could take them.
    """
    fallback = None
    for i, job in enumerate(queue):
        if job.platform != platform:
            continue
        if device in job.avoid_devices:
            if fallback is None and other_live_devices == 0:
                fallback = i
            continue
        return i
    return fallback


@dataclass(frozen=True)
class RetryPolicy:
    infra_retries: int = 1
    test_retries: int = 0


def next_attempt(job: Job, status: str, device: str, policy: RetryPolicy) -> Job | None:
    """The job to queue after an attempt ended with ``status``, or None if the case is done.

    Infrastructure errors retry on another device within the infra quota (a device that died
    must not eat the case); test failures retry up to ``test_retries`` (pass-after-fail =
    flaky). Timeouts, skips and interrupts never retry.
    """
    if status == "infra" and job.infra_retries_used < policy.infra_retries:
        return replace(job, attempt=job.attempt + 1, infra_retries_used=job.infra_retries_used + 1,
                       avoid_devices=job.avoid_devices | {device})
    quota = policy.test_retries if job.test_retries is None else job.test_retries
    if status == "failed" and job.test_retries_used < quota:
        return replace(job, attempt=job.attempt + 1, test_retries_used=job.test_retries_used + 1)
    return None
