"""Ctrl-C in a case whose `ai` step had already passed threw its plan away (farm.log: `plan
cache: 1 entry not kept: the case was interrupted`) while its locate entries were kept: the
next night paid the model again for what it had solved. Now the plans of the steps that passed
before the one the case was interrupted in are stored; that step's own is not."""

from __future__ import annotations

import logging

from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore

NS = Namespace("mine/greet", "web")


def _solved(cache: CaseCache, task: str) -> None:
    """An ai step the model solved: its plan waits for the attempt's end."""
    cache.begin_step()
    cache.save(cache.slot("plan", task), "plan", task, {"actions": [{"type": "Tap"}]})
    cache.end_step()


def test_an_interrupted_case_keeps_the_plans_of_the_steps_that_passed(caplog):
    store = MemoryStore()
    cache = CaseCache(store, NS, "read-write")
    _solved(cache, "press the hello button")
    _solved(cache, "press the greet button")   # its plan ran; Ctrl-C came before it ended
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        cache.finish("interrupted")
    assert store.get(NS.key("plan", "press the hello button", 0)) is not None
    assert store.get(NS.key("plan", "press the greet button", 0)) is None
    assert "plan cache: 1 entry of the steps that passed kept" in caplog.text
    assert "plan cache: 1 entry not kept: the case was interrupted" in caplog.text


def test_a_ctrl_c_between_steps_stops_the_next_one_and_keeps_the_last_plan():
    store = MemoryStore()
    cache = CaseCache(store, NS, "read-write")
    _solved(cache, "press the hello button")
    cache.begin_step()          # check_time raises Interrupted as the next step starts
    cache.end_step()
    cache.finish("interrupted")
    assert store.get(NS.key("plan", "press the hello button", 0)) is not None


def test_a_failed_case_still_keeps_no_plan():
    store = MemoryStore()
    cache = CaseCache(store, NS, "read-write")
    _solved(cache, "press the hello button")
    cache.begin_step()
    cache.end_step()
    cache.finish("failed")
    assert list(store.items()) == []
