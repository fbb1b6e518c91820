"""`python -m worker --devices SPEC [--group G]`: the supervisor `farm worker` hands over to."""

from __future__ import annotations

import argparse
import sys

from farm.config import load_settings
from farm.errors import UserError
from worker.main import run_workers


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="farm worker")
    ap.add_argument("--devices", required=True)
    ap.add_argument("--group", default=None)
    ap.add_argument("--metrics-port", type=int, default=None)
    ap.add_argument("--loglevel", default="WARNING", help="of the device processes: INFO or "
                    "DEBUG shows Celery's logging and its own lines (its shutdown's)")
    args = ap.parse_args(argv)
    settings = load_settings()
    port = settings.worker_metrics_port if args.metrics_port is None else args.metrics_port
    try:
        return run_workers(settings, args.devices, args.group, port, args.loglevel)
    except UserError as exc:    # (the broker's ACL user may not do what a worker does)
        print(f"farm: error: {exc}", file=sys.stderr, flush=True)
        return exc.exit_code


if __name__ == "__main__":
    from worker.syspath import working_directory_not_first
    working_directory_not_first()       # (before a device plugin is imported)
    code = main(sys.argv[1:])
    from farm.leftover_threads import exit_watched
    exit_watched(code, "farm worker")
    sys.exit(code)
