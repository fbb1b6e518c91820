"""What Prometheus instrumentation costs a run: the time of each recording call (median of
batches, in-process on farm's real registry), times how many of each the demo run made (read
from the run's own metrics.prom), against the demo's wall time and its median step; and the
time of one /metrics exposition (a scrape). Target: < 1% of the demo's run time.

    .venv/bin/python bench/metrics.py [--batches 7] [--calls 20000] [--results RUN_DIR]

Without --results it runs `farm run suites/demo --devices browser:2` first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from farm import metrics  # noqa: E402
from farm.results import CaseResult, RunSummary  # noqa: E402
from farm.usage import Usage  # noqa: E402


def per_call(fn: Callable[[], None], batches: int, calls: int) -> float:
    """Median seconds per call over ``batches`` batches of ``calls`` calls."""
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times)


def run_demo(tmp: str) -> Path:
    env = dict(os.environ, FARM_NO_PROGRESS="1", FARM_STATE_DIR=tmp)
    subprocess.run([str(Path(sys.executable).parent / "farm"), "run", "suites/demo",
                    "--devices", "browser:2", "--report-dir", f"{tmp}/run"],
                   capture_output=True, text=True, cwd=ROOT, env=env)
    return Path(tmp) / "run"


def events(run_dir: Path, summary: RunSummary) -> dict[str, float]:
    """How many times the run called each recording function (from its metrics.prom)."""
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families((run_dir / "metrics.prom").read_text()):
        for s in family.samples:
            if s.name in ("farm_locate_attempts_total", "farm_model_requests_total",
                          "farm_screenshot_duration_seconds_count"):
                totals[s.name] = totals.get(s.name, 0) + s.value
    devices = len(summary.devices)
    return {"locate_attempt": totals.get("farm_locate_attempts_total", 0),
            "screenshot": totals.get("farm_screenshot_duration_seconds_count", 0),
            "model_request": totals.get("farm_model_requests_total", 0),
            # busy + idle per attempt, starting + idle + done per device
            "device_state": 2 * len(summary.cases) + 3 * devices,
            "case_finished": len(summary.cases)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--results", type=Path, help="a run directory instead of running the demo")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.results or run_demo(tmp)
        summary = RunSummary.model_validate(json.loads((run_dir / "results.json").read_text()))
        counts = events(run_dir, summary)
    sample = max(summary.cases, key=lambda c: len(c.steps))
    case = CaseResult.model_validate({**sample.model_dump(), "platform": "bench"})
    usage = Usage(prompt_tokens=1500, completion_tokens=80, cost_usd=0.001, calls=1)
    calls: dict[str, Callable[[], None]] = {
        "locate_attempt": lambda: metrics.locate_attempt("text", "hit"),
        "screenshot": lambda: metrics.screenshot("bench", 0.05),
        "model_request": lambda: metrics.model_request("bench", "ok", 1.2, usage),
        "device_state": lambda: metrics.device_state("bench", "bench-1", "busy"),
        "case_finished": lambda: metrics.case_finished(case),
    }
    cost = {name: per_call(fn, args.batches, args.calls if name != "case_finished"
                           else args.calls // 10) for name, fn in calls.items()}
    scrape = per_call(metrics.exposition, args.batches, 50)

    steps = [s for c in summary.cases for s in c.steps if s.status != "skipped"]
    step_median = statistics.median(s.duration for s in steps) if steps else 0.0
    total = sum(cost[n] * counts[n] for n in calls)
    print(f"instrumentation, per call (median of {args.batches} batches):")
    for name in calls:
        print(f"  {name:<15} {cost[name] * 1e6:7.2f} us   x {counts[name]:6.0f} in the demo")
    print(f"demo: {len(summary.cases)} cases, {len(steps)} steps, wall {summary.duration:.1f} s, "
          f"median step {step_median * 1000:.0f} ms")
    per_step = total / max(len(steps), 1)
    print(f"instrumentation per step: {per_step * 1e6:.1f} us = "
          f"{100 * per_step / step_median if step_median else 0:.4f}% of a median step")
    print(f"instrumentation for the whole run: {total * 1000:.2f} ms = "
          f"{100 * total / summary.duration if summary.duration else 0:.4f}% of its wall time "
          f"(target < 1%)")
    print(f"one /metrics scrape (exposition of this registry): {scrape * 1000:.2f} ms")


if __name__ == "__main__":
    main()
