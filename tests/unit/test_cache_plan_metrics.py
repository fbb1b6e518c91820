"""farm_cache_requests_total{cache="plan"} counts one result per lookup, as its help says: a
night whose app renamed a button (the replayed plan failed at it, the model planned the rest)
counts `replanned` alone, where it counted a `hit` too (a dashboard's plan hit rate read a
replan as a hit); a replayed plan is a hit, a missing one a miss."""

from __future__ import annotations

from farm import metrics
from farm.devices.base import UITree
from tests.unit.test_cache_units import PLAN, SHOP, _plan_xml, node, run_twice

RESULTS = ("hit", "miss", "replanned")


def _plan_counts() -> dict[str, float]:
    return {r: metrics.CACHE_REQUESTS.labels("plan", r)._value.get() for r in RESULTS}


def _moved(before: dict[str, float]) -> dict[str, float]:
    after = _plan_counts()
    return {r: after[r] - before[r] for r in RESULTS if after[r] != before[r]}


def test_a_replanned_step_counts_replanned_alone(tmp_path):
    renamed = {**SHOP, "login": UITree(source="dom", page_text="login", nodes=[
        SHOP["login"].nodes[0],
        node(1, "button", None, (10, 60, 100, 30), text="Log in", clickable=True)])}

    def script(messages, index):
        last = "\n".join(str(m["content"]) for m in messages[-1:])
        if '"bbox": []' in last:                 # AI locate of the vanished "Sign in"
            return '{"bbox": [], "error": "no such button"}'
        if "Step 2 of the remembered plan failed" in last:
            return _plan_xml("Tap", {"locate": {"prompt": "Log in"}})
        return PLAN[index] if index < 3 else '<complete success="true">in</complete>'

    before = _plan_counts()
    _, [(first, _, _), (second, _, _)] = run_twice(tmp_path, script, second_screens=renamed)
    assert first.status == second.status == "passed"
    assert second.steps[0].cache.plan == "replanned"
    assert _moved(before) == {"miss": 1, "replanned": 1}     # night 1 missed, night 2 replanned


def test_a_replayed_plan_is_a_hit(tmp_path):
    before = _plan_counts()
    _, [(first, _, _), (second, _, _)] = run_twice(tmp_path, PLAN)
    assert second.steps[0].cache.plan == "hit"
    assert _moved(before) == {"miss": 1, "hit": 1}
