"""A /metrics port scan that starts near the top of the port range (`farm worker
--metrics-port 65500` with 100 devices, a run's FARM_METRICS_PORT=65535 taken): the scan ran
past 65535 and ended in "OverflowError: bind(): port must be 0-65535" (an internal error, a
traceback), not "address in use", which farm says in its own words."""

from __future__ import annotations

import errno
import socket

import pytest

from farm.metrics import MetricsServer


def test_a_scan_that_reaches_the_last_port_says_it_is_in_use():
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 65535))
        held.listen()
    except OSError:
        pass        # something holds it already: as good
    try:
        with pytest.raises(OSError) as caught:
            MetricsServer(65535, "127.0.0.1", scan=100).start()
        assert caught.value.errno == errno.EADDRINUSE
    finally:
        held.close()
