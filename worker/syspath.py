"""`python -m worker` (and each device's `python -m worker.main`) put the working directory
first on sys.path, where the `farm` command does not: a plugin's checkout folder there (e.g.
tvplug/, holding the package tvplug/) was imported as an empty namespace package, and `farm
worker` refused the plugin that `farm run` from the same folder used."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def working_directory_not_first() -> None:
    """Take the working directory that ``-m`` put first off sys.path, as the `farm` script
    has it (a PYTHONPATH naming it keeps it, where PYTHONPATH puts it); kept when farm itself
    is run from its checkout there, uninstalled."""
    if sys.flags.safe_path or not sys.path:
        return
    try:
        here = Path.cwd().resolve()
    except OSError:         # (a working directory removed: nothing to shadow)
        return
    first = Path(sys.path[0] or ".").resolve()
    if first != here or Path(__file__).resolve().parents[1] == here:
        return
    del sys.path[0]
