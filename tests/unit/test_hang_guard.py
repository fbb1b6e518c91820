"""A page that stopped responding (farm.devices.web.hang.HangGuard) and a page whose renderer
crashed (farm.devices.web.failures.mapped_errors): the case's failure, the page closed and the
browser killed only when closing does not end the call. Fakes stand in for the page: a call
"hangs" until the fake that recovers from it lets it go."""

from __future__ import annotations

import threading

import pytest

from farm.devices.web.failures import mapped_errors
from farm.devices.web.hang import HangGuard
from farm.errors import StepFailed


class Page:
    """A page the guard watches: ``answers`` says whether it answers pings; the call in
    `hang` waits until something lets it go (or fails it, as a closed page does)."""

    def __init__(self, answers: bool, closes: bool = True, pings_before_done: int = 0) -> None:
        self.answers, self.closes = answers, closes
        self.pings, self.pings_before_done = 0, pings_before_done
        self.closed = self.killed = False
        self.released = threading.Event()
        self.guard = HangGuard("browser-9", self.ping, self.close, self.kill, after=0.01,
                               ping_s=0.01, close_s=0.05)

    def ping(self, seconds: float) -> bool:
        self.pings += 1
        if self.pings == self.pings_before_done:
            self.released.set()           # a slow call that the page finishes
        return self.answers

    def close(self) -> bool:
        self.closed = True
        if self.closes:
            self.released.set()
        return True

    def kill(self) -> None:
        self.killed = True
        self.released.set()

    def hang(self, what: str = "tap") -> None:
        with self.guard.watch(what):
            assert self.released.wait(60), "the guard never ended the call"


def test_a_slow_call_on_a_page_that_answers_is_not_a_hang() -> None:
    page = Page(answers=True, pings_before_done=3)
    page.hang()
    assert page.guard.hung is None
    assert not page.closed and not page.killed


def test_a_call_on_a_page_that_does_not_answer_is_ended_by_closing_the_page() -> None:
    page = Page(answers=False)
    page.hang("tap")
    assert page.closed and not page.killed
    said = page.guard.hung or ""
    assert said.startswith("the page stopped responding during tap: a script of the page did "
                           "not return for "), said
    assert said.endswith("(an endless loop?); farm closed the page"), said


def test_the_browser_is_killed_only_when_closing_the_page_does_not_end_the_call() -> None:
    page = Page(answers=False, closes=False)
    page.hang("javascript")
    assert page.closed and page.killed
    assert (page.guard.hung or "").endswith(
        "(an endless loop?); closing the page did not end it: farm restarted the browser")


def test_a_new_session_starts_with_no_hang() -> None:
    page = Page(answers=False)
    page.hang()
    page.guard.reset()
    assert page.guard.hung is None


def test_nested_calls_are_watched_as_their_outermost() -> None:
    page = Page(answers=False)
    with page.guard.watch("open the page"):
        page.hang("wait for the page")
    assert (page.guard.hung or "").startswith("the page stopped responding during open the "
                                              "page:")


def mapped(gone: str | None, error: Exception, killed: bool = False) -> Exception:
    """What a call inside mapped_errors that raised ``error`` raises, the page gone (why:
    ``gone``) or not."""
    with pytest.raises(Exception) as raised:
        with mapped_errors("browser-9", "tap", lambda: killed,
                           lambda message, what: gone and f"{gone} during {what}"):
            raise error
    return raised.value


@pytest.mark.parametrize("error", [
    RuntimeError("Mouse.click: Target crashed"),
    RuntimeError("Mouse.click: Target page, context or browser has been closed"),
    StepFailed("javascript error: the page stopped responding"),   # a call's own reading
])
def test_a_page_gone_under_its_browser_is_the_cases_failure(error: Exception) -> None:
    out = mapped("the page's renderer crashed", error)
    assert isinstance(out, StepFailed)
    assert str(out) == "the page's renderer crashed during tap"


def test_a_call_after_the_page_went_fails_before_it_runs() -> None:
    ran = []
    with pytest.raises(StepFailed, match="the page's renderer crashed during tap"):
        with mapped_errors("browser-9", "tap", lambda: True,
                           lambda message, what: f"the page's renderer crashed during {what}"):
            ran.append(1)
    assert ran == []
