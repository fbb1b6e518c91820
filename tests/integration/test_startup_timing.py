"""farm.log's "TIMING startup=" (and bench/startup.py's start-up figure, read from it) is the
time from the process' start: it must not be longer than the process has lived. psutil's
create_time counts from the boot time in whole seconds and made it up to a second too long."""

from __future__ import annotations

import subprocess
import sys
import time

PROBE = "from farm.session import _since_process_start; print(repr(_since_process_start()))"


def test_startup_age_is_never_longer_than_the_process_lived():
    for _ in range(3):
        began = time.monotonic()
        out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                             check=True).stdout
        lived = time.monotonic() - began
        age = float(out)
        # the start is read in clock ticks (10 ms): a tick of slack, no more
        assert 0.0 <= age <= lived + 0.02, (age, lived)
