"""Cluster dispatch cost, with real Celery workers and a real (private) redis-server.

1. Per-case dispatch overhead: one worker runs no-op cases back to back; the gap between one
   case's end and the next one's start on the device (result event → client → broker → worker)
   is the overhead. Prints p50 / p99.
2. Speed-up on sleep-bound cases (the machine has 2 cores; the cases only sleep, on the
   test-only `fake` device kind) at 1, 2 and 4 workers; efficiency = speed-up / workers.

    .venv/bin/python bench/dispatch.py
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.cluster import CLUSTER_ENV, wait_idle  # noqa: E402
from tests.support.farm_cli import FarmCli, results  # noqa: E402
from tests.support.redis_server import RedisServer  # noqa: E402
from tests.support.suites import sleep_suite  # noqa: E402

ENV = {"FARM_DEVICE_PLUGINS": "tests.support.devices", "FARM_WORKER_METRICS_PORT": "0",
       **CLUSTER_ENV}


def _t(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def run_cases(cli: FarmCli, url: str, suite: Path, name: str, devices: int) -> list[dict]:
    done = cli.run("run", suite, "--broker", url, "--devices", f"fake:{devices}", "--report-dir",
                   cli.tmp / name, timeout=600, **ENV)
    if done.returncode != 0:
        raise SystemExit(f"run failed:\n{done.stdout}\n{done.stderr}")
    return results(cli.tmp / name)["cases"]


def span(cases: list[dict]) -> float:
    return max(_t(c["started"]) + c["duration"] for c in cases) - min(_t(c["started"])
                                                                      for c in cases)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    # SIGTERM ends it as Ctrl-C does: through the finally below, which stops its workers
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="farm-bench-"))
    redis = RedisServer().start()
    cli = FarmCli(tmp)
    procs = []
    try:
        procs.append(cli.worker("fake:1", broker=redis.url, **ENV))
        wait_idle(redis.url, 1)
        noop = sleep_suite(tmp / "noop", 60, 0)
        cases = sorted(run_cases(cli, redis.url, noop, "noop", 1), key=lambda c: c["started"])
        gaps = [(_t(b["started"]) - (_t(a["started"]) + a["duration"])) * 1000
                for a, b in zip(cases, cases[1:])]
        q = statistics.quantiles(gaps, n=100)
        print(f"dispatch overhead per case ({len(gaps)} no-op cases, 1 worker): "
              f"p50={q[49]:.1f} ms p99={q[98]:.1f} ms")

        sleepy = sleep_suite(tmp / "sleepy", 16, 1000)
        base = None
        for n in (1, 2, 4):
            while len(procs) < n:
                procs.append(cli.worker("fake:1", broker=redis.url, **ENV))
            wait_idle(redis.url, n)
            took = span(run_cases(cli, redis.url, sleepy, f"sleepy{n}", n))
            base = base or took
            print(f"{n} worker(s): 16 x 1 s cases in {took:.2f} s  speed-up={base / took:.2f} "
                  f"efficiency={base / took / n:.2f}")
    finally:
        cli.close()
        redis.stop()


if __name__ == "__main__":
    main()
