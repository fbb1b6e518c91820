"""The `farm` command's entry point: Ctrl-C, SIGTERM and SIGHUP that come while farm.cli's
modules load (about a second on a cold machine) are held, and delivered once `farm.cli.main`
has set up what they should do (`farm.cli._stops_interrupt`; `--junit-xml`'s placeholder
written): a CI cancel in farm's first moments ended it with 143 and left the previous run's
green junit file for CI to publish, and a script's background `farm run … &` lost a Ctrl-C
then and ran to its end. This module imports nothing of farm's."""

from __future__ import annotations

import signal
import sys
import warnings

HELD: list[int] = []        # the signals that came while farm.cli loaded, in order


def _hold(signum: int, _frame: object) -> None:
    HELD.append(signum)


def main() -> None:
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    sigs = [s for s in (getattr(signal, n, None) for n in names) if s is not None]
    before = {sig: signal.signal(sig, _hold) for sig in sigs}
    try:
        from farm import cli
    finally:
        for sig, handler in before.items():     # as they were: `main` reads them
            signal.signal(sig, handler)
    # A run stopped by a signal leaves Playwright's coroutines for the garbage collector:
    # Python's "coroutine 'CDPSession.send' was never awaited" on stderr read as a crash in
    # CI logs under farm's own "farm: interrupted"
    warnings.filterwarnings("ignore", r"coroutine '.*' was never awaited", RuntimeWarning)
    sys.exit(cli.main(held=HELD))
