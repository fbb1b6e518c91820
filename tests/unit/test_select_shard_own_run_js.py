"""--shard-timings given each CI job's own earlier shard run (a cache keyed per shard): the
jobs planned on different times, so cases ran on two shards or on none, every job exiting 0.
Such timings are refused; all shards' runs, or a full run, are taken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.select import SelectOptions, read_timings, select_cases
from farm.suite.model import Case, Step, Task, WebTarget


def _case(cid: str, steps: int = 1) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")] * steps)])


CASES = [_case(f"c{i:02}", 1 + i % 3) for i in range(12)]


def _results(folder: Path, ran: list[str], started: str, deselected: dict[str, str] = {},
             shard: str | None = None) -> Path:
    folder.mkdir(parents=True)
    data = {"run_id": folder.name, "started": started,
            "cases": [{"case_id": c, "status": "passed", "duration": 5.0 + len(c) * i}
                      for i, c in enumerate(ran)],
            "deselected": [{"case_id": c, "reason": r} for c, r in deselected.items()]}
    if shard:
        data["shard"] = shard
    (folder / "results.json").write_text(json.dumps(data))
    return folder


def _shard_runs(root: Path, total: int = 3) -> dict[int, Path]:
    """Each shard's earlier run, as farm wrote them (its others "--shard: in shard J/N")."""
    plan = {c.id: i for i in range(1, total + 1) for c in select_cases(
        CASES, SelectOptions(shard=(i, total))).selected}
    return {i: _results(root / f"run{i}", [c for c, s in plan.items() if s == i],
                        f"2026-12-0{i}T00:00:00+00:00",
                        {c: f"--shard: in shard {s}/{total}" for c, s in plan.items() if s != i})
            for i in range(1, total + 1)}


def _plan(timings_from, index: int, total: int = 3) -> list[str]:
    return [c.id for c in select_cases(CASES, SelectOptions(
        shard=(index, total), shard_timings=read_timings(timings_from))).selected]


def test_a_jobs_own_shard_run_is_refused_naming_the_shard(tmp_path):
    runs = _shard_runs(tmp_path)
    with pytest.raises(ConfigError) as err:
        _plan(runs[2], 2)
    assert str(err.value) == (f"--shard-timings {runs[2] / 'results.json'} is shard 2/3's "
                              "run: every job must get the same timings (all shards' files, "
                              "or one full run)")


def test_a_shard_run_that_says_its_shard_is_refused_too(tmp_path):
    run = _results(tmp_path / "r", ["c01"], "2026-12-01T00:00:00+00:00", shard="1/2")
    with pytest.raises(ConfigError, match=r"is shard 1/2's run"):
        _plan(run, 1)


def test_every_shards_run_together_plans_one_split(tmp_path):
    _shard_runs(tmp_path)
    plans = [_plan(tmp_path, i) for i in (1, 2, 3)]
    ran = [c for plan in plans for c in plan]
    assert sorted(ran) == sorted(c.id for c in CASES)      # each once, none left out


def test_a_full_run_newer_than_a_shard_run_is_taken(tmp_path):
    runs = _shard_runs(tmp_path)
    _results(tmp_path / "full", [c.id for c in CASES], "2026-12-09T00:00:00+00:00")
    assert _plan([runs[1], tmp_path / "full"], 1)


def test_a_full_run_older_than_a_shard_run_still_refuses_it(tmp_path):
    runs = _shard_runs(tmp_path)
    full = _results(tmp_path / "full", [c.id for c in CASES], "2026-11-01T00:00:00+00:00")
    with pytest.raises(ConfigError, match=r"is shard 3/3's run"):
        _plan([full, runs[3]], 3)
