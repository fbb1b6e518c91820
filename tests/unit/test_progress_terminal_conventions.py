"""The live view follows the conventions CI users expect: standard output that is no terminal
(a CI log, a pipe) gets plain lines without escape sequences, whatever TERM says (GitLab's
runner sets TERM=xterm); on a terminal, NO_COLOR (no-color.org) leaves the colours out."""

from __future__ import annotations

import io
import re
import sys

import pytest

from farm.progress import CI_VARIABLES, PlainProgress, RichProgress, make_progress
from farm.results import CaseError, CaseResult

COLOUR = re.compile(r"\x1b\[[0-9;]*3[0-9][;m]")     # an SGR foreground colour: 31m, 1;31m …


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _failed() -> CaseResult:
    return CaseResult(run_id="r", case_id="shop/pay", name="Pay", file="pay.yaml",
                      platform="web", device="browser-1", status="failed",
                      error=CaseError(kind="AssertionFailed", message="total was 41", step=3))


@pytest.fixture
def term(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLORTERM",
                 *CI_VARIABLES):      # (a CI job's pseudo-terminal gets plain lines)
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    return monkeypatch


def test_a_ci_log_gets_plain_lines_without_escape_sequences(term) -> None:
    log = io.StringIO()     # no terminal
    term.setattr(sys, "stdout", log)
    view = make_progress(0, 1, enabled=True)
    assert type(view) is PlainProgress
    view.case_started("browser-1", "shop/pay", "Pay", 1)
    view.case_finished("browser-1", _failed(), final=True)
    view.stop()
    assert "\x1b" not in log.getvalue()
    assert "[1/1] [browser-1] FAILED shop/pay 0.0s — step 3: total was 41" in log.getvalue()


@pytest.mark.parametrize("no_color, coloured", [("1", False), (None, True)])
def test_no_color_leaves_the_colours_out_of_the_terminal_view(term, no_color, coloured) -> None:
    screen = _Terminal()
    term.setattr(sys, "stdout", screen)
    if no_color is not None:
        term.setenv("NO_COLOR", no_color)
    view = make_progress(0, 1, enabled=True)
    assert type(view) is RichProgress
    view.case_finished("browser-1", _failed(), final=True)
    shown = screen.getvalue()
    assert "FAILED" in shown and "total was 41" in shown
    assert bool(COLOUR.search(shown)) is coloured
