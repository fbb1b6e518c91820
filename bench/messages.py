"""Playwright messages a case, farm vs plain Playwright: what each side's Python sends to
Playwright's driver and receives from it (replies not counted: one per call sent) in the demo's
zero-token cases on one Chromium (bench/vs_playwright.py's cases and plain script). Each message
costs Python CPU in Playwright's client and the event loop (about half of farm's, by
bench/cpu_profile.py), so this is where the Python CPU ratio comes from.

Prints, per side, messages sent and events received a case, then the most frequent kinds side
by side (a CDP command of a DevTools session is named by its CDP method).

    .venv/bin/python bench/messages.py [--copies 3] [--top 15]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.vs_playwright import CASES, _suite  # noqa: E402

# Run in a child: count what Playwright's connection sends and dispatches, then run argv[1]
# (a module, or a script path) as __main__ with the rest of argv; the counts go to $COUNTS.
COUNTER = r"""
import atexit, collections, json, os, runpy, sys
from playwright._impl import connection
sent, got = collections.Counter(), collections.Counter()
send, dispatch = connection.Connection.send_message_to_server, connection.Connection.dispatch
def counted_send(self, obj, method, params, options):
    sub = params.get("method") if method == "send" and isinstance(params, dict) else None
    sent[f"{type(obj).__name__}.{method}" + (f" {sub}" if sub else "")] += 1
    return send(self, obj, method, params, options)
def counted_dispatch(self, message):
    if not message.get("id"):
        params = message.get("params") or {}
        sub = params.get("method") if message.get("method") == "event" else None
        got[str(message.get("method")) + (f" {sub}" if sub else "")] += 1
    return dispatch(self, message)
connection.Connection.send_message_to_server = counted_send
connection.Connection.dispatch = counted_dispatch
atexit.register(lambda: open(os.environ["COUNTS"], "w").write(json.dumps([sent, got])))
target, sys.argv = sys.argv[1], sys.argv[1:]
if target.endswith(".py"):
    runpy.run_path(target, run_name="__main__")
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
"""


def counted(args: list[str], counts: Path, env: dict[str, str]) -> tuple[Counter, Counter]:
    proc = subprocess.run([sys.executable, "-c", COUNTER, *args], env={**env, "COUNTS":
                          str(counts)}, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0 or not counts.exists():
        raise SystemExit(f"{args[0]} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    sent, got = json.loads(counts.read_text())
    return Counter(sent), Counter(got)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=3, help="each case this many times a run")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--screenshots", default="", help="farm run --screenshots MODE")
    args = ap.parse_args()
    from farm.config import load_settings
    from farm.devices.chromium import BROWSER_FLAGS, find_chromium
    info = find_chromium(load_settings())
    if info is None:
        raise SystemExit("no Chromium found (apt-get install chromium or set FARM_CHROMIUM_PATH)")
    with tempfile.TemporaryDirectory(prefix="farm-messages-") as tmp:
        root = Path(tmp)
        env = {**os.environ, "FARM_NO_PROGRESS": "1", "FARM_STATE_DIR": str(root / "state")}
        suite = _suite(CASES, root, args.copies)
        farm = counted(["farm.cli", "run", str(suite), "--devices", "browser:1",
                        "--report-dir", str(root / "run"), "--no-progress"]
                       + (["--screenshots", args.screenshots] if args.screenshots else []),
                       root / "farm.json", env)
        plain = counted([str(ROOT / "bench" / "vs_playwright.py"), "--plain",
                         str(root / "plain.json"), "--chromium", str(info.path), "--cases",
                         ",".join(CASES * args.copies), "--", *BROWSER_FLAGS],
                        root / "plain-counts.json", env)
    cases = len(CASES) * args.copies
    print(f"{cases} cases a side ({', '.join(CASES)}, {args.copies} times each), "
          f"chromium {info.path}")
    for title, i in (("sent to the driver", 0), ("events received", 1)):
        f, p = farm[i], plain[i]
        print(f"{title} a case: farm {sum(f.values()) / cases:.1f}, "
              f"plain {sum(p.values()) / cases:.1f}")
        print(f"  {'farm':>6} {'plain':>6}  kind (a case)")
        for kind, _n in (f + p).most_common(args.top):
            print(f"  {f[kind] / cases:6.1f} {p[kind] / cases:6.1f}  {kind}")


if __name__ == "__main__":
    main()
