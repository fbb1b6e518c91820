"""Scheduling simulation, no services: how close each policy gets to the best possible makespan.

500 cases with lognormal durations; the scheduler only sees history estimates carrying ±50%
noise. Policies:
  farm        free devices pull the next job from one queue sorted longest-estimate-first
              (what farm.schedule.order_jobs + pick_job do, locally or across the cluster)
  file-order  free devices pull the next case in file order (the simple thing a team does first)
  static-lpt  Flank-style: shards fixed before the run, balanced longest-estimate-first
  round-robin cases dealt to devices in file order
Scenarios: all cases with history; 30% of cases new (no history: they get the mean of the
known estimates, as farm does); 10% of cases fail once and are retried (a pulled retry joins
the queue where its estimate puts it; a static shard re-runs it itself); a set-up cost of 5 s
per case (app install / login). Prints makespan / lower bound (1.00 = optimal), where lower
bound = max(total work / devices, longest case), then the scheduler's own cost (order_jobs +
pick_job + pop + enqueue of retries, no simulation) to plan 20,000 cases on 1,000 devices.

    .venv/bin/python bench/scheduler.py [--seeds 20]
"""

from __future__ import annotations

import argparse
import heapq
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from farm.schedule import Job, enqueue, order_jobs, pick_job  # noqa: E402


@dataclass
class Workload:
    durations: list[float]                       # one attempt's real duration
    estimates: list[float]                       # what history says
    retried: set[int] = field(default_factory=set)   # cases whose first attempt fails
    setup: float = 0.0                           # seconds before each attempt starts

    def work(self, i: int) -> float:
        return self.setup + self.durations[i]

    def total(self) -> float:
        return sum(self.work(i) * (2 if i in self.retried else 1)
                   for i in range(len(self.durations)))


def _pull(w: Workload, devices: int, queue: list[Job], requeue) -> float:
    """Event simulation: a free device takes ``pick_job``'s job; a failed first attempt is
    re-queued by ``requeue(queue, job)``."""
    free = [(0.0, d) for d in range(devices)]
    heapq.heapify(free)
    running: list[tuple[float, int, Job]] = []
    end = 0.0
    while queue or running:
        if queue and free:
            t, d = heapq.heappop(free)
            # the retry of a case that finished meanwhile is queued before the device picks
            while running and running[0][0] <= t:
                _, _, done = heapq.heappop(running)
                queue = requeue(queue, done)
            if not queue:
                heapq.heappush(free, (t, d))
                continue
            job = queue.pop(pick_job(queue, f"d{d}", "web", devices - 1))
            finish = t + w.work(int(job.case_id[1:]))
            end = max(end, finish)
            heapq.heappush(free, (finish, d))
            heapq.heappush(running, (finish, d, job))
        elif running:
            _, _, done = heapq.heappop(running)
            queue = requeue(queue, done)
        else:
            break
    return end


def _retry(job: Job, w: Workload) -> Job | None:
    if job.attempt == 1 and int(job.case_id[1:]) in w.retried:
        return Job(job.case_id, job.platform, job.expected_seconds, attempt=2)
    return None


def farm_pull(w: Workload, devices: int) -> float:
    queue = order_jobs(Job(f"c{i:05d}", "web", e) for i, e in enumerate(w.estimates))

    def requeue(q: list[Job], done: Job) -> list[Job]:
        retry = _retry(done, w)
        return enqueue(q, retry) if retry else q
    return _pull(w, devices, queue, requeue)


def file_order(w: Workload, devices: int) -> float:
    queue = [Job(f"c{i:05d}", "web", e) for i, e in enumerate(w.estimates)]

    def requeue(q: list[Job], done: Job) -> list[Job]:
        retry = _retry(done, w)
        return q + [retry] if retry else q
    return _pull(w, devices, queue, requeue)


def static_lpt(w: Workload, devices: int) -> float:
    shards = [(0.0, d) for d in range(devices)]
    actual = [0.0] * devices
    for i in sorted(range(len(w.durations)), key=lambda i: -w.estimates[i]):
        load, d = heapq.heappop(shards)
        actual[d] += w.work(i) * (2 if i in w.retried else 1)
        heapq.heappush(shards, (load + w.estimates[i], d))
    return max(actual)


def round_robin(w: Workload, devices: int) -> float:
    actual = [0.0] * devices
    for i in range(len(w.durations)):
        actual[i % devices] += w.work(i) * (2 if i in w.retried else 1)
    return max(actual)


POLICIES = {"farm": farm_pull, "file-order": file_order, "static-lpt": static_lpt,
            "round-robin": round_robin}


def workload(rng: random.Random, cases: int, scenario: str) -> Workload:
    durations = [rng.lognormvariate(3.4, 0.8) for _ in range(cases)]
    estimates = [d * rng.uniform(0.5, 1.5) for d in durations]
    w = Workload(durations, estimates)
    if scenario == "30% new":
        new = set(rng.sample(range(cases), int(cases * 0.3)))
        known = [e for i, e in enumerate(estimates) if i not in new]
        mean = statistics.mean(known)
        w.estimates = [mean if i in new else e for i, e in enumerate(estimates)]
    elif scenario == "10% retried":
        w.retried = set(rng.sample(range(cases), int(cases * 0.1)))
    elif scenario == "setup 5s":
        w.setup = 5.0
    return w


def planning_cost(cases: int = 20_000, devices: int = 1_000, retries: int = 2_000) -> float:
    """Seconds farm's scheduler itself spends on a run: order the queue, each free device's
    pick and pop, and ``retries`` re-queued attempts (no simulation of the cases)."""
    rng = random.Random(0)
    jobs = [Job(f"c{i:05d}", "web", rng.lognormvariate(3.4, 0.8)) for i in range(cases)]
    started = time.perf_counter()
    queue = order_jobs(jobs)
    n = 0
    while queue:
        job = queue.pop(pick_job(queue, f"d{n % devices}", "web", devices - 1))
        n += 1
        if n <= retries:
            queue = enqueue(queue, Job(job.case_id, "web", job.expected_seconds, attempt=2,
                                       avoid_devices=frozenset({"d0"})))
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    print(f"{args.cases} cases, lognormal durations (median 30s, sigma 0.8), estimates ±50% "
          f"noise, mean of {args.seeds} seeds; makespan / lower bound (1.00 = optimal)")
    print(f"{'scenario':<13} {'devices':>7} " + " ".join(f"{p:>12}" for p in POLICIES))
    for scenario in ("all known", "30% new", "10% retried", "setup 5s"):
        for devices in (10, 50):
            ratios: dict[str, list[float]] = {p: [] for p in POLICIES}
            for seed in range(args.seeds):
                w = workload(random.Random(seed), args.cases, scenario)
                bound = max(w.total() / devices, max(w.work(i) for i in range(args.cases)))
                for name, policy in POLICIES.items():
                    ratios[name].append(policy(w, devices) / bound)
            print(f"{scenario:<13} {devices:>7} " + " ".join(
                f"{statistics.mean(ratios[p]):>12.3f}" for p in POLICIES))
    cost = planning_cost()
    print(f"scheduler's own cost, 20,000 cases on 1,000 devices with 2,000 retries: "
          f"{cost:.2f} s (target < 1 s)")


if __name__ == "__main__":
    main()
