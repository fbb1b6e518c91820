"""Ctrl-C, SIGTERM and SIGHUP (a closed terminal, an ssh session that dropped) during a run: the
first stops it (results still written), a second stops waiting for devices; once the cases are
over, a signal waits for the results to be written."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from contextlib import contextmanager
from typing import IO, Any, Iterator

from farm.executors.base import Executor

log = logging.getLogger("farm")

# what stops a run: Ctrl-C, a CI runner's or a supervisor's SIGTERM, a terminal that closed
STOPS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
              if hasattr(signal, name))


def heeded() -> tuple[int, ...]:
    """The stop signals farm takes over: not a SIGHUP ignored when farm started (`nohup farm
    run …`: the run was asked to outlive its terminal; farm's handler stopped it when the
    terminal closed). Ctrl-C and SIGTERM stop a run however it was started, as before (a
    script's background `farm run … &` has SIGINT ignored, and its Ctrl-C still stops it)."""
    return tuple(sig for sig in STOPS if sig != getattr(signal, "SIGHUP", None)
                 or signal.getsignal(sig) is not signal.SIG_IGN)


@contextmanager
def signals_kept(restore: bool = True) -> Iterator[None]:
    """The SIGINT / SIGTERM / SIGHUP handlers as they were before the run, back when it ends."""
    main = restore and threading.current_thread() is threading.main_thread()
    before = {sig: signal.getsignal(sig) for sig in STOPS} if main else {}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


class EarlyStop:
    """A stop between the moment the run's outputs are set up and the moment its cases start
    (apps being served, devices being asked for): noted, not raised, so that no case starts and
    the results, the report and --junit-xml still say every case was not run. A second signal
    stops at once, as before. `StopSignals` takes over when the cases start."""

    def __init__(self) -> None:
        self.name: str | None = None        # the signal that stopped the run, once one did

    def install(self) -> "EarlyStop":
        if threading.current_thread() is threading.main_thread():
            for sig in heeded():
                signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, _frame: object) -> None:
        if self.name is not None:
            raise KeyboardInterrupt
        self.name = signal.Signals(signum).name
        _say(f"farm: {self.name}: stopping before any case starts; the results still say "
             "so (again to stop at once)")


class StopSignals:
    """Ctrl-C and SIGTERM during a run, as pytest treats them: the first stops the run (in-flight
    cases end *interrupted*, devices are killed, results and the report are still written); a
    second stops waiting for devices to wind down. Handlers only hand the work to a thread:
    nothing runs inside the signal handler that could deadlock or tear Playwright down mid-call.
    """

    def __init__(self, executor: Executor, out: IO[str]) -> None:
        self.executor = executor
        self.out = out
        self.count = 0
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in heeded():        # (EarlyStop left an ignored one ignored)
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        # the cases are over, their results are being written: a signal now (a CI runner's
        # second SIGTERM) must not cut results.json, the report or metrics.prom in half; the
        # handlers of before come back when the run ends (`signals_kept`)
        for sig in self._previous:
            signal.signal(sig, self._while_writing)

    def _while_writing(self, signum: int, _frame: object) -> None:
        _say(f"farm: {signal.Signals(signum).name}: writing the results; farm ends once "
             "they are written")

    def _handle(self, signum: int, _frame: object) -> None:
        self.count += 1
        name = signal.Signals(signum).name
        if self.count == 1:
            _say(f"farm: {name}: stopping; in-flight cases end interrupted "
                 f"(again to stop at once)")
            threading.Thread(target=self._interrupt, args=(name,), name="interrupt",
                             daemon=True).start()
        else:
            _say(f"farm: {name} again: not waiting for devices")
            self.executor.hurry()

    def _interrupt(self, name: str) -> None:
        # farm.log says why its cases ended interrupted (logged here, not in the handler:
        # a log call there could break into one the main thread is making)
        log.warning("%s: stopping the run; in-flight cases end interrupted", name)
        self.executor.interrupt()


def _say(line: str) -> None:
    """One line on stderr from a signal handler; a terminal that is gone (SIGHUP: writing to
    it fails) must not raise into whatever the main thread was doing."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass
