"""Five nights of a nightly split by ``farm run --shard I/3`` into 3 CI jobs, one results
history: the history page had 15 "partial" runs off the pass-rate line, its "what changed"
was the last shard's alone, and a case failing every night in shard 3 was nowhere but
"Slowest cases". The shards of one sharded run are one run now: joined by the run group
each recorded (FARM_RUN_GROUP, the CI's run id), else by their start times."""

from __future__ import annotations

from pathlib import Path

from farm.report.trends import SHARD_WINDOW, analyse, fold_shards
from farm.results import CaseError, CaseResult, DeselectedCase, RunSummary, run_group_from_env
from farm.results_history import SqliteResults, record_for, since_last

P, F = "passed", "failed"
SHARDS = {1: ["app/a1", "app/a2", "app/a3"], 2: ["app/b1", "app/b2", "app/b3"],
          3: ["app/c1", "app/c2", "app/c3"]}
RED = {    # night → the cases red that night (app/c3, in shard 3, red every night)
    1: {"app/c3"}, 2: {"app/c3", "app/b2"}, 3: {"app/c3"}, 4: {"app/c3"},
    5: {"app/c3", "app/a2"}}
GROUPS = {1: "9001-1", 2: "9002-1", 3: "9003-1", 4: "9004-1", 5: None}   # night 5 by hand
MISSING = {4: 3}    # night 4's shard 3 job died before writing anything
ORDER = (3, 1, 2)   # the jobs' start order each night: shard 1/3 ends last


def _started(night: int, minute: int) -> str:
    return f"2026-12-{night:02d}T02:{minute:02d}:00+00:00"


def _shard(night: int, index: int, minute: int) -> RunSummary:
    run_id = f"n{night}-s{index}"
    cases = [CaseResult(run_id=run_id, case_id=c, name=c, file=f"{c}.yaml", platform="web",
                        device="browser-1", status=F if c in RED[night] else P,
                        duration=60.0, started=_started(night, minute),
                        error=CaseError(kind="AssertionFailed", message=f"{c} broke", step=1)
                        if c in RED[night] else None)
             for c in SHARDS[index]]
    others = [DeselectedCase(case_id=c, name=c, file=f"{c}.yaml", platform="web",
                             reason=f"--shard: in shard {j}/3")
              for j, ids in SHARDS.items() if j != index for c in ids]
    summary = RunSummary(run_id=run_id, started=_started(night, minute), duration=180.0,
                         cases=cases, deselected=others, shard=f"{index}/3",
                         run_group=GROUPS[night], device_info={"browser-1": "chromium"})
    summary.recount()
    return summary


def _nights(tmp_path: Path, nights: range = range(1, 6)) -> SqliteResults:
    store = SqliteResults(tmp_path / "results.sqlite")
    for night in nights:
        for minute, index in enumerate(ORDER):
            if MISSING.get(night) == index:
                continue
            summary = _shard(night, index, minute * 10)
            record = record_for(summary, tmp_path / summary.run_id / "report.html")
            if GROUPS[night] is None:   # a farm from before run groups and results' shard
                record = record.model_copy(update={"shard": None, "run_group": None})
            store.add(record)
    return store


def test_five_sharded_nights_are_five_runs_on_the_line_hist50(tmp_path: Path) -> None:
    trends = analyse(_nights(tmp_path).runs())
    assert len(trends.rows) == 5
    assert [r.run.run_id for r in trends.rows] == ["9001-1", "9002-1", "9003-1", "9004-1",
                                                   "n5-s3"]
    assert [r.partial for r in trends.rows] == [False, False, False, True, False]
    assert trends.rows[3].missing == ["3/3"]
    assert [(r.passed, r.finished) for r in trends.rows] == [(8, 9), (7, 9), (8, 9), (6, 6),
                                                             (7, 9)]
    assert [[s.run_id for s in r.run.shards] for r in trends.rows][:2] == [
        ["n1-s1", "n1-s2", "n1-s3"], ["n2-s1", "n2-s2", "n2-s3"]]
    night = trends.rows[0].run      # started with shard 3 at 02:00, shard 2 ended 02:23
    assert night.started == _started(1, 0) and night.duration == 20 * 60 + 180
    assert night.counts["total"] == 9 and len(night.cases) == 9
    assert trends.rows[1].new == ["app/b2"] and trends.rows[2].fixed == ["app/b2"]


def test_the_newest_nights_changes_span_every_shard_hist50(tmp_path: Path) -> None:
    trends = analyse(_nights(tmp_path).runs())
    said = {c.case_id: (c.verdict, c.run) for c in trends.latest}
    # shard 1/3 ended last with app/a2 red; app/c3 (shard 3) failed every night
    assert said == {"app/a2": ("new failure", "n5-s1"), "app/c3": ("still failing", "n5-s3")}


def test_a_night_with_a_shard_missing_still_folds_its_others_hist50(tmp_path: Path) -> None:
    trends = analyse(_nights(tmp_path, range(4, 5)).runs())
    assert len(trends.rows) == 1 and trends.rows[0].missing == ["3/3"]
    assert sorted(c.case_id for c in trends.rows[0].run.cases) == SHARDS[1] + SHARDS[2]


def test_shards_by_hand_fold_by_time_and_index_hist50(tmp_path: Path) -> None:
    runs = []
    for night in (5, 6):        # two by-hand nights a day apart, same shards
        GROUPS[night], RED[night] = None, set()
        for minute, index in enumerate(ORDER):
            runs.append(record_for(_shard(night, index, minute * 10)))
    folded = fold_shards(runs)
    assert [[s.run_id for s in r.shards] for r in folded] == [
        ["n5-s1", "n5-s2", "n5-s3"], ["n6-s1", "n6-s2", "n6-s3"]]
    again = record_for(_shard(5, 1, 50))      # shard 1 again within the hour: another run
    assert [len(r.shards) or 1 for r in fold_shards([*runs[:3], again])] == [3, 1]
    late = runs[3].model_copy(update={"at": runs[0].at + SHARD_WINDOW + 1})
    assert [len(r.shards) or 1 for r in fold_shards([*runs[:2], late])] == [2, 1]
    del GROUPS[6], RED[6]


def test_since_last_compares_a_case_across_shards_hist50(tmp_path: Path) -> None:
    store = _nights(tmp_path, range(1, 4))
    moved = _shard(4, 1, 0)         # the suite grew: app/c3 runs in shard 1/3 on night 4
    moved.cases.append(_shard(4, 3, 0).cases[2].model_copy(update={"run_id": "n4-s1"}))
    verdicts = since_last(store.runs(), moved)
    assert verdicts == {"app/c3": "still failing"}


def test_the_run_group_is_the_ci_run_hist50() -> None:
    assert run_group_from_env({"GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "2"}) == "77-2"
    assert run_group_from_env({"CI_PIPELINE_ID": "5", "FARM_RUN_GROUP": "nightly-7"}) == \
        "nightly-7"
    assert run_group_from_env({"BUILD_TAG": "jenkins-nightly-12"}) == "jenkins-nightly-12"
    assert run_group_from_env({}) is None
    summary = _shard(1, 2, 0)
    assert "9001-1" in summary.model_dump_json()
    record = record_for(summary)
    assert (record.run_group, record.shard) == ("9001-1", "2/3")


def test_a_killed_shard_rebuilt_without_its_group_joins_its_night_hist50(
        tmp_path: Path) -> None:
    runs = [record_for(_shard(1, index, minute * 10)) for minute, index in enumerate(ORDER)]
    # shard 2/3 was killed; `farm report` rebuilt it from its journal, which has no run group
    runs[2] = runs[2].model_copy(update={"run_group": None, "rebuilt": True})
    folded = fold_shards(runs)
    assert [[s.run_id for s in r.shards] for r in folded] == [["n1-s1", "n1-s2", "n1-s3"]]
    # one that was not rebuilt (a by-hand run near a CI night) is no shard of the CI's run
    runs[2] = runs[2].model_copy(update={"rebuilt": False})
    assert [len(r.shards) or 1 for r in fold_shards(runs)] == [2, 1]
