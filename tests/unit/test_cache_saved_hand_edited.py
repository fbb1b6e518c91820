"""A plan entry edited by hand in a shared store whose ``solved_with`` figures are no numbers
("calls": "many"): its replay ended the run in an internal ValueError where the run's last
line and report.html add up what the replays saved (after every case had run). Such figures
are not known: the replay saves what it saves, said without them."""

from __future__ import annotations

import pytest

from farm.results import RunSummary, cache_savings
from tests.unit.test_cache_units import PLAN, run_twice


@pytest.mark.parametrize("solved", [{"calls": "many", "tokens": 10},
                                    {"calls": 2, "tokens": [1], "cost_usd": "cheap"},
                                    "three calls"])
def test_a_replay_of_a_plan_whose_solve_figures_are_no_numbers(tmp_path, solved):
    store, _ = run_twice(tmp_path, PLAN)
    [(key, entry)] = [(k, v) for k, v in store.items() if v["type"] == "plan"]
    store.put(key, {**entry, "solved_with": solved})
    _, [(night, client, _), _] = run_twice(tmp_path, PLAN, store=store)
    assert night.status == "passed" and client.calls == 0
    assert night.steps[0].cache.plan == "hit"
    summary = RunSummary(run_id="r", started="", cases=[night])
    assert cache_savings(summary) == "1 plan(s) replayed"
