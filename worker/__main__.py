"""`python -m worker --devices SPEC [--group G]`: the supervisor `farm worker` hands over to."""

from __future__ import annotations

import argparse
import sys

from farm.config import load_settings
from worker.main import run_workers


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="farm worker")
    ap.add_argument("--devices", required=True)
    ap.add_argument("--group", default=None)
    args = ap.parse_args(argv)
    return run_workers(load_settings(), args.devices, args.group)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
