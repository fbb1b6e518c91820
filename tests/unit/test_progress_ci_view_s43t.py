"""A CI job that runs farm on a pseudo-terminal (CircleCI, Buildkite, `script -qfc` in a job)
gets the plain lines a CI log wants: `CI=true script -qfc "farm run suite"` on a 10 s case
wrote the live view's every redraw into the log (21 KB, 166 cursor-ups). TTY_INTERACTIVE=1,
rich's own switch, still asks for the live view there; TTY_INTERACTIVE=0 turns it off on a
terminal."""

from __future__ import annotations

import io
import sys

import pytest

from farm.progress import CI_VARIABLES, PlainProgress, RichProgress, make_progress
from farm.results import CaseResult


class _PseudoTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def pty(monkeypatch: pytest.MonkeyPatch) -> _PseudoTerminal:
    """Standard output a pseudo-terminal (set in the test: pytest's capture swaps sys.stdout
    between a fixture and its test), no CI variable set."""
    for name in (*CI_VARIABLES, "TTY_INTERACTIVE", "TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    return _PseudoTerminal()


@pytest.mark.parametrize("name, value", [
    ("CI", "true"), ("CI", "1"), ("GITHUB_ACTIONS", "true"), ("GITLAB_CI", "true"),
    ("BUILDKITE", "true"), ("CIRCLECI", "true"), ("JENKINS_URL", "https://ci.example/"),
    ("BUILD_ID", "1234"), ("TF_BUILD", "True")])
def test_a_ci_job_on_a_pseudo_terminal_gets_plain_lines(pty, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdout", pty)
    view = make_progress(0, 1, enabled=True)
    assert type(view) is PlainProgress
    view.start()
    view.case_started("browser-1", "suite/wait", "Wait", 1)
    view.case_finished("browser-1", CaseResult(
        run_id="r", case_id="suite/wait", name="Wait", file="suite/wait.yaml", platform="web",
        device="browser-1", status="passed", duration=10.0), final=True)
    view.stop()
    assert "\x1b" not in pty.getvalue()         # no redraws, no cursor-ups, no colour
    assert "[1/1] [browser-1] PASSED suite/wait 10.0s" in pty.getvalue()


@pytest.mark.parametrize("value", ["", "0", "false", "no", "off"])
def test_ci_set_to_false_keeps_the_live_view_on_a_terminal(pty, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    monkeypatch.setattr(sys, "stdout", pty)
    assert type(make_progress(0, 1, enabled=True)) is RichProgress


def test_tty_interactive_decides_over_ci_and_the_terminal(pty, monkeypatch):
    monkeypatch.setattr(sys, "stdout", pty)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TTY_INTERACTIVE", "1")
    assert type(make_progress(0, 1, enabled=True)) is RichProgress
    monkeypatch.delenv("CI")
    monkeypatch.setenv("TTY_INTERACTIVE", "0")
    assert type(make_progress(0, 1, enabled=True)) is PlainProgress
    monkeypatch.setenv("TTY_INTERACTIVE", "1")
    monkeypatch.setattr(sys, "stdout", io.StringIO())      # a pipe: never redrawn into
    assert type(make_progress(0, 1, enabled=True)) is PlainProgress
