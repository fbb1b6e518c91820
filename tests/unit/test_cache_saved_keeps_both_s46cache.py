"""results.json's `steps[].cache.saved` of a plan replayed with no model call had only
{calls, tokens, cost_usd}, where the README says a step's `saved` keeps both figures,
`solved_with` and `replay_spent`: a reader could not tell what solving the step had cost from
what the replay saved. Now both are there (the replay's spend nothing when it asked no model)."""

from __future__ import annotations

from tests.unit.test_cache_units import PLAN, run_twice


def test_a_whole_replay_says_what_solving_cost_and_that_it_spent_nothing(tmp_path):
    store, [(first, _, _), (second, c2, _)] = run_twice(tmp_path, PLAN)
    assert c2.calls == 0
    [entry] = [v for _, v in store.items() if v["type"] == "plan"]
    saved = second.steps[0].cache.saved
    assert second.steps[0].cache.plan == "hit"
    assert saved["solved_with"] == entry["solved_with"]
    assert saved["replay_spent"] == {"calls": 0, "tokens": 0, "cost_usd": 0.0}
    assert (saved["calls"], saved["tokens"]) == (entry["solved_with"]["calls"],
                                                 entry["solved_with"]["tokens"])
    dumped = second.model_dump(mode="json")["steps"][0]["cache"]["saved"]
    assert set(dumped) >= {"calls", "tokens", "cost_usd", "solved_with", "replay_spent"}
