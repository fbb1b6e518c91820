"""The end of a run on the terminal, as pytest ends one: a line for each case that did not pass
(where and why; skipped ones a line per reason), the summary line, warnings (flaky cases, steps
that passed with a note: a stale xpath), then the report's path as the last line."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import IO, Sequence

from farm.attempts import Outcome, outcome
from farm.budget import NOT_RUN, stopped_line
from farm.results import (CAME_BACK, NOT_RUN_INTERRUPTED, CaseResult, RunSummary,
                          cache_savings, never_ran, not_run_by_interrupt, run_usage,
                          since_last_words)
from farm.run_log import one_message, skips_failed
from farm.text import printable


NEW = "new failure"     # a red case's `since_last` when it passed in the runs before
FIXED = "fixed"         # a passed case's when it failed in the last run that ran it
MAXFAIL_REASON = "not run: --maxfail "      # + "N reached" (`farm.session._MaxFail`)


def print_end(summary: RunSummary, run_dir: Path, out: IO[str],
              refused: Exception | None = None, warnings: Sequence[str] = (),
              fail_on_skip: bool = False) -> None:
    """The end of a run on the terminal, after ``warnings`` the run left to say there. An
    executor that ``refused`` the run (no broker there, a wrong password) is said first, on
    stderr, once; the cases it left unrun are counted as such in the tally, not listed one by
    one (before, the error came after "farm: 12 errors" and the report's path, as if cases had
    run). A terminal or pipe that is gone (`farm run … | head`) costs only these lines: what
    comes after them (metrics, the exit code) does not depend on them. Standard output that
    could not be written (``farm run … > /dev/full``: `farm.cli._ReaderMayLeave.lost`) makes a
    passed run's code 3, as `farm.cli.main` exits; results.json and the journal, written
    before, are written again to say so. ``fail_on_skip`` (--fail-on-skip): where the run's
    skipped cases made its code 1 (or would have, a case failing too), said after the tally."""
    if refused is not None:     # (stdout and stderr into one file: stdout's lines first)
        try:
            out.flush()
        except (OSError, ValueError):
            pass
        print(f"farm: error: {refused}", file=sys.stderr, flush=True)
    try:
        for warning in warnings:
            print(f"farm: warning: {warning}", file=out)
        _print_end(summary, run_dir, out, refused, fail_on_skip and skips_failed(summary) > 0,
                   skip_hint=not fail_on_skip)
        out.flush()
    except (OSError, ValueError):
        pass
    if getattr(out, "lost", None) is not None and not summary.exit_code:
        from farm.run_outputs import restate_exit_code
        for what in restate_exit_code(summary, run_dir, 3):
            print(f"farm: error: not written: {what}", file=sys.stderr)


def _print_end(summary: RunSummary, run_dir: Path, out: IO[str],
               refused: Exception | None, skips_fail: bool = False,
               skip_hint: bool = False) -> None:
    for line in skipped_lines(summary):     # (before the failures: those end nearest the tally)
        print(line, file=out)
    for line in failure_lines(summary, not_run=str(refused) if refused else None):
        print(line, file=out)
    if summary.stopped:
        print(f"farm: {stopped_line(summary)}", file=out)
    if maxed := [c for c in summary.cases if (c.reason or "").startswith(MAXFAIL_REASON)]:
        limit = (maxed[0].reason or "").removeprefix(MAXFAIL_REASON).split(" ")[0]
        errors, failures = summary.counts.get("error", 0), summary.counts.get("failed", 0)
        what = ("failed" if not errors else "errored" if not failures else "failed or errored")
        print(f"farm: stopped after {limit} {what} case(s) (--maxfail {limit}): "
              f"{len(maxed)} case(s) not run (counted as skipped)", file=out)
    if not_run := not_run_by_interrupt(summary):
        print(f"farm: interrupted: {not_run} case(s) not run (counted as skipped)", file=out)
    print(summary_line(summary, not_run=str(refused) if refused else None), file=out)
    if by_platform := platform_line(summary, not_run=str(refused) if refused else None):
        print(by_platform, file=out)
    if skips_fail:      # (a failed run's too: fixing its failure would not make it pass)
        also = " too" if summary.counts["failed"] or summary.counts["error"] else ""
        print(f"farm: {skips_failed(summary)} skipped case(s) fail this run{also} "
              "(--fail-on-skip): exit 1", file=out)
    flaky = [c.case_id for c in summary.cases if c.status == "flaky"]
    if flaky:
        print(f"farm: warning: {len(flaky)} flaky case(s) passed only after failing: "
              + ", ".join(flaky), file=out)
    for line in note_lines(summary):
        print(line, file=out)
    if skip_hint and (line := skip_hint_line(summary)):
        print(line, file=out)
    if (run_dir / "report.html").is_file():      # (one not written is named on stderr)
        print(str((run_dir / "report.html").resolve()), file=out, flush=True)


def skip_hint_line(summary: RunSummary) -> str:
    """A run that skipped cases and still exits 0 (a mistyped target on a run with no model is
    a skip: the tally read green, and nothing said a skip could fail it): how to make it
    fail, once, just above the report's path. "" when nothing was skipped or the code is not
    0 (a failure, a stop, an interrupt: it says so itself)."""
    skipped = summary.counts.get("skipped", 0)
    if not skipped or summary.exit_code != 0:
        return ""
    return (f"farm: {skipped} case(s) skipped (exit 0): --fail-on-skip makes a skip fail "
            "the run")


def failure_lines(summary: RunSummary, limit: int = 20, not_run: str | None = None
                  ) -> list[str]:
    """What did not pass, one line a case at the end of the run (as pytest's short summary):
    where (the failing step's file:line) and why (the error's first line); at most ``limit``
    lines, then how many more there are. Nothing when every case passed or was skipped.
    ``not_run``: the error of cases the run could not start (said once elsewhere), left out.
    Each line ends with the results history's verdict, as the report and junit.xml say it
    (`since_last_words`): [new failure], [still failing], [unstable across runs]."""
    bad = [c for c in summary.cases if c.status in ("failed", "error", "interrupted")
           and not _refused(c, not_run)]
    bad.sort(key=lambda c: c.since_last != NEW)     # (stable: new failures first, as the report)
    lines = []
    for case in bad[:limit]:
        error, why = case.error, case.reason or ""
        step = error.step if error else next(     # interrupted: the step it was in
            (s.index for s in reversed(case.steps) if s.status == case.status), None)
        line = next((s.line for s in case.steps if s.index == step and s.line), case.line)
        if error is not None:
            why = (f"step {step}: " if step else "") + error.message
        first = one_message(why)
        where = f"{case.file}:{line}" if line else case.file
        tries = len(case.previous) + 1      # (the report lists each attempt)
        retry = not_retried(case.reason) if error is not None else ""
        lines.append(printable(f"{case.status.upper()} {case.case_id} ({where})"
                               + (f" after {tries} attempts" if tries > 1 else "")
                               + (f" — {end_clipped(first)}" if first else "")
                               + (f"; {retry}" if retry else "")
                               + (f" [{said}]" if (said := since_last_words(case.since_last))
                                  else "")))
    if len(bad) > limit:
        lines.append(f"... and {len(bad) - limit} more: see the report")
    return lines


NOT_RETRIED = "not retried: "     # a reason's part: `farm.executors.base.CaseLedger.end`


def not_retried(reason: str | None) -> str:
    """Why a case's retry never ran, shortly, from its reason ("not retried: no usable android
    device left"): beside its error on its line (it was only in results.json). The aside a
    reason ends with (the dead devices and why: the summary line's "lost:" and the report
    say those) is left out; the rest shortened as a message is (`end_clipped`: whole up to
    FAILURE_CHARS, else its start, " … " and its last words, where it was cut at 120
    characters, "… not a usable device of…"); "" when it was not so."""
    at = (reason or "").rfind(NOT_RETRIED)
    if at < 0:
        return ""
    said = (reason or "")[at:].splitlines()[0].rstrip()
    if said.endswith(")"):
        depth = 0
        for i in range(len(said) - 1, len(NOT_RETRIED), -1):
            depth += {")": 1, "(": -1}.get(said[i], 0)
            if depth == 0:
                said = said[:i].rstrip() if said[i - 1] == " " else said
                break
    return end_clipped(said)


def skipped_lines(summary: RunSummary, limit: int = 20, named: int = 5) -> list[str]:
    """Why cases were skipped, one line a reason (a mistyped target on a run with no model is
    a skip: on CI, the tally alone read green): ``SKIPPED s/a (s/a.yaml:7) — why`` for one
    case, ``SKIPPED 3 cases (s/a, s/b, s/c) — why`` for several of one reason (at most
    ``named`` of them named); at most ``limit`` lines, then how many more cases. Not the cases
    a stop left unrun (Ctrl-C, --maxfail, the model budget): a line of their own counts those."""
    groups: dict[str, list[CaseResult]] = {}
    for case in summary.cases:
        if case.status == "skipped" and not _said_apart(case, summary):
            why = (case.reason or "").strip()
            groups.setdefault(one_message(why), []).append(case)
    lines = []
    for why, cases in list(groups.items())[:limit]:
        if len(cases) == 1:
            case = cases[0]
            line = case.line      # its first step's, as results.json, farm.log and the report
            who = f"{case.case_id} ({case.file}:{line})" if line else \
                f"{case.case_id} ({case.file})"
        else:
            ids = ", ".join(c.case_id for c in cases[:named])
            more = f" and {len(cases) - named} more" if len(cases) > named else ""
            who = f"{len(cases)} cases ({ids}{more})"
        lines.append(printable(f"SKIPPED {who}" + (f" — {end_clipped(why)}" if why else "")))
    if len(groups) > limit:
        left = sum(len(cases) for cases in list(groups.values())[limit:])
        lines.append(f"... and {left} more skipped: see the report")
    return lines


def note_lines(summary: RunSummary, limit: int = 20) -> list[str]:
    """What steps said though they found their target (`StepRecord.notes`: a step's xpath
    that matched nothing, the text tier finding the button), a warning line each: the rich
    progress view shows no passed case's line, and --no-progress none at all, so a stale
    xpath passed unnoticed on the console. At most ``limit`` lines, then how many more."""
    noted = [(c, s, n) for c in summary.cases for s in c.steps for n in s.notes]
    lines = []
    for case, step, note in noted[:limit]:
        where = f"{case.file}:{step.line}" if step.line else case.file
        lines.append(printable(f"farm: warning: {case.case_id} ({where}) step {step.index}: "
                               f"{end_clipped(note)}"))
    if len(noted) > limit:
        lines.append(f"farm: warning: ... and {len(noted) - limit} more step notes: see the "
                     "report")
    return lines


def _said_apart(case: CaseResult, summary: RunSummary) -> bool:
    """Whether a skipped case is one a stop left unrun, which the end counts in a line."""
    reason = case.reason or ""
    return (reason.startswith(MAXFAIL_REASON)
            or reason in NOT_RUN_INTERRUPTED
            or bool(summary.stopped) and reason == NOT_RUN + str(summary.stopped))


FAILURE_CHARS = 400     # of an error's first line at the end of a run (the report has it all)
FAILURE_TAIL = 120      # of them kept from its end when it is longer: where the fix often is


def clipped(text: str, limit: int = FAILURE_CHARS, tail: int = 0) -> str:
    """``text`` cut to about ``limit`` characters at a word boundary, ending "…" when cut (a
    hint cut mid-word reads as a different word: "choose them with AN"). ``tail``: about
    that many of them are its end instead (from a word's start), after " … ": a message's
    fix is often its last words ("…or set android: imeStrategy: yadb-for-non-ascii with…"
    left the yadb path only in results.json)."""
    if len(text) <= limit:
        return text
    end = ""
    if tail:
        end = text[-tail:]
        start = end.find(" ")
        end = " … " + (end[start + 1:] if 0 <= start < tail // 2 else end).lstrip(" ,;:—-")
        limit -= len(end)
    head = text[:limit + 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > limit // 2 else text[:limit]).rstrip(" ,;:—-") + (end or "…")


def end_clipped(text: str) -> str:
    """An end-of-run line's message: whole up to FAILURE_CHARS, else its start and its end."""
    return clipped(text, FAILURE_CHARS, FAILURE_TAIL)


def _refused(case: CaseResult, not_run: str | None) -> bool:
    """Whether ``case`` is one the executor's refusal ``not_run`` left unrun (an error)."""
    return bool(not_run and case.reason == "not run" and case.error
                and case.error.message == not_run)


STATUSES = ("passed", "failed", "error", "flaky", "skipped", "interrupted")   # the tally's order
RED = ("failed", "error", "interrupted")


def platform_line(summary: RunSummary, not_run: str | None = None) -> str:
    """The tally per platform, under the summary line of a red run of more than one platform
    ("farm: 12 passed, 3 failed" did not say whether android or ios went red): ``farm:
    android: 3 passed, 2 failed; ios: 1 error; web: 7 passed``. "" for a one-platform run
    (its summary line says it all) or a run with nothing red. ``not_run``: the error of an
    executor that refused the run; the cases it left unrun are not counted here."""
    counts: dict[str, Counter[str]] = {}
    for case in summary.cases:
        if not _refused(case, not_run):
            counts.setdefault(case.platform, Counter())[case.status] += 1
    if len(counts) < 2 or not any(c[s] for c in counts.values() for s in RED):
        return ""
    return "farm: " + "; ".join(
        f"{platform}: " + ", ".join(f"{n} {s}{'s' * (s == 'error' and n > 1)}"
                                    for s in STATUSES if (n := tally[s]))
        for platform, tally in sorted(counts.items()))


def device_retried(summary: RunSummary) -> int:
    """How many of the run's cases had an attempt end in its device's error (another attempt
    ran after it): both iPhones dropping mid-run and their cases passing on retries read
    "farm: 2 passed", as if nothing had happened."""
    return sum(1 for c in summary.cases if any(outcome(p) is Outcome.INFRA for p in c.previous))


def summary_line(summary: RunSummary, not_run: str | None = None) -> str:
    """The tally: "farm: 1 failed, 2 errors in 3.7s (run r1)"; "in 3.7s; 2 retried after a
    device error" when cases had an attempt their device's error ended. ``not_run``: the
    error of an executor that refused the run; the cases it left unrun (errors in results.json) are
    "N case(s) not run (counted as errors)", not "N errors", which read as if they ran; so are
    the cases no device was left to run (`never_ran`), as the report counts them."""
    counts = dict(summary.counts)
    unrun = sum(1 for c in summary.cases if _refused(c, not_run) or never_ran(c))
    counts["error"] = counts.get("error", 0) - unrun
    new = Counter(c.status for c in summary.cases if c.since_last == NEW)
    new["passed"] = sum(1 for c in summary.cases if c.since_last == FIXED)   # "(2 fixed)"
    parts = [f"{n} {s}{'s' * (s == 'error' and n > 1)}"      # pytest: "2 errors"
             + (f" ({new[s]} {'fixed' if s == 'passed' else 'new'})" if new[s] else "")
             for s in
             ("passed", "failed", "error", "flaky", "skipped", "interrupted")
             if (n := counts.get(s))]
    if unrun:
        parts.append(f"{unrun} case(s) not run (counted as errors)")
    # the run's wall time right after the tally: after "; model: 3 calls" it read as the
    # model's time
    text = f"{', '.join(parts) or 'nothing ran'} in {summary.duration:.1f}s"
    if moved := device_retried(summary):     # (else said only in farm.log and previous[])
        text += f"; {moved} retried after a device error"
    if summary.quarantined:
        text += f"; quarantined: {', '.join(summary.quarantined)}"
    if summary.lost:        # one that served again: its why ends so (results.json says it)
        text += "; lost: " + ", ".join(f"{name} (came back)" if why.endswith(CAME_BACK)
                                       else name for name, why in summary.lost.items())
    spent = run_usage(summary)
    if spent.spent:
        text += f"; model: {spent.summary()}"
    saved = cache_savings(summary)
    if saved:
        text += f"; cache: {saved}"
    return f"farm: {text} (run {summary.run_id})"
