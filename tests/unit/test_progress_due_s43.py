"""The plain progress view's "farm: N/M done …; running: …" line comes when it is due, 60 s
after the last line, not at the progress thread's next 15 s poll (73 s after a line said 13 s
into a poll: up to 15 s late). No real time passes: the view's clock and its stop event are
the test's, and the event's wait moves the clock on by exactly what it was asked to wait."""

from __future__ import annotations

import io

from farm.progress import QUIET_SECONDS, STATUS_SECONDS, PlainProgress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Stream(io.StringIO):
    """Each line with the clock's time when it was printed."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.said: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        if text.strip():
            self.said.append((self.clock.now, text.strip()))
        return len(text)


class StopAfter:
    """A stop event whose wait(timeout) lets ``timeout`` pass on the clock, doing what the run
    does meanwhile (``meanwhile``: clock time -> what happens then); set after ``n`` waits
    (the run ends)."""

    def __init__(self, clock: Clock, n: int, meanwhile: dict | None = None) -> None:
        self.clock, self.n, self.waits = clock, n, 0
        self.meanwhile = dict(meanwhile or {})

    def wait(self, timeout: float) -> bool:
        if self.waits >= self.n:
            return True
        self.waits += 1
        until = self.clock.now + timeout
        for at in sorted(t for t in self.meanwhile if t <= until):
            self.clock.now = at
            self.meanwhile.pop(at)()
        self.clock.now = until
        return False


def _view(clock: Clock) -> tuple[PlainProgress, Stream]:
    out = Stream(clock)
    view = PlainProgress(0, 3, stream=out, clock=clock)
    return view, out


def _quiet(out: Stream) -> list[float]:
    return [t for t, line in out.said if line.startswith("farm: 0/3 done")]


def test_the_still_running_line_comes_when_it_is_due():
    clock = Clock()
    view, out = _view(clock)
    view.case_started("browser-1", "s/pay", "Pay", 1)
    at = clock.now
    view._stopped = StopAfter(clock, 2, {at + 13: lambda: view.case_started(
        "browser-2", "s/login", "Login", 1)})
    view._keep_saying()
    said = [(t, line) for t, line in out.said if line.startswith("farm: 0/3 done")]
    assert said and said[0][0] == at + 13 + QUIET_SECONDS, out.said     # (73 s: was 75 s)
    assert said[0][1].startswith("farm: 0/3 done (0 passed, 0 failed); running: [browser-1] "
                                 "s/pay 73s"), said


def test_a_line_said_meanwhile_puts_the_still_running_line_off():
    """A case's line 30 s after the first quiet line: the next is 60 s after that case's."""
    clock = Clock()
    view, out = _view(clock)
    view.case_started("browser-1", "s/pay", "Pay", 1)
    at = clock.now
    view._stopped = StopAfter(clock, 4, {at + QUIET_SECONDS + 30: lambda: view.case_started(
        "browser-2", "s/login", "Login", 1)})
    view._keep_saying()
    assert _quiet(out)[:2] == [at + QUIET_SECONDS, at + 2 * QUIET_SECONDS + 30], out.said


def test_a_busy_log_still_gets_its_status_line_when_due():
    """A line every 10 s (never 60 s of quiet): the status line comes at STATUS_SECONDS."""
    clock = Clock()
    view, out = _view(clock)
    at = clock.now
    lines = {at + t: (lambda t=t: view.case_started("browser-1", f"s/c{t}", "c", 1))
             for t in range(10, int(STATUS_SECONDS) + 50, 10)}
    view._stopped = StopAfter(clock, 10, lines)
    view._keep_saying()
    assert _quiet(out)[:1] == [at + STATUS_SECONDS], out.said
