"""What the user sees while a run goes: a rich view on a terminal (one overall bar, one row per
device), plain lines otherwise, nothing with --no-progress."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import IO, Any

from farm.results import CaseResult, StepRecord
from farm.run_console import clipped
from farm.text import printable

STATUS_WORD = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED",
               "interrupted": "INTERRUPTED", "flaky": "FLAKY"}
STATUS_STYLE = {"passed": "green", "failed": "red", "error": "yellow", "skipped": "dim",
                "interrupted": "magenta", "flaky": "yellow"}


def _short(result: CaseResult) -> str:
    text = f"{result.case_id} {result.duration:.1f}s"
    why = result.error.message if result.error else result.reason
    if why and why.strip():     # (a plugin's StepFailed("  "): the line was lost, IndexError)
        first = why.strip().splitlines()[0]
        step = f"step {result.error.step}: " if result.error and result.error.step else ""
        text += f" — {step}{clipped(first, 160)}"   # (cut: "…", not a different word)
    return printable(text)


# A CI log's longest silence while cases run: then a line says what is running. (CircleCI and
# Travis stop a job after 10 minutes without output; a long ai case alone says nothing between
# its start and its end.)
QUIET_SECONDS = 60.0


def _not_run(result: CaseResult) -> bool:
    """A queued case a stop left unrun (Ctrl-C, --maxfail, the model budget): counted, not
    shown one line each (a Ctrl-C 20 cases into 300 printed 280 SKIPPED lines); the end of the
    run says how many, and why, once."""
    return result.status == "skipped" and (result.reason or "").startswith("not run")


class PlainProgress:
    """One line per event that matters; safe for CI logs. After QUIET_SECONDS without one,
    a line saying what each device is running (its case, last step and time so far)."""

    def __init__(self, upfront: int, jobs: int, stream: IO[str] | None = None,
                 clock: Any = time.monotonic) -> None:
        self.total = upfront + jobs     # cases decided before the run + jobs planned
        self.jobs = jobs
        self.done = 0
        self.stream = stream or sys.stdout
        self._lock = threading.Lock()
        self._clock = clock
        self._said_at = clock()
        self._running: dict[str, list[Any]] = {}    # device -> [case, its start, last step]
        self._stopped = threading.Event()
        self._gone = False                  # the stream was closed: say nothing more

    def _say(self, text: str) -> None:
        with self._lock:
            self._said_at = self._clock()
            if self._gone:
                return
            try:
                print(printable(text), file=self.stream, flush=True)
            except (OSError, ValueError):   # closed: `farm run … | head` has its lines, a log
                self._gone = True           # collector died; the cases' verdicts are not its

    def start(self) -> None:
        self._say(f"farm: {self.total} case(s) to run")
        threading.Thread(target=self._keep_saying, name="farm-progress", daemon=True).start()

    def stop(self) -> None:
        self._stopped.set()

    def _keep_saying(self) -> None:
        while not self._stopped.wait(min(QUIET_SECONDS / 4, 15.0)):
            self.still_running()

    def still_running(self) -> None:
        """After QUIET_SECONDS without a line: what is running, on which device, for how long
        (``farm: 3/10 done; running: [browser-1] s/pay 95s, after step 4: aiTap "Pay"``)."""
        now = self._clock()
        with self._lock:
            if now - self._said_at < QUIET_SECONDS:
                return
            running = [f"[{device}] {case} {now - since:.0f}s" + (f", {step}" if step else "")
                       for device, (case, since, step) in sorted(self._running.items())]
        doing = "; running: " + ", ".join(running) if running else "; no case running"
        self._say(f"farm: {self.done}/{self.total} done{doing}")

    def run_started(self, devices: list[str], jobs: int) -> None:
        if jobs != self.jobs:               # matrix runs expand jobs per device group
            self._say(f"farm: --matrix: {jobs} run(s) of {self.jobs} case(s), one per device "
                      "group")
        self.total += jobs - self.jobs
        self.jobs = jobs

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        if state in ("dead", "quarantined", "restarting"):
            self._say(f"[{device}] {state}{': ' + detail if detail else ''}")

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        again = f" (attempt {attempt})" if attempt > 1 else ""
        with self._lock:
            self._running[device] = [case_id + again, self._clock(), ""]
        self._say(f"[{device}] start {case_id}{again}")

    def step_finished(self, device: str, record: StepRecord) -> None:
        with self._lock:
            if device in self._running:
                self._running[device][2] = f"after step {record.index}: {record.label[:60]}"

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        with self._lock:
            self._running.pop(device, None)
        if final:
            self.done += 1
        if final and _not_run(result):
            return
        word = STATUS_WORD[result.status] + ("" if final else " (will retry)")
        self._say(f"[{self.done}/{self.total}] [{device}] {word} {_short(result)}")


class RichProgress:
    """rich Live view: overall bar + a row per device with its current case and step."""

    def __init__(self, upfront: int, jobs: int) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)
        self.console = Console()
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=self.console, transient=False)
        self.overall = self.progress.add_task("cases", total=upfront + jobs)
        self.jobs = jobs
        self.rows: dict[str, dict[str, Any]] = {}
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._live: Any = None

    def __rich__(self) -> Any:
        from rich.console import Group
        from rich.markup import escape
        from rich.table import Table
        table = Table.grid(padding=(0, 2))
        with self._lock:
            for name, row in self.rows.items():
                state = row["state"]
                style = {"busy": "cyan", "dead": "red", "quarantined": "red bold",
                         "restarting": "yellow"}.get(state, "dim")
                took = f"{time.monotonic() - row['since']:.0f}s" if state == "busy" else ""
                table.add_row(f"[{style}]{name}", f"[{style}]{state}", escape(row["case"]),
                              "[dim]" + escape(row["step"]), took)
            tally = "  ".join(f"[{STATUS_STYLE[s]}]{n} {s}" for s, n in sorted(self.counts.items()))
        return Group(self.progress, table, tally)

    def start(self) -> None:
        from rich.live import Live
        self._live = Live(self, console=self.console, refresh_per_second=8, transient=False)
        self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()

    def run_started(self, devices: list[str], jobs: int) -> None:
        with self._lock:
            for d in devices:
                self.rows.setdefault(d, {"state": "starting", "case": "", "step": "",
                                         "since": time.monotonic()})
            total = self.progress.tasks[0].total or 0
            self.progress.update(self.overall, total=total + jobs - self.jobs)
            self.jobs = jobs

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        with self._lock:
            row = self.rows.setdefault(device, {"case": "", "step": ""})
            row["state"] = state
            row["since"] = time.monotonic()
            if state != "busy":
                row["case"] = printable(detail) if state in ("dead", "quarantined") else ""
                row["step"] = ""

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        with self._lock:
            row = self.rows.setdefault(device, {})
            row.update(state="busy", case=case_id + (f" (attempt {attempt})" if attempt > 1
                                                     else ""), step="", since=time.monotonic())

    def step_finished(self, device: str, record: StepRecord) -> None:
        with self._lock:
            self.rows.setdefault(device, {"state": "busy", "case": "", "since": time.monotonic()})
            # the step that finished: the one running now (a long sleep, a model call) has
            # not said so yet, and "step 8" would send a user watching a stuck step to step 8
            self.rows[device]["step"] = printable(f"after step {record.index}: "
                                                  f"{record.label[:50]}")

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        if final:
            with self._lock:
                self.counts[result.status] = self.counts.get(result.status, 0) + 1
            self.progress.advance(self.overall)
        if result.status != "passed" and not (final and _not_run(result)):
            word = STATUS_WORD[result.status] + ("" if final else " (will retry)")
            from rich.markup import escape
            try:
                self.console.print(f"[{STATUS_STYLE[result.status]}]{word}[/] "
                                   + escape(f"[{device}] {_short(result)}"), highlight=False)
            except (OSError, ValueError):   # the terminal went away: the case still counts
                pass


class QuietProgress(PlainProgress):
    def _say(self, text: str) -> None:
        pass

    def start(self) -> None:
        pass


def make_progress(upfront: int, jobs: int, enabled: bool) -> Any:
    """The progress view for a run of ``upfront`` cases decided before it and ``jobs`` jobs."""
    if not enabled:
        return QuietProgress(upfront, jobs)
    if sys.stdout.isatty() and os.environ.get("TERM", "").lower() not in ("dumb", "unknown"):
        return RichProgress(upfront, jobs)
    return PlainProgress(upfront, jobs)     # a dumb terminal (Emacs' shell) cannot redraw
