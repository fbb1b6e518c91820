"""A device plugin for test_cluster_claims.py: the ``fake`` kind of tests/support/devices.py, in
a `farm worker` whose device process stops itself (SIGSTOP) the moment it has claimed its first
case attempt: the claim is in Redis, but its lease does not say busy yet and the run has not
heard the case start. The test kills it there — a worker dying right after taking a job, the
moment no timing can hit reliably.

    FARM_DEVICE_PLUGINS=tests.integration.stop_at_claim FARM_TEST_STOP_AT_CLAIM=PATH \
        farm worker --broker URL --devices fake:1

The first process to claim an attempt creates PATH, then stops; its successors (the supervisor
starts the killed one again) find PATH and serve as usual. Only a `farm worker`'s device
process is touched (the run's client, also loading the plugin, is not).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from tests.support.devices import farm_device_kinds  # noqa: F401  (the kind: fake)


def _stop_at_first_claim() -> None:
    runtime = sys.modules.get("worker.runtime")       # loaded: a device process
    flag = os.environ.get("FARM_TEST_STOP_AT_CLAIM")
    if runtime is None or not flag or hasattr(runtime.DeviceRuntime.set_state, "stops"):
        return
    set_state = runtime.DeviceRuntime.set_state

    def stopping(self: Any, **state: Any) -> None:
        # DeviceRuntime.execute writes the claim, then says busy with this call
        if state.get("state") == "busy" and not Path(flag).exists():
            Path(flag).touch()
            os.kill(os.getpid(), signal.SIGSTOP)
        set_state(self, **state)

    stopping.stops = True       # type: ignore[attr-defined]
    runtime.DeviceRuntime.set_state = stopping


_stop_at_first_claim()
