"""The plain progress lines a CI log gets (farm/progress.py)."""

from __future__ import annotations

import io

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult


def test_a_page_cannot_write_terminal_control_sequences_into_the_log():
    """A page's error text with an ANSI sequence (clear screen, colour), BEL and NUL is shown
    as escapes: the CI log keeps its colours and lines, and says what the page said."""
    out = io.StringIO()
    view = PlainProgress(0, 1, stream=out)
    result = CaseResult(run_id="r", case_id="s/c", name="c", file="c.yaml", platform="web",
                        device="browser-1", status="failed", duration=0.4,
                        error=CaseError(kind="StepFailed", step=1,
                                        message="javascript error: x\x00\x1b[2J\x1b[31m red\x07"))
    view.case_finished("browser-1", result, final=True)
    view.device_state("browser-1", "dead", "adb said \x1b]0;owned\x07")
    lines = out.getvalue().splitlines()
    assert lines == [
        "[1/1] [browser-1] FAILED s/c 0.4s — step 1: javascript error: "
        "x\\x00\\x1b[2J\\x1b[31m red\\x07",
        "[browser-1] dead: adb said \\x1b]0;owned\\x07"]
