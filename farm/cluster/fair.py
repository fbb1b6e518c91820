"""Fair sharing of a device pool between concurrent runs: pure arithmetic, no I/O."""

from __future__ import annotations


def fair_allocation(capacity: int, demands: dict[str, int]) -> dict[str, int]:
    """Max-min fair split of ``capacity`` devices among runs wanting ``demands`` devices.

    Runs that want less than an equal share get what they want; the rest is split evenly,
    the remainder going to runs in id order (older run ids sort first), so every run
    competing for a pool gets at least one device whenever capacity allows it.
    """
    alloc = {run: 0 for run in demands}
    left = max(capacity, 0)
    hungry = sorted(run for run, d in demands.items() if d > 0)
    while left > 0 and hungry:
        share = max(left // len(hungry), 1)
        for run in list(hungry):
            if left == 0:
                break
            give = min(share, demands[run] - alloc[run], left)
            alloc[run] += give
            left -= give
            if alloc[run] >= demands[run]:
                hungry.remove(run)
    return alloc


def to_dispatch(capacity: int, me: str, demands: dict[str, int], inflight: dict[str, int],
                pending: int) -> int:
    """How many more jobs run ``me`` may hand to the pool now.

    A run tops up to its fair allocation, but never past free devices: jobs are only sent when
    a device can take them at once, so the longest-first order is kept (the broker queue
    stays short) and another run's later jobs are not stuck behind ours.
    """
    alloc = fair_allocation(capacity, demands).get(me, 0)
    free = capacity - sum(inflight.values())
    return max(0, min(pending, alloc - inflight.get(me, 0), free))
