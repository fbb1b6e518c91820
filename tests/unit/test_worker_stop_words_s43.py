"""What `farm worker` says as it starts to drain, in the words of how it was told to stop: a
SIGTERM (docker stop, systemctl stop, kill) said "(Ctrl-C again to stop now)", though there
was no Ctrl-C, and a second SIGTERM does not stop it now (SIGINT does)."""

from __future__ import annotations

import os
import signal

from worker.main import _stop


class RedisAway:
    """The leases cannot be read (the line that matters is said before they are)."""

    def scan_iter(self, *args, **kwargs):
        raise ConnectionError("Redis away")


def test_sigterm_says_it_and_how_to_stop_now(capsys):
    _stop([], [signal.SIGTERM], RedisAway())
    assert capsys.readouterr().err == (
        "farm worker: stopping (SIGTERM): each device finishes the case it is running, then "
        f"ends (to stop now: kill -INT {os.getpid()})\n")


def test_ctrl_c_still_says_ctrl_c_again(capsys):
    _stop([], [signal.SIGINT], RedisAway())
    assert capsys.readouterr().err == (
        "farm worker: stopping: each device finishes the case it is running, then ends "
        "(Ctrl-C again to stop now)\n")
