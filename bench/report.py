"""Report build time and size: the history page over 1,000 runs x 200 cases (generated into a
real SQLite results history), and one run's report.html with 2,000 cases (8 steps each, with
marks and screenshots). Targets: under 5 s and under 10 MB each.

    .venv/bin/python bench/report.py [--runs 1000] [--cases 200] [--big 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from farm.report.history_page import write_history  # noqa: E402
from farm.report.html import render_html  # noqa: E402
from farm.results import CaseError, CaseResult, Mark, RunSummary, StepRecord  # noqa: E402
from farm.results_history import RunRecord, SqliteResults  # noqa: E402
from farm.usage import Usage  # noqa: E402


def _case(rng: random.Random, run_id: str, i: int, day: float, steps: int = 0) -> CaseResult:
    """A case result: mostly passing, some flaky cases, a few real failures and infra errors."""
    flaky = i % 20 == 0
    roll = rng.random()
    status = ("failed" if (flaky and roll < 0.3) or roll < 0.02 else
              "error" if roll < 0.03 else "flaky" if flaky and roll < 0.4 else "passed")
    error = (CaseError(kind="AssertionFailed" if status == "failed" else "DeviceLost",
                       message=f"step 3: text 'Total {i}' not found on the checkout page")
             if status in ("failed", "error") else None)
    model = i % 10 == 0
    return CaseResult(
        run_id=run_id, case_id=f"suite{i % 4}/area{i % 13}/case_{i:04}", name=f"Case {i}",
        file=f"suites/suite{i % 4}/case_{i:04}.yaml", platform="web",
        device=f"browser-{i % 8}", status=status, error=error,
        duration=round(5 + (i % 37) + rng.random() * 3, 3),
        started=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(day)),
        tokens={"prompt": 4000, "completion": 200} if model else {},
        usage=Usage(prompt_tokens=4000, completion_tokens=200, cost_usd=0.0031, calls=3,
                    latency_s=2.5) if model else None,
        steps=[_step(i, n) for n in range(1, steps + 1)])


def _step(i: int, n: int) -> StepRecord:
    base = f"artifacts/case_{i:04}/attempt-1/{n:03d}"
    return StepRecord(task="main", index=n, kind="aiTap", label=f'aiTap "button {n}"', line=n,
                      duration=0.4, tier="text", rect=[100, 40 * n, 200, 36],
                      marks=[Mark(kind="tap", points=[[200, 40 * n + 18]])], screen=[1280, 800],
                      before=f"{base}-before.jpg", after=f"{base}-after.jpg",
                      marked=f"{base}-marked.svg")


def _summary(rng: random.Random, run_id: str, cases: int, day: float, steps: int = 0
             ) -> RunSummary:
    s = RunSummary(run_id=run_id, started=time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                                                        time.gmtime(day)),
                   duration=3600.0, devices=[f"browser-{d}" for d in range(8)],
                   cases=[_case(rng, run_id, i, day, steps) for i in range(cases)])
    s.recount()
    return s


def _record(rng: random.Random, r: int, cases: int, at: float, tmp: str) -> RunRecord:
    """A history record as farm writes one (built directly: 200,000 CaseResults would make
    filling the history the slow part of this benchmark)."""
    rows = []
    for i in range(cases):
        flaky, roll = i % 20 == 0, rng.random()
        status = ("failed" if (flaky and roll < 0.3) or roll < 0.02 else
                  "error" if roll < 0.03 else "flaky" if flaky and roll < 0.4 else "passed")
        rows.append({"case_id": f"suite{i % 4}/area{i % 13}/case_{i:04}", "name": f"Case {i}",
                     "status": status, "duration": round(5 + i % 37 + roll * 3, 3),
                     "device": f"browser-{i % 8}", "tokens": 4200 if i % 10 == 0 else 0,
                     "cost": 0.0031 if i % 10 == 0 else 0.0,
                     "error": None if status in ("passed", "flaky") else
                     f"AssertionFailed: step 3: text 'Total {i}' not found on the checkout page",
                     "attempts": [{"status": "failed", "device": f"browser-{(i + 1) % 8}"}]
                     if status == "flaky" else []})
    return RunRecord.model_validate({
        "run_id": f"run-{r:04d}", "started": time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                                                         time.gmtime(at)),
        "at": at, "duration": 3600.0, "report": f"{tmp}/run-{r:04d}/report.html",
        "tokens": 4200 * (cases // 10), "cost": 0.0031 * (cases // 10), "cases": rows})


def bench_history(runs: int, cases: int, repeat: int) -> None:
    rng = random.Random(12)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteResults(Path(tmp) / "results.sqlite")
        start = time.time() - runs * 3600
        t0 = time.perf_counter()
        store.add_many(_record(rng, r, cases, start + r * 3600, tmp) for r in range(runs))
        fill = time.perf_counter() - t0
        times, cpu = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            page = write_history(store, Path(tmp) / "history.html")
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        size = page.stat().st_size
    print(f"history page, {runs} runs x {cases} cases: median {statistics.median(times):.2f} s "
          f"wall, {statistics.median(cpu):.2f} s CPU (min wall {min(times):.2f}; {repeat} "
          f"builds), {size / 1e6:.2f} MB  [target < 5 s, < 10 MB]   (filling: {fill:.1f} s)")


def bench_run(cases: int, repeat: int) -> None:
    summary = _summary(random.Random(7), "big-run", cases, time.time(), steps=8)
    times, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        html = render_html(summary)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(f"run report, {cases} cases x 8 steps: median {statistics.median(times):.2f} s wall, "
          f"{statistics.median(cpu):.2f} s CPU (min wall {min(times):.2f}; {repeat} builds), "
          f"{len(html.encode()) / 1e6:.2f} MB  [target < 5 s, < 10 MB]")


def load_note() -> str:
    import os
    return (f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs: on a busy "
            f"machine wall time is mostly waiting for a CPU; CPU time is the work itself)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--big", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ns = ap.parse_args()
    bench_history(ns.runs, ns.cases, ns.repeat)
    bench_run(ns.big, ns.repeat)
    print(load_note())


if __name__ == "__main__":
    main()
