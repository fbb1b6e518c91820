"""Suite loading speed: median time to discover, read and validate 500 case files (each with a
placeholder, six located taps and six timed assertions), over N loads of the same directory.

    .venv/bin/python bench/load.py [--cases 500] [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from farm.suite.loader import load_suites  # noqa: E402

CASE = ("name: case\nweb:\n  url: https://example.com/${PAGE:-index}\ntasks:\n"
        "  - name: t\n    flow:\n" + "".join(
            f"      - aiTap: button {i}\n      - waitForText: text {i}\n        timeout: 100\n"
            for i in range(6)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--runs", type=int, default=7)
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(ns.cases):
            (Path(tmp) / f"case_{i:04}.yaml").write_text(CASE)
        times = []
        for _ in range(ns.runs):
            start = time.perf_counter()
            [suite] = load_suites([tmp], env={})
            times.append(time.perf_counter() - start)
            assert len(suite.cases) == ns.cases
    print(f"load {ns.cases} cases: median {statistics.median(times) * 1000:.0f} ms over "
          f"{ns.runs} loads (min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
