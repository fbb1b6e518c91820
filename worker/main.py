"""`farm worker`: one Celery worker process per device.

The supervisor (:func:`run_workers`) starts ``python -m worker.main --kind KIND`` once per
device and forwards SIGTERM/SIGINT to them. Each child claims a device name with a lease in
Redis, opens the device, and runs a solo-pool, concurrency-1 Celery worker consuming
``farm.<platform>``, ``farm.<platform>.<group>`` (matrix mode) and ``farm.dev.<device>``
(retries steered away from a failing device). SIGTERM drains: the current case finishes,
is acknowledged, then the process exits.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Sequence

from farm.cluster import store

log = logging.getLogger("farm.worker")

WORKER_KINDS = {"browser": "web", "android": "android", "android-sim": "android",
                "ios": "ios", "ios-sim": "ios", "fake": "web"}


def parse_specs(text: str) -> list[tuple[str, int]]:
    """``browser:2,fake`` → [("browser", 2), ("fake", 1)]."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, count = part.partition(":")
        if kind not in WORKER_KINDS:
            raise ValueError(f"unknown device kind {kind!r}: expected one of "
                             + ", ".join(WORKER_KINDS))
        out.append((kind, int(count or 1)))
    if not out:
        raise ValueError("no devices given: use e.g. --devices browser:2")
    return out


def claim_name(r, kind: str, info: dict) -> str:
    """The first free ``<kind>-<n>@<host>`` name not quarantined, taken with a lease."""
    host = os.environ.get("FARM_WORKER_HOST") or socket.gethostname()
    bad = store.quarantined(r)
    for n in range(1, 1000):
        name = f"{kind}-{n}@{host}"
        if name in bad:
            continue
        if store.acquire_lease(r, name, {**info, "device": name, "state": "starting"}):
            return name
    raise RuntimeError("no free device name")


def child(argv: Sequence[str]) -> int:
    """One device's worker process."""
    ap = argparse.ArgumentParser(prog="worker.main")
    ap.add_argument("--kind", required=True)
    ap.add_argument("--group", default=None)
    ap.add_argument("--loglevel", default="WARNING")
    args = ap.parse_args(argv)
    logging.basicConfig(level=args.loglevel, format="%(asctime)s %(name)s %(message)s")
    from worker import tasks
    from worker.app import app, broker_url
    from worker.runtime import DeviceRuntime
    url = broker_url()
    platform = WORKER_KINDS[args.kind]
    group = args.group or args.kind
    r = store.connect(url)
    name = claim_name(r, args.kind, {"kind": args.kind, "platform": platform, "group": group,
                                     "pid": os.getpid()})
    runtime = DeviceRuntime(url, args.kind, platform, group, name)
    try:
        runtime.start()
    except Exception as exc:
        print(f"farm worker: device {name} could not start: {exc}", file=sys.stderr)
        runtime.stop()
        return 3
    tasks.RUNTIME = runtime
    from celery import signals

    @signals.worker_shutting_down.connect
    def _drain(**_: object) -> None:
        runtime.draining()

    queues = [f"farm.{platform}", f"farm.{platform}.{group}", f"farm.dev.{name}"]
    print(f"farm worker: {name} ready (queues {', '.join(queues)})", flush=True)
    try:
        app.worker_main(["worker", "-P", "solo", "-c", "1", "-Q", ",".join(queues), "-n", name,
                         "--without-gossip", "--without-mingle", "--without-heartbeat",
                         "-l", args.loglevel])
    finally:
        runtime.stop()
    return 0


def device_targets(kind: str, count: int) -> list[str]:
    """What each of ``count`` workers of ``kind`` attaches to: a distinct adb serial or WDA
    URL for phones (two workers must never drive one phone), nothing for browsers."""
    from farm.devices.registry import android_serials, ios_urls
    from farm.errors import ConfigError
    if kind in ("android-sim", "ios-sim"):
        raise ConfigError(f"workers attach to running devices: start simulators with "
                          f"`farm sim {kind[:-4]} --count N --app ...` and use "
                          f"--devices {kind[:-4]}:N")
    if kind == "android":
        found = android_serials()
    elif kind == "ios":
        found = ios_urls()
    else:
        return [""] * count
    if len(found) < count:
        raise ConfigError(f"--devices {kind}:{count}: only {len(found)} {kind} device(s) "
                          f"found ({', '.join(found) or 'none'})")
    return found[:count]


def run_workers(url: str, specs: str, group: str | None = None) -> int:
    """Start one worker process per device in ``specs``; return when all have exited."""
    env = dict(os.environ, FARM_BROKER_URL=url, CELERY_BROKER_URL=url)
    procs = []
    for kind, count in parse_specs(specs):
        for target in device_targets(kind, count):
            cmd = [sys.executable, "-m", "worker.main", "--kind", kind]
            if group:
                cmd += ["--group", group]
            procs.append(subprocess.Popen(cmd, env={**env, "FARM_WORKER_TARGET": target}))

    def forward(signum: int, _frame: object) -> None:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    # poll every child (not wait() in order) so a drained one is reaped at once
    while any(p.poll() is None for p in procs):
        time.sleep(0.2)
    return max((p.returncode for p in procs), default=0)


if __name__ == "__main__":
    sys.exit(child(sys.argv[1:]))
