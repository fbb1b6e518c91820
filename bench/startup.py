"""Start-up figures: cold start of `farm --help` and `farm devices` (median of N), whether
litellm was imported by them (it must not be), and the demo's wall time split into start-up,
browser launch and cases.

    .venv/bin/python bench/startup.py [--runs 7] [--no-demo]
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

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

PROBE = """
import sys, runpy, time
sys.argv = ['farm'] + sys.argv[1:]
try:
    from farm.cli import main
    main()
except SystemExit:
    pass
finally:
    heavy = [m for m in ('litellm', 'playwright', 'celery', 'PIL') if m in sys.modules]
    sys.stderr.write('\\nIMPORTED=' + ','.join(heavy) + '\\n')
"""


def cold(args: list[str], runs: int) -> tuple[float, str]:
    times, imported = [], ""
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([PY, "-c", PROBE, *args], capture_output=True, text=True,
                              cwd=ROOT)
        times.append(time.perf_counter() - t0)
        for line in proc.stderr.splitlines():
            if line.startswith("IMPORTED="):
                imported = line.split("=", 1)[1]
    return statistics.median(times), imported


def demo() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FARM_NO_PROGRESS="1", FARM_STATE_DIR=tmp)
        t0 = time.perf_counter()
        proc = subprocess.run([str(Path(PY).parent / "farm"), "run", "suites/demo",
                               "--devices", "browser:2", "--report-dir", f"{tmp}/run"],
                              capture_output=True, text=True, cwd=ROOT, env=env)
        wall = time.perf_counter() - t0
        summary = json.loads(Path(f"{tmp}/run/results.json").read_text())
        log = Path(f"{tmp}/run/farm.log").read_text()
    cases = sum(c["duration"] for c in summary["cases"])
    timing = {}
    for line in log.splitlines():
        if "TIMING " in line:
            key, value = line.split("TIMING ", 1)[1].split("=")
            timing[key] = float(value)
    print(f"demo (browser:2): exit {proc.returncode}, wall {wall:.2f}s, "
          f"counts {summary['counts']}")
    print(f"  start-up (process start → devices launching): {timing.get('startup', float('nan')):.2f}s")
    print(f"  browser launch (slowest device open):          {timing.get('launch', float('nan')):.2f}s")
    print(f"  cases (first case start → last case end):      {timing.get('cases', float('nan')):.2f}s "
          f"(sum of case durations {cases:.2f}s on 2 devices)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-demo", action="store_true")
    ns = ap.parse_args()
    for args in (["--help"], ["devices"]):
        med, imported = cold(args, ns.runs)
        print(f"farm {' '.join(args):<8} cold start median {med * 1000:.0f} ms over {ns.runs} runs;"
              f" litellm imported: {'yes' if 'litellm' in imported else 'no'}"
              f" (heavy modules loaded: {imported or 'none'})")
    if not ns.no_demo:
        demo()


if __name__ == "__main__":
    main()
