"""How farm starts a Python child that imports farm (`farm worker` handing over to the
`worker` package, its device processes): ``python -P -m MODULE``. A bare ``-m`` put the
working directory first on sys.path, so a `worker.py` or `farm.py` lying there ran instead
of farm's (a user's script printing and exiting, or "'farm' is not a package")."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def python_m(module: str, *args: str) -> list[str]:
    """The argv of ``python -P -m module args...`` with this interpreter: -P (Python 3.11+)
    puts no unsafe path (the working directory) first on the child's sys.path."""
    return [sys.executable, "-P", "-m", module, *args]


def child_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` for such a child: when farm runs uninstalled from its checkout as the working
    directory (``python -m farm.cli`` there), -P would lose the checkout, so it is put first
    on PYTHONPATH; otherwise ``env`` as it is (the child imports farm where this one did)."""
    root = str(Path(__file__).resolve().parents[1])
    try:
        here = str(Path.cwd().resolve())
    except OSError:         # (a working directory removed: nothing found there)
        return env
    paths = env.get("PYTHONPATH", "").split(os.pathsep)
    if here != root or root in paths:
        return env
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [root, *paths]))}
