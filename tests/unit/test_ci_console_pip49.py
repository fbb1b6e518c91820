"""What a CI engineer saw in CI logs and pipes: a multi-line error cut to its first line with
nothing to say so (progress and the end of the run); a CR in an expected text dropping the
rest of the line; `grep FAILED` counting attempts that were retried; the tenth-done status
line showing passed/failed only after a failure and leaving out the device whose case ended."""

from __future__ import annotations

import io
import logging
from pathlib import Path

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import failure_lines
from farm.run_log import ended_line

MULTI = 'javascript error: first line\nsecond line that matters'


def _failed(message: str, case_id: str = "esc/e", status: str = "failed") -> CaseResult:
    return CaseResult(run_id="r", case_id=case_id, name="e", file="e.yaml", platform="web",
                      device="browser-1", status=status, duration=0.5, line=7,
                      error=CaseError(kind="ScriptError", step=1, message=message))


def _progress_line(result: CaseResult, final: bool = True) -> str:
    out = io.StringIO()
    PlainProgress(0, 1, stream=out).case_finished("browser-1", result, final=final)
    return out.getvalue().rstrip("\n")


def _end_line(result: CaseResult) -> str:
    summary = RunSummary(run_id="r", started="", cases=[result])
    summary.recount()
    return failure_lines(summary)[0]


def test_every_line_of_an_error_is_shown_pip49():
    want = "step 1: javascript error: first line ⏎ second line that matters"
    assert _progress_line(_failed(MULTI)).endswith(want)
    assert _end_line(_failed(MULTI)) == f"FAILED esc/e (e.yaml:7) — {want}"


def test_a_cr_in_an_expected_text_is_shown_escaped_with_the_rest_pip49():
    message = 'expected text "bad \x1b[31mRED\rok" is not on screen'
    for line in (_progress_line(_failed(message)), _end_line(_failed(message))):
        assert line.endswith('expected text "bad \\x1b[31mRED\\x0dok" is not on screen'), line
        assert "\r" not in line and "\x1b" not in line


def test_a_long_multi_line_error_keeps_its_start_and_its_last_words_pip49():
    message = "first line\n" + "word " * 200 + "\nthe fix is here"
    for line in (_progress_line(_failed(message)), _end_line(_failed(message))):
        assert "first line ⏎ word" in line and " … word" in line
        assert line.endswith("word ⏎ the fix is here")
        assert len(line) < 480


def test_an_attempt_to_be_retried_does_not_say_failed_pip49():
    retried, final = _failed("boom"), _failed("boom")
    assert _progress_line(retried, final=False).startswith(
        "[0/1] [browser-1] RETRY (failed) esc/e")
    assert "FAILED" not in _progress_line(retried, final=False)
    assert "FAILED" not in _progress_line(_failed("boom", status="error"), final=False)
    assert _progress_line(final).startswith("[1/1] [browser-1] FAILED esc/e")
    assert ended_line("browser-1", retried, final=False).startswith(
        "[browser-1] RETRY (failed) esc/e (attempt 1)")
    assert ended_line("browser-1", final, final=True).startswith("[browser-1] FAILED esc/e")


class _Out:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines += [line for line in text.splitlines() if line]

    def flush(self) -> None:
        pass


def _passed(n: int, device: str) -> CaseResult:
    return CaseResult(run_id="r", case_id=f"s/c{n:03}", name="c", file="s/c.yaml",
                      platform="web", device=device, status="passed", duration=1.0)


def test_the_tenth_line_says_passed_and_failed_and_every_device_pip49():
    total, out = 60, _Out()
    view = PlainProgress(0, total, stream=out, clock=lambda: 1000.0)
    devices = ["browser-1", "browser-2"]
    view.run_started(devices, total)
    view.case_started("browser-1", "s/c000", "c", 1)
    for n in range(1, total):       # two at a time: browser-1 runs case n-1, browser-2 case n
        device = devices[n % 2]
        view.case_started(device, f"s/c{n:03}", "c", 1)
        view.case_finished(devices[(n - 1) % 2], _passed(n - 1, devices[(n - 1) % 2]),
                           final=True)
    said = [line for line in out.lines if line.startswith("farm: ") and " done" in line]
    assert said and said[0].startswith("farm: 6/60 done (6 passed, 0 failed)"), said
    for line in said:
        assert "[browser-1]" in line and "[browser-2]" in line, line
