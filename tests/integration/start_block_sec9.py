"""A device plugin for tests that holds `farm run` in its start-up: its
``farm_device_kinds()`` writes the file FARM_TEST_STARTING names, then waits until the process
is interrupted (a Ctrl-C comes while farm reads its devices, before any output exists)."""

from __future__ import annotations

import os
import threading
from pathlib import Path


def farm_device_kinds() -> dict:
    Path(os.environ["FARM_TEST_STARTING"]).write_text("starting\n")
    threading.Event().wait()       # (a SIGINT raises KeyboardInterrupt out of it)
    return {}
