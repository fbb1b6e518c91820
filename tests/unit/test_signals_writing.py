"""A signal after the cases are over, while farm writes results.json, the report and
metrics.prom (a CI runner's second SIGTERM): it waits for them, it does not cut them off."""

from __future__ import annotations

import io
import os
import signal

from farm.stop_signals import StopSignals, signals_kept


class _Executor:
    def interrupt(self) -> None:
        pass

    def hurry(self) -> None:
        pass


def test_a_signal_while_the_results_are_written_waits_for_them(capsys) -> None:
    seen: list[int] = []

    def before(signum: int, _frame: object) -> None:     # the handler of before the run
        seen.append(signum)
    previous = signal.signal(signal.SIGTERM, before)
    try:
        with signals_kept():
            with StopSignals(_Executor(), io.StringIO()):
                pass                                     # the cases ran
            os.kill(os.getpid(), signal.SIGTERM)         # ... the outputs are being written
            assert seen == []                            # not the handler of before
        assert "farm: SIGTERM: writing the results; farm ends once they are written" in \
            capsys.readouterr().err
        assert signal.getsignal(signal.SIGTERM) is before     # back once the run ended
    finally:
        signal.signal(signal.SIGTERM, previous)
