"""A plan replay that ended in error (its locate's model reply unparseable, the case an error)
left the step's cache saying ``plan: hit``, as of a replay that ran whole. It says
``replay-error`` now (results.json, the report, farm_cache_requests_total)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import farm.cache.plan as plan_module
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.plan import PlanCache
from farm.cache.store import MemoryStore
from farm.errors import ModelUnavailable

NS = Namespace("suite/ai_shopping", "web")
TASK = "log in as demo"


def test_a_replay_that_raised_says_so_not_hit(monkeypatch):
    store = MemoryStore()
    store.put(NS.key("plan", TASK, 0), {"type": "plan", "prompt": TASK, "updated": 0,
                                        "actions": [{"type": "Tap"}, {"type": "Tap"}]})
    ran = []

    def run_one(planned, loop, runner, screen=None):
        ran.append(planned)
        if len(ran) == 2:
            raise ModelUnavailable("its locate reply could not be parsed twice")
        return None

    monkeypatch.setattr(plan_module, "_run_one", run_one)
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    plan = PlanCache(cache, TASK)
    loop = SimpleNamespace(agent=None, models=object())
    runner = SimpleNamespace(ctx=SimpleNamespace(device=None))
    with pytest.raises(ModelUnavailable):
        plan.replay(loop, runner)
    use = cache.end_step()
    assert use is not None and use.plan == "replay-error"
    assert plan.misfit == (2, "ended in error")
    assert cache.replaying is False
