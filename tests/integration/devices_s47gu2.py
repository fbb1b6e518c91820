"""A device plugin for test_open_failure_exit_s47gu2.py that adds no kind: as many a device
SDK does, it cleans up at its process's exit (atexit), here by writing "exited" into the file
FARM_TEST_EXIT_MARK names: the file is there when the process left through Python's own exit
(not os._exit)."""

from __future__ import annotations

import atexit
import os
from pathlib import Path
from typing import Any


def _exited() -> None:
    if mark := os.environ.get("FARM_TEST_EXIT_MARK"):
        Path(mark).write_text("exited")


atexit.register(_exited)


def farm_device_kinds() -> dict[str, Any]:
    return {}
