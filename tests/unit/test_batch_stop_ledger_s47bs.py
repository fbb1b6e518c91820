"""A ``continueOnError: false`` batch beside other cases stops its own files only:
`farm.shared_context.BatchStop` asks the executor to ``stop_taking(reason, only=ids)``, and the
executors' shared `Ledger` ends those queued jobs (and no other) skipped with the reason."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy, synthetic
from farm.executors.base import Ledger, NullEvents
from farm.schedule import Job
from farm.shared_context import BatchStop, batch_stops
from farm.suite.model import Batch, Case

WHY = "not run: one.yaml failed (the batch has continueOnError: false)"


def _case(cid: str) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", tasks=[])


def _batch(ids: list[str]) -> Batch:
    return Batch(file="s/b/index.yaml", case_ids=ids, unit_id="s/b/index")


class _Told:
    def __init__(self) -> None:
        self.finished: list = []

    def case_finished(self, device, result, final) -> None:
        self.finished.append((result.case_id, result.status, result.reason))


class _Executor:
    def __init__(self) -> None:
        self.stops: list = []

    def stop_taking(self, reason, only=None) -> None:
        self.stops.append((reason, only))


def _result(cid: str, status: str, file: str | None = None):
    result = synthetic(_case(cid), "run", 1, status)
    return result.model_copy(update={"file": file or f"s/{cid}.yaml"})


def test_a_batch_s_jobs_stop_together_each_matrix_group_on_its_own():
    jobs = ["b/one", "b/two", "a", "b/one@pixel", "b/two@pixel", "b/one@ipad", "a@pixel"]
    got = batch_stops((_batch(["b/one", "b/two"]),), jobs)
    assert got == {"b/one": {"b/one", "b/two"}, "b/two": {"b/one", "b/two"},
                   "b/one@pixel": {"b/one@pixel", "b/two@pixel"},
                   "b/two@pixel": {"b/one@pixel", "b/two@pixel"},
                   "b/one@ipad": {"b/one@ipad"}}


def test_a_batch_file_s_failure_stops_the_rest_of_its_batch_once():
    executor, told = _Executor(), _Told()
    events = BatchStop(told, executor, batch_stops((_batch(["b/one", "b/two", "b/three"]),),
                                                   ["b/one", "b/two", "b/three", "a"]))
    events.case_finished("d", _result("a", "failed"), True)          # another case
    events.case_finished("d", _result("b/one", "failed", "s/b/one.yaml"), False)  # retried
    assert executor.stops == []
    events.case_finished("d", _result("b/one", "failed", "s/b/one.yaml"), True)
    events.case_finished("d", _result("b/two", "error", "s/b/two.yaml"), True)   # in flight
    assert executor.stops == [(WHY, {"b/two", "b/three"})]
    assert [c for c, *_ in told.finished] == ["a", "b/one", "b/one", "b/two"]


def test_an_error_is_said_as_one():
    executor = _Executor()
    events = BatchStop(_Told(), executor, batch_stops((_batch(["b/one", "b/two"]),),
                                                      ["b/one", "b/two"]))
    events.case_finished("d", _result("b/one", "error", "s/b/one.yaml"), True)
    assert executor.stops == [("not run: one.yaml ended with an error (the batch has "
                               "continueOnError: false)", {"b/two"})]


def test_the_ledger_ends_the_stopped_jobs_only_and_keeps_the_others_queued():
    cases = {c: _case(c) for c in ("a", "b/two", "b/three", "c")}
    told = _Told()
    ledger = Ledger(cases, "run", RetryPolicy(), NullEvents())
    ledger.events = told
    queue = [Job("b/two", "web", 1.0), Job("a", "web", 1.0), Job("b/three", "web", 1.0)]
    ledger.stop(WHY, {"b/two", "b/three"}, queue)
    assert [j.case_id for j in queue] == ["a"]
    assert told.finished == [("b/two", "skipped", WHY), ("b/three", "skipped", WHY)]
    assert (ledger.stopped("b/two"), ledger.stopped("a")) == (WHY, None)
    ledger.stop("not run: --maxfail 1 reached", None, queue)       # the run's own stop after
    assert queue == [] and ledger.stopped("c") == "not run: --maxfail 1 reached"
    assert ledger.stopped("b/three") == WHY


def _settings_line(batches: list[Batch], picked: list[str], maxfail: int | None = None):
    import io

    from farm.config import Settings
    from farm.select import Choice
    from farm.session import _batch_settings
    out = io.StringIO()
    _, choice, _ = _batch_settings(batches, [_case(c) for c in picked], "browser:2",
                                   Choice(maxfail=maxfail), Settings(), out)
    return choice.maxfail, [line for line in out.getvalue().splitlines() if "concurrent" in line]


def test_beside_other_cases_the_batch_line_says_its_files_stop_not_the_run():
    maxfail, lines = _settings_line([_batch(["b/one", "b/two"])], ["a", "b/one", "b/two"])
    assert maxfail is None
    assert lines == ["farm: s/b/index.yaml: concurrent 1: its files one at a time, in its "
                     "order, continueOnError false: none of its files starts after one of "
                     "them failed (the run's other cases go on)"]


def test_the_batch_alone_is_the_run_and_stops_it():
    maxfail, lines = _settings_line([_batch(["b/one", "b/two"])], ["b/one", "b/two"])
    assert maxfail == 1
    assert lines == ["farm: s/b/index.yaml: concurrent 1 (--devices browser:1), "
                     "continueOnError false: no file starts after a failure"]


def test_two_batches_alone_each_stop_their_own_files():
    other = Batch(file="s/c/index.yaml", case_ids=["c/one"], unit_id="s/c/index")
    maxfail, lines = _settings_line([_batch(["b/one", "b/two"]), other],
                                    ["b/one", "b/two", "c/one"])
    assert maxfail is None
    assert all(line.endswith("(the run's other cases go on)") for line in lines), lines
