"""A plan entry an older farm stored (before entries kept ``solved_with``): its replays save
what solving it cost then, but nothing says how much. The run's cache line, results.json and
`farm cache ls` say it is not known and why, where they said nothing (forever: each night's
replay renews the entry without a figure)."""

from __future__ import annotations

import json

from farm.cache.plan import OLDER_ENTRY
from farm.results import RunSummary, cache_savings
from tests.unit.test_cache_units import PLAN, run_twice


def _older_entry(tmp_path):
    store, _ = run_twice(tmp_path, PLAN)
    [(key, entry)] = [(k, v) for k, v in store.items() if v["type"] == "plan"]
    store.put(key, {k: v for k, v in entry.items() if k != "solved_with"})
    return store, key


def test_a_replay_of_an_older_farms_entry_says_its_savings_are_not_known_upg49(tmp_path):
    store, key = _older_entry(tmp_path)
    _, [(night, client, _), _] = run_twice(tmp_path, PLAN, store=store)
    assert night.status == "passed" and client.calls == 0
    use = night.steps[0].cache
    assert use.plan == "hit" and use.saved is None and use.saved_unknown == OLDER_ENTRY
    data = json.loads(night.model_dump_json())["steps"][0]["cache"]
    assert data["saved"] is None and data["saved_unknown"].startswith("solved by an older farm")
    summary = RunSummary(run_id="r", started="", cases=[night])
    assert cache_savings(summary) == \
        "1 plan(s) replayed (saved: not known, solved by an older farm)"
    assert "solved_with" not in store.get(key)      # (renewed without one: said every night)


def test_a_step_whose_entry_farm_solved_has_no_such_reason_upg49(tmp_path):
    _, [(night, _, _), _] = run_twice(tmp_path, PLAN)
    assert night.steps[0].cache.saved_unknown is None
    assert "saved_unknown" not in json.loads(night.model_dump_json())["steps"][0]["cache"]


def test_farm_cache_ls_says_an_older_farms_plan_saves_what_is_not_known_upg49(tmp_path):
    from farm.cli import _entry_row
    store, key = _older_entry(tmp_path)
    saved: list = []
    row = _entry_row(key, store.get(key), saved, [])
    assert "plan#0" in row and "2 action(s), saved: not known (solved by an older farm)" in row
    assert saved == []
