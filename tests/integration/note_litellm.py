"""A device plugin for test_cluster_model_warm.py: the ``fake`` kind of tests/support/devices.py,
in a `farm worker` whose device process notes, each time it takes a case (its lease says
busy, before the case's clock starts), whether litellm is imported already: a line ``yes`` or
``no`` appended to FARM_TEST_NOTE_LITELLM.

    FARM_DEVICE_PLUGINS=tests.integration.note_litellm FARM_TEST_NOTE_LITELLM=PATH \
        farm worker --broker URL --devices fake:1
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tests.support.devices import farm_device_kinds  # noqa: F401  (the kind: fake)


def _note_at_each_case() -> None:
    runtime = sys.modules.get("worker.runtime")       # loaded: a device process
    path = os.environ.get("FARM_TEST_NOTE_LITELLM")
    if runtime is None or not path or hasattr(runtime.DeviceRuntime.set_state, "notes"):
        return
    set_state = runtime.DeviceRuntime.set_state

    def noting(self: Any, **state: Any) -> None:
        if state.get("state") == "busy":
            with open(path, "a", encoding="utf-8") as f:
                f.write(("yes" if "litellm" in sys.modules else "no") + "\n")
        set_state(self, **state)

    noting.notes = True       # type: ignore[attr-defined]
    runtime.DeviceRuntime.set_state = noting


_note_at_each_case()
