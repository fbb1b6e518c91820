"""Scheduling simulation, no services: how close each policy gets to the best possible makespan.

500 cases with lognormal durations; the scheduler only sees history estimates carrying ±50%
noise. Policies:
  farm        free devices pull the next job from one queue sorted longest-estimate-first
              (what farm.schedule.order_jobs + pick_job do, locally or across the cluster)
  static-lpt  Flank-style: shards fixed before the run, balanced longest-estimate-first
  round-robin cases dealt to devices in file order
Prints makespan / lower bound, where lower bound = max(total work / devices, longest case).

    .venv/bin/python bench/scheduler.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import heapq
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from farm.schedule import Job, order_jobs, pick_job  # noqa: E402


def farm_pull(durations: list[float], estimates: list[float], devices: int) -> float:
    """Event simulation of free devices pulling with farm's own pick_job."""
    queue = order_jobs(Job(f"c{i:04d}", "web", est) for i, est in enumerate(estimates))
    free = [(0.0, d) for d in range(devices)]
    heapq.heapify(free)
    end = 0.0
    while queue:
        t, d = heapq.heappop(free)
        job = queue.pop(pick_job(queue, f"d{d}", "web", devices - 1))
        finish = t + durations[int(job.case_id[1:])]
        end = max(end, finish)
        heapq.heappush(free, (finish, d))
    return end


def static_lpt(durations: list[float], estimates: list[float], devices: int) -> float:
    shards = [(0.0, d) for d in range(devices)]
    actual = [0.0] * devices
    for i in sorted(range(len(durations)), key=lambda i: -estimates[i]):
        load, d = heapq.heappop(shards)
        actual[d] += durations[i]
        heapq.heappush(shards, (load + estimates[i], d))
    return max(actual)


def round_robin(durations: list[float], estimates: list[float], devices: int) -> float:
    actual = [0.0] * devices
    for i, dur in enumerate(durations):
        actual[i % devices] += dur
    return max(actual)


POLICIES = {"farm": farm_pull, "static-lpt": static_lpt, "round-robin": round_robin}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    overall: dict[str, list[float]] = {p: [] for p in POLICIES}
    print(f"{args.cases} cases, lognormal durations (median 30s, sigma 0.8), estimates ±50% "
          f"noise, mean of {args.seeds} seeds; makespan / lower bound (1.00 = optimal)")
    print(f"{'devices':>8} " + " ".join(f"{p:>12}" for p in POLICIES))
    for devices in (10, 50):
        ratios: dict[str, list[float]] = {p: [] for p in POLICIES}
        for seed in range(args.seeds):
            rng = random.Random(seed)
            durations = [rng.lognormvariate(3.4, 0.8) for _ in range(args.cases)]
            estimates = [d * rng.uniform(0.5, 1.5) for d in durations]
            bound = max(sum(durations) / devices, max(durations))
            for name, policy in POLICIES.items():
                ratios[name].append(policy(durations, estimates, devices) / bound)
        for name in POLICIES:
            overall[name] += ratios[name]
        print(f"{devices:>8} " + " ".join(f"{statistics.mean(ratios[p]):>12.3f}"
                                          for p in POLICIES))
    print("makespan/lower-bound: " + " ".join(
        f"{p}={statistics.mean(v):.3f}" for p, v in overall.items()))


if __name__ == "__main__":
    main()
