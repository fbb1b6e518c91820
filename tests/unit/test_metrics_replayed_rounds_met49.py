"""farm_agent_iterations counts the agent's plan-act rounds: a step that replayed a cached plan
(no model asked: its plan lookup hit, or the replay failed or raised with no model to take
over) is no round. A nightly that replays everything read "every agent finished in 1 round"
(its 0 rounds in the lowest bucket, le="1.0", beside real one-round steps)."""

from __future__ import annotations

from farm import metrics
from farm.results import CacheUse, CaseResult, StepRecord

PLATFORM = "replay-met49"


def _value(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, {"platform": PLATFORM, **labels}) or 0.0


def _case(*steps: tuple[int, str | None]) -> CaseResult:
    """A passed case of ai steps, each (its rounds, its plan-cache result)."""
    records = [StepRecord(task="t", index=i + 1, kind="ai", label="x", rounds=rounds,
                          cache=CacheUse(plan=plan) if plan else None)
               for i, (rounds, plan) in enumerate(steps)]
    return CaseResult(run_id="r", case_id="c", name="c", file="f.yaml", platform=PLATFORM,
                      device="d1", status="passed", steps=records, duration=1.0)


def _observed(result: CaseResult) -> tuple[float, float, float]:
    """How (count, sum, the le="1.0" bucket) of farm_agent_iterations moved."""
    keys = (("farm_agent_iterations_count", {}), ("farm_agent_iterations_sum", {}),
            ("farm_agent_iterations_bucket", {"le": "1.0"}))
    before = [_value(n, **labels) for n, labels in keys]
    metrics.case_finished(result)
    return tuple(_value(n, **labels) - b for (n, labels), b in zip(keys, before))


def test_a_case_of_replayed_plans_is_no_agent_iteration_met49():
    assert _observed(_case((0, "hit"), (0, "hit"))) == (0, 0, 0)
    assert _observed(_case((0, "replay-failed"))) == (0, 0, 0)
    assert _observed(_case((0, "replay-error"))) == (0, 0, 0)


def test_the_agents_own_rounds_are_still_counted_met49():
    assert _observed(_case((1, None))) == (1, 1, 1)                 # a real one-round step
    assert _observed(_case((0, "hit"), (3, "miss"))) == (1, 3, 0)   # the replay adds nothing
    assert _observed(_case((4, "replanned"))) == (1, 4, 0)          # the model took over


def test_a_real_replay_is_no_agent_iteration_met49(tmp_path):
    """Night 1 plans "log in" with the model (its rounds counted), night 2 replays the plan
    (a plan hit, no model call): nothing in farm_agent_iterations for it."""
    from tests.unit.test_cache_units import PLAN, run_twice
    _, [(first, _, _), (second, client, _)] = run_twice(tmp_path, PLAN)
    assert second.steps[0].cache.plan == "hit" and client.calls == 0
    assert metrics.case_iterations(first) and metrics.case_iterations(second) is None
