"""farm.log of a run: every log line with the run's secrets masked (tracebacks included) and its
control characters shown escaped (``\\x1b``), and a disk that fills up stops it with one
warning, never the run."""

from __future__ import annotations

import logging
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from farm.text import printable


class MaskFilter(logging.Filter):
    """Masks every record with ``mask`` (the run's secrets), its traceback included, and shows
    its control characters as escapes, as the console and the reports do: a page's or a
    suite's ESC or BEL (``Cart \\e[31m(9)``) recoloured, rewrote or beeped a `cat farm.log`
    or a CI log that shows the file."""

    def __init__(self, mask) -> None:
        super().__init__()
        self.mask = mask

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:       # a log call whose arguments do not fit its format (a library's
            # slip): its line as written, not a TypeError raised into the caller (a handler's
            # filter runs outside logging's own error handling)
            text = f"{record.msg} (log arguments: {record.args!r})"
        if record.exc_info:      # tracebacks carry page text and values too: mask them as well
            text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            text += "\n" + record.exc_text
        record.msg = printable(self.mask(text))     # (masked first: a secret is matched raw)
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True


class _LogFile(logging.FileHandler):
    """farm.log. A disk that fills up (or a run dir gone) stops it with one line on stderr,
    not a logging traceback on the console for every line after, nor an error at its close
    that would turn the run's verdict into an internal error."""

    failed = False
    levels: list[tuple[logging.Logger, int]] = []     # as they were before the run

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)     # a bug in a log call: as logging says it
            return
        if not self.failed:
            self.failed = True
            print(f"farm: warning: cannot write {self.baseFilename} "
                  f"({exc.strerror or exc}): farm.log stops here", file=sys.stderr, flush=True)

    def close(self) -> None:
        try:
            super().close()
        except OSError:                     # its last flush, on the same full disk
            self.failed = True


def setup_logging(run_dir: Path, mask) -> logging.Handler:
    """farm.log in ``run_dir`` for every logger, masked with ``mask``; `drop_handler` ends it
    and gives the loggers their levels back."""
    handler = _LogFile(run_dir / "farm.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(MaskFilter(mask))
    root = logging.getLogger()
    noisy = [logging.getLogger(name) for name in ("asyncio", "PIL", "LiteLLM", "LiteLLM Router",
                                                  "httpx", "httpcore", "openai")]
    handler.levels = [(logger, logger.level) for logger in (root, *noisy)]
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for logger in noisy:
        logger.setLevel(logging.WARNING)
    return handler


def drop_handler(handler: logging.Handler) -> None:
    """Stop ``handler`` (farm.log) at the end of the run and close its file. The loggers get
    back the levels they had: a program calling `farm.run` with its logging at WARNING had
    every INFO line of its own printed after the run, the root logger left at INFO."""
    logging.getLogger().removeHandler(handler)
    for logger, level in getattr(handler, "levels", []):
        logger.setLevel(level)
    handler.close()


_case_log = logging.getLogger("farm.cases")


def skips_failed(summary: Any) -> int:
    """How many skipped cases made the run's code 1 under --fail-on-skip (0 when they did
    not): code 1 with no failed case is theirs alone, as results.json tells it later too. A
    run that also failed counts those skipped for themselves (not a --maxfail stop's): with
    its failure fixed they would still fail it, a surprise the next night otherwise."""
    counts = summary.counts
    if summary.exit_code != 1:
        return 0
    if not counts.get("failed") and not counts.get("error"):
        return counts.get("skipped", 0)
    if not getattr(summary, "fail_on_skip", False):
        return 0
    from farm.select import skipped_themselves
    return len(skipped_themselves(summary.cases))


def skips_failed_text(summary: Any) -> str | None:
    """What the report's banner and farm.log say of a run --fail-on-skip made fail."""
    skipped = skips_failed(summary)
    return (f"This run failed: {skipped} skipped case(s) with --fail-on-skip (exit 1)"
            if skipped else None)


LINE_JOIN = " ⏎ "     # between a message's lines on one console or farm.log line


def one_message(text: str) -> str:
    """A message of several lines as one console line, each line's break shown as
    `LINE_JOIN` (a ``javascript:`` step's ``throw new Error("first\\nsecond")`` showed only
    "first": the line that mattered was lost with nothing to say so). Only a newline (or CR LF,
    or U+2028/U+2029) breaks a line: a lone CR, VT or FF is a control character `printable`
    shows escaped (a CR in an expected text cut the rest of the line off); blank lines and
    the message's ends are left out."""
    text = re.sub("\r\n|[\n\u2028\u2029]", "\n", text)
    return LINE_JOIN.join(line.strip(" \t") for line in text.split("\n") if line.strip(" \t"))


def one_line(label: str) -> str:
    """A step's label for a one-line summary (farm.log's end line, junit.xml's step log): a
    multi-line one (a ``javascript: |`` step's whole script) as its first line and "…", so
    one case's end stays one line (results.json and the report keep the label whole)."""
    if "\n" not in label and "\r" not in label:
        return label
    first = label.strip().replace("\r\n", "\n").replace("\r", "\n").split("\n")[0].rstrip()
    # javascript "const t = …  (the closing quote is on a later line: shown as cut)
    return f"{first} …" if first else "…"


def verdict_line(result: Any) -> int | None:
    """The line a case's file:line points at: a flaky case's, the step its last failed
    attempt failed at (what to look into: its passing attempt has no failing step), as its
    <flakyFailure> and the report's earlier attempts say; else results.json's ``line`` (the
    failing step, or a passed case's first step)."""
    if result.status == "flaky":
        failed = [p for p in result.previous if p.attempt < result.attempt
                  and p.status in ("failed", "error") and p.line]
        if failed:
            return failed[-1].line
    return result.line

LOGGED_ERROR_CHARS = 2000       # of a case's error in farm.log (its page text can be long)


class CaseLog:
    """RunEvents around the progress view that put each case's start and end in farm.log:
    a run's console (a CI log, a terminal since closed) is often gone when its failure is
    looked into, and farm.log said only when the browsers started. One line a case start,
    one a case end (its device, attempt, status, time, the failing step's file:line and
    error, its screenshot); a queued case a stop left unrun is not listed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        if state in ("dead", "quarantined", "restarting"):
            _case_log.warning("device %s %s%s", device, state, f": {detail}" if detail else "")
        self.inner.device_state(device, state, detail)

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        _case_log.info("[%s] start %s (attempt %d)", device, case_id, attempt)
        self.inner.case_started(device, case_id, name, attempt, started)

    def case_finished(self, device: str, result: Any, final: bool) -> None:
        if result.status != "skipped" or not (result.reason or "").startswith("not run"):
            _case_log.log(logging.INFO if result.status in ("passed", "skipped", "flaky")
                          else logging.WARNING, "%s", ended_line(device, result, final))
        self.inner.case_finished(device, result, final)


def took(result: Any) -> str:
    """How long a case's end line says it took: "3.2s"; a retried case's verdict (its
    ``duration`` every attempt's) "19.9s (30.0s over 2 attempts)", its own attempt's first:
    "(attempt 2) in 30.0s" read as that attempt's time."""
    own = getattr(result, "attempt_duration", None)
    if not result.previous or own is None:
        return f"{result.duration:.1f}s"
    return f"{own:.1f}s ({result.duration:.1f}s over {len(result.previous) + 1} attempts)"


def ended_word(status: str, final: bool) -> str:
    """The word a case's end line starts with: its status (FAILED) for its verdict;
    ``RETRY (failed)`` for an attempt that will be retried, so that `grep FAILED` on a CI
    log counts the cases that failed, not each retried attempt too."""
    return status.upper() if final else f"RETRY ({status})"


def ended_line(device: str, result: Any, final: bool) -> str:
    """``[browser-2] FAILED s/pay (attempt 1) in 3.2s at step 4 aiTap "Pay" (s/pay.yaml:12):
    AssertionFailed: …; screenshot artifacts/…``"""
    text = (f"[{device}] {ended_word(result.status, final)} "
            f"{result.case_id} (attempt {result.attempt}) in {took(result)}")
    error = result.error
    step = next((s for s in reversed(result.steps) if s.index == error.step), None
                ) if error else next((s for s in reversed(result.steps)   # interrupted: the
                                      if s.status == result.status), None  # step it was in
                                     ) if result.status == "interrupted" else None
    if step is not None:
        text += f" at step {step.index} {one_line(step.label)}"
    line = (step.line if step is not None and step.line else verdict_line(result)
            ) if result.status != "passed" else 0   # (a passed case's: its first step's)
    text += f" ({result.file}:{line})" if line else f" ({result.file})"
    why = f"{error.kind}: {error.message}" if error else result.reason or ""
    why = one_message(why)      # one line
    if why and result.status != "passed":
        text += ": " + (why if len(why) <= LOGGED_ERROR_CHARS
                        else why[:LOGGED_ERROR_CHARS] + f"… ({len(why)} characters)")
    if result.screenshot and result.status not in ("passed", "skipped"):
        text += f"; screenshot {result.screenshot}"
    return text
