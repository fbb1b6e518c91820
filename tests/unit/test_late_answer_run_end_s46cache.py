"""A model reply that came after farm stopped waiting (its timeout) was counted in farm.log
and the metrics only while the process still ran: the last retry's answer usually comes after
the run ended, and nothing said a request had been given up unanswered. Now the run's end
(`run_ended`) waits for none of them, hangs them up, and farm.log says which had not answered;
one that answered meanwhile (the case that asked had ended, the run had not) is counted."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from farm.llm import request_watch
from farm.llm.request_watch import Abandoned, on_abandon, run_ended, send
from tests.support.farm_cli import wait_for


def _abandoned(release: threading.Event, late: list, hung_up: threading.Event) -> None:
    def slow() -> str:
        on_abandon(hung_up.set)        # what farm's httpx client registers: its connection
        release.wait(30)
        return "the answer"
    with pytest.raises(Abandoned):
        send(slow, None, time.monotonic() + 0.1, late.append, "model openai/m")


def test_the_run_end_says_which_given_up_requests_had_not_answered(caplog):
    release, hung_up, late = threading.Event(), threading.Event(), []
    _abandoned(release, late, hung_up)
    _abandoned(release, late, hung_up)
    with caplog.at_level(logging.INFO, logger="farm.llm"):
        run_ended()
    assert ("model openai/m: 2 requests given up at their timeout had not answered when the "
            "run ended: their spend is not counted") in caplog.text
    assert hung_up.is_set()           # not waited for: their connections are closed
    release.set()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="farm.llm"):
        run_ended()                   # (said once)
    assert "had not answered" not in caplog.text


def test_an_answer_that_came_before_the_run_ended_is_counted_not_said_missing(caplog):
    release, hung_up, late = threading.Event(), threading.Event(), []
    _abandoned(release, late, hung_up)
    release.set()
    wait_for(lambda: late, 30, "the late answer")
    wait_for(lambda: not request_watch._answering, 30, "the request's end")
    with caplog.at_level(logging.INFO, logger="farm.llm"):
        run_ended()
    assert late == ["the answer"] and "had not answered" not in caplog.text
    assert not hung_up.is_set()
