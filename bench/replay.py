"""Replay from the cache vs solving with the model, on the demo's ai case in real Chromium.

The scripted model server answers every request after --latency seconds (1 by default: a
hosted vision model's order of magnitude). The same case runs --runs times in one state
directory: the first run plans with the model and fills the cache, the others replay it.
Prints each run's wall time and model calls, and the first-run / median-replay ratio.

    .venv/bin/python bench/replay.py [--latency 1.0] [--runs 3] [--devices browser:1]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from farm.config import load_settings  # noqa: E402
from farm.session import run  # noqa: E402
from tests.support.agent_scripts import XML_FLOW, by_progress  # noqa: E402
from tests.support.model_server import ModelServer, Reply  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--devices", default="browser:1")
    args = parser.parse_args()
    script = by_progress(XML_FLOW)
    with tempfile.TemporaryDirectory(prefix="farm-replay-") as tmp_name, \
            ModelServer(lambda body, i: Reply(text=script(body, i), delay=args.latency)) as srv:
        tmp = Path(tmp_name)
        suite = tmp / "demo"
        suite.mkdir()
        shutil.copytree(ROOT / "suites" / "demo" / "app", suite / "app")
        shutil.copy(ROOT / "suites" / "demo" / "ai_shopping.yaml", suite)
        # a loaded machine must not turn the first run into a timeout
        (suite / "farm.yaml").write_text((ROOT / "suites" / "demo" / "farm.yaml").read_text()
                                         .replace("timeout: 60 ", "timeout: 600 "))
        import farm.llm.litellm_client  # noqa: F401  (litellm's import is not the model's time)
        rows = []
        for i in range(args.runs):
            settings = load_settings(report_dir=tmp / f"run{i}", state_dir=tmp / "state",
                                     model="openai/scripted", model_base_url=srv.base_url)
            before = len(srv.requests)
            started = time.perf_counter()
            code = run([suite], args.devices, settings, progress=False, out=io.StringIO())
            took = time.perf_counter() - started
            [case] = json.loads((tmp / f"run{i}" / "results.json").read_text())["cases"]
            rows.append((took, case["duration"], len(srv.requests) - before, case["status"],
                         code))
    print(f"demo ai case (ai_shopping) on {args.devices}, model latency {args.latency:g} s")
    print(f"  {'':<26} {'case':>8}  {'farm run':>8}")
    for i, (took, case_s, calls, status, code) in enumerate(rows):
        what = "first run (model plans)" if i == 0 else f"replay {i}"
        print(f"  {what:<26} {case_s:7.2f}s  {took:7.2f}s  {calls:3d} model call(s)  "
              f"{status} (exit {code})")
    if len(rows) > 1:
        case_ratio = rows[0][1] / statistics.median(r[1] for r in rows[1:])
        run_ratio = rows[0][0] / statistics.median(r[0] for r in rows[1:])
        print(f"  first run / median replay: case {case_ratio:.1f}x, whole farm run "
              f"{run_ratio:.1f}x (app server, Chromium start and report included)")


if __name__ == "__main__":
    main()
