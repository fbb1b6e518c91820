"""The wait for the final scrape at the end of a run (--metrics-port) takes Ctrl-C and SIGTERM
over, not a SIGHUP that `nohup farm run …` had ignored: a terminal closing then ended that
wait as a stop, which nohup was there to prevent (the run itself keeps the ignore too)."""

from __future__ import annotations

import signal

import pytest

from farm.run_metrics import _Linger

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")


class Server:
    """What _Linger needs of a metrics server: nothing but being one."""


def test_a_sighup_nohup_ignored_stays_ignored_while_the_run_waits_for_its_scrape():
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with _Linger(Server()) as linger:       # type: ignore[arg-type]
            assert linger.on
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == linger._handle
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_sighup_heeded_otherwise_is_taken_over_and_given_back():
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        with _Linger(Server()) as linger:       # type: ignore[arg-type]
            assert signal.getsignal(signal.SIGHUP) == linger._handle
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, before)
