"""`nohup farm run …` (SIGHUP ignored) goes on when its terminal closes: a SIGHUP ignored when
farm started stays ignored. farm put its own handler over it, so closing the ssh session of a
nohup nightly run interrupted it. Ctrl-C still stops a run whose SIGINT a shell ignored (a
script's `farm run … &`), as before."""

from __future__ import annotations

import io
import signal

import pytest

from farm.stop_signals import EarlyStop, StopSignals, signals_kept


class _Executor:
    def __init__(self) -> None:
        self.interrupted = False

    def interrupt(self) -> None:
        self.interrupted = True

    def hurry(self) -> None:
        pass


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_a_signal_ignored_at_the_start_stays_ignored_through_the_run():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)       # as nohup leaves it
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)      # as `&` in a script does
    try:
        with signals_kept():
            early = EarlyStop().install()
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == early._handle      # the others: farm's
            assert signal.getsignal(signal.SIGINT) == early._handle
            executor = _Executor()
            with StopSignals(executor, io.StringIO()) as stops:
                assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
                assert signal.getsignal(signal.SIGTERM) == stops._handle
                signal.raise_signal(signal.SIGHUP)                # the terminal closed
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN   # writing the results
            assert early.name is None and stops.count == 0 and not executor.interrupted
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
        signal.signal(signal.SIGINT, interrupt)
