"""What the user sees while a run goes: a rich view on a terminal (one overall bar, one row per
device), plain lines otherwise (a CI job's log, even on a pseudo-terminal: `live_view`),
nothing with --no-progress."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from statistics import fmean, median
from typing import IO, Any, Iterable, Mapping

from farm.results import CaseResult, StepRecord, never_ran, own_duration
from farm.run_console import NOT_RETRIED, end_clipped, not_retried, one_message
from farm.run_log import ended_word, one_line, took
from farm.text import printable

log = logging.getLogger(__name__)

STATUS_WORD = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED",
               "interrupted": "INTERRUPTED", "flaky": "FLAKY"}
STATUS_STYLE = {"passed": "green", "failed": "red", "error": "yellow", "skipped": "dim",
                "interrupted": "magenta", "flaky": "yellow"}


def _short(result: CaseResult, announced: bool = False) -> str:
    """A case's end on its progress line. ``announced``: a RETRY line was said for this
    case; a retry that then never ran is said as such ("retry not run: no usable ios device
    left", the reason results.json's "not retried: …" gives), not "not retried" under the
    RETRY line that said it would be."""
    text = f"{result.case_id} {took(result)}"
    why = result.error.message if result.error else result.reason
    if why and why.strip():     # (a plugin's StepFailed("  "): the line was lost, IndexError)
        step = f"step {result.error.step}: " if result.error and result.error.step else ""
        # every line of it, shortened as the end of the run's line is (`end_clipped`)
        text += f" — {step}{end_clipped(one_message(why))}"
        if result.error and (retry := not_retried(result.reason)):
            if announced:
                retry = RETRY_NOT_RUN + retry.removeprefix(NOT_RETRIED)
            text += f"; {retry}"    # (the end of the run's line says it too)
    return printable(text)


RETRY_NOT_RUN = "retry not run: "   # a RETRY line's retry that never ran, and why
NAMED_UNRUN = 10                    # cases named on a line of cases no device could run


def unrun_text(cases: list[CaseResult]) -> str:
    """What one progress line says of ``cases`` that never ran for one reason: ``8 case(s)
    not run: no usable ios device left (…): s3/a, s3/b, … and 3 more``; of one such case,
    what any case's line says."""
    if len(cases) == 1:
        return _short(cases[0])
    why = end_clipped(one_message(cases[0].error.message if cases[0].error else ""))
    ids = ", ".join(c.case_id for c in cases[:NAMED_UNRUN])
    more = f" and {len(cases) - NAMED_UNRUN} more" if len(cases) > NAMED_UNRUN else ""
    return f"{len(cases)} case(s) not run: {why}: {ids}{more}"


def held_apart(held: list[CaseResult], result: CaseResult) -> bool:
    """Whether ``result`` (`never_ran`) is of another reason than the cases ``held``."""
    return bool(held) and held[0].error is not None and result.error is not None and (
        one_message(held[0].error.message) != one_message(result.error.message))


# A CI log's longest silence while cases run: then a line says what is running. (CircleCI and
# Travis stop a job after 10 minutes without output; a long ai case alone says nothing between
# its start and its end.)
QUIET_SECONDS = 60.0
# and however busy the log, this often a line says how the run stands (done, failed, time left):
# the lines of 300 cases scroll by with no tally in them
STATUS_SECONDS = 300.0
# and in a run of at least this many cases, each tenth of them done: a 300-case run of short
# cases ends well inside STATUS_SECONDS, and its log had no tally nor time left at all
STATUS_EVERY_TENTH_FROM = 50


def _not_run(result: CaseResult) -> bool:
    """A queued case a stop left unrun (Ctrl-C, --maxfail, the model budget): counted, not
    shown one line each (a Ctrl-C 20 cases into 300 printed 280 SKIPPED lines); the end of the
    run says how many, and why, once."""
    return result.status == "skipped" and (result.reason or "").startswith("not run")


def _span(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 90:
        return f"{seconds}s"
    minutes = round(seconds / 60)
    return f"{minutes}m" if minutes < 90 else f"{minutes // 60}h {minutes % 60}m"


PACED_AFTER = 3     # attempts with a remembered duration before the run's pace counts
PACE_WINDOW = 20    # the latest of them the pace is read from


class Standing:
    """How the run stands, for both views: the final statuses so far and the time left,
    from each case's remembered duration (``expected``: case id → seconds of one attempt,
    None for a case that never ran here: the mean of the run's own attempts stands in for
    it), scaled by this run's pace once `PACED_AFTER` attempts have ended: a loaded machine
    whose cases take twice their remembered time has twice the time left. A case's likely
    retry counts too (``retry_odds``: case id → how likely its first attempt is retried,
    from its recent runs, `retry_odds`), and a retry queued counts in full."""

    def __init__(self, expected: Mapping[str, float | None] | None = None,
                 retry_odds: Mapping[str, float] | None = None) -> None:
        self.expected = dict(expected or {})
        self.odds = dict(retry_odds or {})
        self.counts: dict[str, int] = {}
        self.done: set[str] = set()
        self.retried: set[str] = set()      # cases with an attempt that will be retried
        self.took: list[float] = []         # each attempt's own seconds
        self.devices: set[str] = set()      # usable ones: the cases left share them
        self.paced: list[float] = []        # each attempt's took now / remembered

    def finished(self, result: CaseResult, final: bool) -> None:
        own = own_duration(result)
        if result.status != "skipped" and own > 0:
            self.took.append(own)
            remembered = self.expected.get(result.case_id)
            if remembered and result.status in ("passed", "flaky"):   # (a failure ends early)
                self.paced.append(own / float(remembered))
        if not final:
            self.retried.add(result.case_id)
            return
        self.counts[result.status] = self.counts.get(result.status, 0) + 1
        self.done.add(result.case_id)

    def pace(self) -> float:
        """How this run's latest attempts took against their remembered durations (2.0: twice
        as long): the median of their ratios over the last `PACE_WINDOW`, each case counting
        once whatever its length (by duration, the long fixed `sleep` cases longest-first
        puts first kept the pace near 1 while the short CPU-bound ones left took twice their
        time on a loaded machine); 1.0 until `PACED_AFTER` of them have ended."""
        if len(self.paced) < PACED_AFTER:
            return 1.0
        return median(self.paced[-PACE_WINDOW:])

    def tally(self) -> str:
        """"117 passed, 0 failed", and the other statuses there are ("2 error"): the count
        passed and failed so far, whether or not a case failed yet."""
        return ", ".join(f"{self.counts.get(s, 0)} {s}" for s in STATUS_WORD
                         if s in ("passed", "failed") or self.counts.get(s))

    def left(self, running: Mapping[str, float]) -> float | None:
        """Seconds until the last case ends, about (``running``: case id → seconds it has
        run); None when nothing tells: no case with a remembered duration, none finished."""
        pending = [c for c in self.expected if c not in self.done]
        if not pending:
            return None
        known = [v for v in self.expected.values() if v is not None]
        pace = self.pace()
        # (the mean of this run's own cases is at its pace already)
        stand_in = fmean(self.took) if self.took else fmean(known) * pace if known else None
        per = [e * pace if (e := self.expected[c]) is not None else stand_in for c in pending]
        if None in per:
            return None
        # a likely retry after the attempt running or to come (none after a retry: one is
        # queued or running, counted in full, and a second is rarer still)
        again = [0.0 if c in self.retried else float(e) * self.odds.get(c, 0.0)
                 for c, e in zip(pending, per)]
        per = [max(float(e) - running.get(c, 0.0), 0.0) for c, e in zip(pending, per)]
        return max((sum(per) + sum(again)) / max(len(self.devices), 1),
                   max(p + a for p, a in zip(per, again)))

    def about(self, running: Mapping[str, float]) -> str:
        left = self.left(running)     # (0: the cases left run past their usual time)
        return "" if left is None or left < 1 else f"about {_span(left)} left"


class PlainProgress:
    """One line per event that matters; safe for CI logs. After QUIET_SECONDS without one,
    a line saying what each device is running (its case, last step and time so far)."""

    def __init__(self, upfront: int, jobs: int, stream: IO[str] | None = None,
                 clock: Any = time.monotonic,
                 expected: Mapping[str, float | None] | None = None,
                 retry_odds: Mapping[str, float] | None = None,
                 shard: str | None = None) -> None:
        self.total = upfront + jobs     # cases decided before the run + jobs planned
        self.shard = shard              # --shard I/N: said with the count, as "(shard 1/4)"
        self.jobs = jobs
        self.done = 0
        self.stream = stream or sys.stdout
        self._lock = threading.Lock()
        self._clock = clock
        self._said_at = self._stood_at = clock()
        # device -> [case (attempt), its start, last step, case id]
        self._running: dict[str, list[Any]] = {}
        self.standing = Standing(expected, retry_odds)
        self._stopped = threading.Event()
        self._gone = False                  # the stream was closed: say nothing more
        self._tenth_due = False             # a tenth done: said when its device goes on
        # cases no device could run, one reason, not said yet (`never_ran`), and the count
        # done with the last of them: said on one line before the next line, or at the end
        self._unrun: list[CaseResult] = []
        self._unrun_done = 0

    def _say(self, text: str | None) -> None:
        with self._lock:
            self._said_at = self._clock()
            lines = [self._unrun_said()] if self._unrun else []
            if self._gone:
                return
            try:
                for line in lines + ([text] if text is not None else []):
                    print(printable(line), file=self.stream, flush=True)
            except (OSError, ValueError):   # closed: `farm run … | head` has its lines, a log
                self._gone = True           # collector died; the cases' verdicts are not its

    def _unrun_said(self) -> str:
        """The line of the cases held unsaid (`never_ran`), which it lets go. Called holding
        ``_lock``."""
        line = f"[{self._unrun_done}/{self.total}] [-] ERROR {unrun_text(self._unrun)}"
        self._unrun = []
        return line

    def _hold_unrun(self, result: CaseResult) -> None:
        """Keep a case no device could run for its reason's one line (the 8 cases an iPhone's
        death left said one ~200-character line each); one of another reason says the ones
        kept first."""
        with self._lock:
            other = held_apart(self._unrun, result)
        if other:
            self._say(None)
        with self._lock:
            self._unrun.append(result)
            self._unrun_done = self.done

    def start(self) -> None:
        self._say(f"farm: {self.total} case(s) to run"
                  + (f" (shard {self.shard})" if self.shard else ""))
        threading.Thread(target=self._keep_saying, name="farm-progress", daemon=True).start()

    def stop(self) -> None:
        self._stopped.set()
        if self._unrun:
            self._say(None)

    def _keep_saying(self) -> None:
        """Say how the run stands when it is due: woken at the exact time the next line is
        (a 15 s poll made the quiet line come up to 15 s late: 73 s after the last)."""
        while not self._stopped.wait(self._until_due()):
            self.still_running()

    def _until_due(self) -> float:
        """Seconds until `still_running` has something to say (a line since pushes it on)."""
        with self._lock:
            due = min(self._said_at + QUIET_SECONDS, self._stood_at + STATUS_SECONDS)
        return max(due - self._clock(), 0.05)    # (0.05: a clock that stands still)

    def still_running(self, due: bool = False) -> None:
        """After QUIET_SECONDS without a line, or STATUS_SECONDS without this one (or when
        ``due``: a tenth of a long run done): how the run stands and what is running, on which
        device, for how long (``farm: 3/10 done (2 passed, 1 failed); about 4m left; running:
        [browser-1] s/pay 95s, after step 4: aiTap "Pay"``; the time left from the cases'
        remembered durations)."""
        now = self._clock()
        with self._lock:
            if not due and now - self._said_at < QUIET_SECONDS \
                    and now - self._stood_at < STATUS_SECONDS:
                return
            self._stood_at = now
            running = [f"[{device}] {case} {now - since:.0f}s" + (f", {step}" if step else "")
                       for device, (case, since, step, _) in sorted(self._running.items())]
            ran = {cid: now - since for _, since, _, cid in self._running.values()}
            tally, about = self.standing.tally(), self.standing.about(ran)
        doing = "; running: " + ", ".join(running) if running else "; no case running"
        self._say(f"farm: {self.done}/{self.total} done" + (f" ({tally})" if tally else "")
                  + (f"; {about}" if about else "") + doing)

    def run_started(self, devices: list[str], jobs: int) -> None:
        if jobs != self.jobs:               # matrix runs expand jobs per device group
            self._say(f"farm: --matrix: {jobs} run(s) of {self.jobs} case(s), one per device "
                      "group")
            self.standing.expected.clear()     # (its runs are named case@group)
            self.standing.odds.clear()
        self.total += jobs - self.jobs
        self.jobs = jobs
        self.standing.devices.update(devices)

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        if state in ("dead", "quarantined"):
            self.standing.devices.discard(device)
        if state in ("dead", "quarantined", "restarting"):
            self._say(f"[{device}] {state}{': ' + detail if detail else ''}")

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        again = f" (attempt {attempt})" if attempt > 1 else ""
        with self._lock:
            self._running[device] = [case_id + again, self._clock(), "", case_id]
        self._say(f"[{device}] start {case_id}{again}")
        self._say_tenth()

    def _say_tenth(self) -> None:
        """The status line of a tenth done, once the device whose case made it has its next
        case (said right at that case's end, its device was out of `running:`, which with
        two browsers always listed one), or at the next case's end, whichever is first."""
        with self._lock:
            due, self._tenth_due = self._tenth_due, False
        if due:
            self.still_running(due=True)

    def step_finished(self, device: str, record: StepRecord) -> None:
        with self._lock:
            if device in self._running:
                self._running[device][2] = (f"after step {record.index}: "
                                            f"{one_line(record.label)[:60]}")

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        self._say_tenth()
        with self._lock:
            self._running.pop(device, None)
            announced = final and result.case_id in self.standing.retried
            self.standing.finished(result, final)
        if final and _not_run(result):     # not done: the end of the run says how many
            return
        if final:
            self.done += 1
        if final and never_ran(result):
            self._hold_unrun(result)
        else:
            word = ended_word(result.status, final)
            self._say(f"[{self.done}/{self.total}] [{device}] {word} "
                      f"{_short(result, announced)}")
        if final and self._tenth_done():
            with self._lock:
                self._tenth_due = True

    def _tenth_done(self) -> bool:
        """Whether this case's end made another tenth of a long run done (not the last case:
        the end of the run says how it stood)."""
        if self.total < STATUS_EVERY_TENTH_FROM or self.done >= self.total:
            return False
        return self.done * 10 // self.total > (self.done - 1) * 10 // self.total


class RichProgress:
    """rich Live view: overall bar + a row per device with its current case and step."""

    def __init__(self, upfront: int, jobs: int,
                 expected: Mapping[str, float | None] | None = None,
                 retry_odds: Mapping[str, float] | None = None) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)
        self.console = live_console(os.environ)
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=self.console, transient=False)
        self.overall = self.progress.add_task("cases", total=upfront + jobs)
        self.jobs = jobs
        self.rows: dict[str, dict[str, Any]] = {}
        self.standing = Standing(expected, retry_odds)
        self.counts = self.standing.counts
        self._lock = threading.Lock()
        self._live: Any = None
        self._unrun: list[CaseResult] = []      # as `PlainProgress`'s: one line for them

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
            now = time.monotonic()
            about = self.standing.about({row["id"]: now - row["since"] for row in
                                         self.rows.values() if row.get("state") == "busy"
                                         and row.get("id")})
        return Group(self.progress, table, tally + (f"  [dim]{about}" if about else ""))

    def start(self) -> None:
        from rich.live import Live
        self._live = Live(self, console=self.console, refresh_per_second=8, transient=False)
        self._live.start()

    def stop(self) -> None:
        self._say_unrun()
        if self._live is not None:
            self._live.stop()

    def _say_unrun(self) -> None:
        """The line of the cases no device could run held so far (`never_ran`), if any."""
        with self._lock:
            held, self._unrun = self._unrun, []
        if held:
            self._print("error", "ERROR", f"[-] {unrun_text(held)}")

    def _print(self, status: str, word: str, text: str) -> None:
        from rich.markup import escape
        try:
            self.console.print(f"[{STATUS_STYLE[status]}]{word}[/] " + escape(text),
                               highlight=False)
        except (OSError, ValueError):   # the terminal went away: the case still counts
            pass

    def run_started(self, devices: list[str], jobs: int) -> None:
        with self._lock:
            for d in devices:
                self.rows.setdefault(d, {"state": "starting", "case": "", "step": "",
                                         "since": time.monotonic()})
            total = self.progress.tasks[0].total or 0
            self.progress.update(self.overall, total=total + jobs - self.jobs)
            if jobs != self.jobs:
                self.standing.expected.clear()     # (a matrix run's are named case@group)
                self.standing.odds.clear()
            self.jobs = jobs
            self.standing.devices.update(devices)

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        with self._lock:
            row = self.rows.setdefault(device, {"case": "", "step": ""})
            row["state"] = state
            row["since"] = time.monotonic()
            if state in ("dead", "quarantined"):
                self.standing.devices.discard(device)
            if state != "busy":
                row["case"] = printable(detail) if state in ("dead", "quarantined") else ""
                row["step"] = ""

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        self._say_unrun()       # (a run whose other platforms go on: said as they do)
        with self._lock:
            row = self.rows.setdefault(device, {})
            row.update(state="busy", case=case_id + (f" (attempt {attempt})" if attempt > 1
                                                     else ""), step="", since=time.monotonic(),
                       id=case_id)

    def step_finished(self, device: str, record: StepRecord) -> None:
        with self._lock:
            self.rows.setdefault(device, {"state": "busy", "case": "", "since": time.monotonic()})
            # the step that finished: the one running now (a long sleep, a model call) has
            # not said so yet, and "step 8" would send a user watching a stuck step to step 8
            self.rows[device]["step"] = printable(f"after step {record.index}: "
                                                  f"{one_line(record.label)[:50]}")

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        with self._lock:
            announced = final and result.case_id in self.standing.retried
            self.standing.finished(result, final)
        if final:
            if not _not_run(result):        # (a stop's unrun cases: said at the end)
                self.progress.advance(self.overall)
        if final and never_ran(result):
            with self._lock:
                other = held_apart(self._unrun, result)
            if other:
                self._say_unrun()
            with self._lock:
                self._unrun.append(result)
            return
        self._say_unrun()       # (before any other case's line)
        if result.status != "passed" and not (final and _not_run(result)):
            self._print(result.status, ended_word(result.status, final),
                        f"[{device}] {_short(result, announced)}")


class QuietProgress(PlainProgress):
    def _say(self, text: str) -> None:
        pass

    def start(self) -> None:
        pass


def make_progress(upfront: int, jobs: int, enabled: bool,
                  expected: Mapping[str, float | None] | None = None,
                  retry_odds: Mapping[str, float] | None = None,
                  shard: str | None = None) -> Any:
    """The progress view for a run of ``upfront`` cases decided before it and ``jobs`` jobs
    (``expected``: each job's case id → its remembered seconds, None if it never ran here;
    ``retry_odds``: case id → how likely it is retried, `retry_odds`; ``shard``: "1/4",
    said with the count of cases to run)."""
    if not enabled:
        return QuietProgress(upfront, jobs)
    if live_view(sys.stdout, os.environ):
        return RichProgress(upfront, jobs, expected, retry_odds)
    return PlainProgress(upfront, jobs, expected=expected, retry_odds=retry_odds, shard=shard)


ODDS_RUNS = 10      # recent runs of the results history a case's retry odds are read from


def recent_retry_odds(settings: Any, jobs: Iterable[Any]) -> dict[str, float]:
    """`retry_odds` of ``jobs`` (`farm.schedule.Job`s) from the last `ODDS_RUNS` runs of the
    results history; {} when no job has retries to give or the history cannot be read (the
    time left is an estimate: the run goes on without it)."""
    quotas = {j.case_id: j.test_retries or 0 for j in jobs}
    if not any(quotas.values()):
        return {}
    try:
        from farm.results_history import open_results
        runs = open_results(settings).recent(ODDS_RUNS)
    except Exception as exc:    # (HistoryUnreadable, OSError, Redis down)
        log.debug("the time left counts no likely retries: %s", exc)
        return {}
    return retry_odds(runs, quotas)


def retry_odds(runs: Iterable[Any], quotas: Mapping[str, int]) -> dict[str, float]:
    """Case id → how likely its first attempt is retried tonight, for the time left: the
    share of its recent ``runs`` (results-history records, each with ``cases``: case_id,
    status, attempts) whose first attempt was retried (failed, or an earlier attempt: a
    flaky pass, a device error), for the cases of ``quotas`` (case id → its retries) that
    have retries to give; a case that failed last night will likely fail again, and its
    retry is another run of it. Device errors are retried without a quota, and rare: those
    of a case with no quota do not count."""
    tried: dict[str, list[bool]] = {}
    for run in runs:
        for case in run.cases:
            if quotas.get(case.case_id, 0) > 0 and case.status not in ("skipped",
                                                                       "interrupted"):
                tried.setdefault(case.case_id, []).append(   # (an error: a timeout, a model
                    case.status == "failed" or bool(case.attempts))   # down: not retried)
    return {cid: sum(seen) / len(seen) for cid, seen in tried.items() if any(seen)}


# A CI job's output is a log even where it is a pseudo-terminal (CircleCI, Buildkite, a job's
# `script`): each variable says a CI service runs farm (any value but "", 0, false, no, off).
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL",
                "BUILD_ID", "TF_BUILD")


def live_view(out: IO[str], env: Mapping[str, str]) -> bool:
    """Whether the run's progress is the rich view redrawn in place: on a terminal that can
    redraw (not TERM=dumb), and not under CI, whose log kept every redraw (a 10 s case: 21 KB,
    166 cursor-ups). TTY_INTERACTIVE (rich's own switch) decides over both: 1 keeps the live
    view on a CI pseudo-terminal, 0 gives plain lines on a terminal."""
    forced = env.get("TTY_INTERACTIVE")
    if forced in ("0", "1"):
        return forced == "1" and _isatty(out)
    if any(env.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")
           for name in CI_VARIABLES):
        return False
    return _isatty(out) and env.get("TERM", "").lower() not in ("dumb", "unknown")


def live_console(env: Mapping[str, str], file: IO[str] | None = None) -> Any:
    """The rich view's console (on ``file``, standard output by default). With
    TTY_INTERACTIVE=1 one that redraws in place on TERM=dumb too, as `live_view` promised:
    rich draws a dumb terminal's live view only once, when it stops, and the view had shown
    nothing at all while the run went."""
    from rich.console import Console
    if env.get("TTY_INTERACTIVE") != "1":
        return Console(file=file)

    class Redrawn(Console):
        is_dumb_terminal = False    # (rich's property: TERM=dumb or unknown)

    return Redrawn(file=file)


def _isatty(out: IO[str]) -> bool:
    try:
        return out.isatty()
    except (ValueError, AttributeError):    # closed, or no file at all
        return False
