"""`farm.shared_context.batch_scope`: what a batch file's ``concurrent`` and ``continueOnError:
false`` ask of a run, for the batch's own files only."""

from __future__ import annotations

from pathlib import Path

from farm.schedule import Job, order_jobs, pick_job
from farm.shared_context import batch_scope
from farm.suite.model import Batch, Case, Shared


def _case(cid: str, shared: Shared | None = None) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", tasks=[], shared=shared)


def _batch(ids: list[str], concurrent: int = 1, keep_going: bool = False) -> Batch:
    return Batch(file="s/b/index.yaml", concurrent=concurrent, continue_on_error=keep_going,
                 case_ids=ids, unit_id="s/b/index")


def test_a_batch_without_a_file_in_the_run_is_not_live():
    cases = [_case("a"), _case("b/x"), _case("b/y")]
    scope = batch_scope([_batch(["b/x", "b/y"])], cases, {"a"})
    assert (scope.live, scope.alone, scope.stops, scope.lanes) == ((), False, (), {})


def test_the_batch_alone_is_the_run_and_its_stop_the_run_s():
    batch = _batch(["b/x", "b/y"])
    scope = batch_scope([batch], [_case("b/x"), _case("b/y")], {"b/x", "b/y"})
    assert (scope.live, scope.alone, scope.stops) == ((batch,), True, (batch,))


def test_a_shared_context_batch_stops_itself():
    """Its web files are one unit, which stops after a failed file (farm.runner.run_unit)."""
    unit = Shared(batch="s/b/index.yaml", unit_id="s/b/index", order=0)
    cases = [_case("a"), _case("b/x", unit), _case("b/y", unit)]
    scope = batch_scope([_batch(["b/x", "b/y"])], cases, {"a", "b/x", "b/y"})
    assert (scope.alone, scope.stops) == (False, ())


def test_a_concurrent_2_batch_beside_other_cases_runs_in_2_lanes():
    """Each lane is a sequence (farm.schedule): a device takes the next file of a lane only
    once its earlier one ended, so at most 2 of the batch's files run at once, while the
    other cases take any device."""
    ids = ["b/1", "b/2", "b/3", "b/4", "b/5"]
    cases = [_case("a"), *map(_case, ids)]
    scope = batch_scope([_batch(ids, concurrent=2, keep_going=True)], cases, {"a", *ids})
    assert scope.lanes == {
        "b/1": ("s/b/index.yaml (lane 1)", 0), "b/2": ("s/b/index.yaml (lane 2)", 0),
        "b/3": ("s/b/index.yaml (lane 1)", 1), "b/4": ("s/b/index.yaml (lane 2)", 1),
        "b/5": ("s/b/index.yaml (lane 1)", 2)}
    assert scope.stops == ()
    queue = order_jobs([Job(cid, "web", 1.0, sequence=scope.lanes[cid][0],
                            place=scope.lanes[cid][1]) for cid in ids] + [Job("a", "web", 1.0)])
    running: list[Job] = []
    for device in ("d1", "d2", "d3", "d4"):       # four free browsers, one after another
        i = pick_job(queue, device, "web", 3, running=running)
        if i is not None:
            running.append(queue.pop(i))
    assert [j.case_id for j in running] == ["b/1", "b/2", "a"]


def test_a_concurrent_2_batch_alone_is_capped_by_its_devices_not_lanes():
    ids = ["b/1", "b/2", "b/3"]
    scope = batch_scope([_batch(ids, concurrent=2)], list(map(_case, ids)), set(ids))
    assert (scope.alone, scope.lanes) == (True, {})
