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
from typing import TYPE_CHECKING, Callable, Sequence

from farm.cluster import store

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings

log = logging.getLogger("farm.worker")

def claim_name(r, kind: str, info: dict, host: str | None) -> str:
    """The first free ``<kind>-<n>@<host>`` name not quarantined, taken with a lease."""
    host = host or socket.gethostname()
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
    ap.add_argument("--target", default="", help="adb serial / WDA URL this device attaches to")
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--metrics-port", type=int, default=0)
    ap.add_argument("--loglevel", default="WARNING")
    args = ap.parse_args(argv)
    logging.basicConfig(level=args.loglevel, format="%(asctime)s %(name)s %(message)s")
    from farm.config import load_settings
    from farm.devices.specs import known_kinds
    from worker import tasks
    from worker.runtime import DeviceRuntime
    settings = load_settings()
    store.use_prefix(settings.cluster_prefix)
    platform = known_kinds(settings)[args.kind]
    group = args.group or args.kind
    r = store.connect(settings.broker_url.get_secret_value())
    name = claim_name(r, args.kind, {"kind": args.kind, "platform": platform, "group": group,
                                     "pid": os.getpid()}, settings.worker_host)
    runtime = DeviceRuntime(settings, args.kind, platform, group, name, args.target, args.index)
    metrics_at = serve_metrics(args.metrics_port, settings.metrics_host, runtime.ready)
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
    print(f"farm worker: {name} ready (queues {', '.join(queues)}{metrics_at})", flush=True)
    try:
        tasks.app.worker_main(["worker", "-P", "solo", "-c", "1", "-Q", ",".join(queues),
                               "-n", name, "--without-gossip", "--without-mingle",
                               "--without-heartbeat", "-l", args.loglevel])
    finally:
        runtime.stop()
    return 0


def serve_metrics(port: int, host: str, ready: Callable[[], bool]) -> str:
    """/metrics, /healthz, /ready of this device's process from ``port`` on (the first free
    one of the next 100: several `farm worker`s on one host never clash); 0: off. Returns
    what the ready line says about it."""
    from farm import metrics
    metrics.build_info("worker")
    if not port:
        return ""
    try:
        bound = metrics.MetricsServer(port, host, ready=ready, scan=100).start()
    except OSError as exc:
        print(f"farm worker: no /metrics: ports {port}-{port + 99} unusable ({exc})",
              file=sys.stderr)
        return ""
    return f", metrics :{bound}"


def run_workers(settings: "Settings", specs: str, group: str | None = None,
                metrics_port: int = 0) -> int:
    """Start one worker process per device in ``specs``; return when all have exited.
    Device *i* (counting across specs) serves /metrics from ``metrics_port`` + i."""
    from farm.devices.specs import attach_targets, parse_device_specs
    url = settings.broker_url.get_secret_value() if settings.broker_url else ""
    env = dict(os.environ, FARM_BROKER_URL=url)
    env.pop("CELERY_BROKER_URL", None)
    procs = []
    for spec in parse_device_specs(specs, settings):
        for index, target in enumerate(attach_targets(spec.kind, spec.count, settings)):
            port = metrics_port + len(procs) if metrics_port else 0
            cmd = [sys.executable, "-m", "worker.main", "--kind", spec.kind,
                   "--index", str(index), "--metrics-port", str(port)] + (
                ["--target", target] if target else [])
            if group:
                cmd += ["--group", group]
            procs.append(subprocess.Popen(cmd, env=env))

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
