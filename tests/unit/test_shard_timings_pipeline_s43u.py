"""--shard-timings in a sharded CI pipeline: the previous pipeline left one JUnit file (or run
directory) per shard job. Only one file was taken (a second --shard-timings silently replaced
the first: "planned on the timings of 5 of 13 case(s)"), a folder of them failed ("…/results.json:
cannot read it", exit 4), and a killed pipeline's leftovers failed every job with exit 4: the
empty placeholder JUnit ("no case timings in it") and a run directory holding only its journal.
Now every file given, or under a folder given, is read, a case weighing its newest time; a file
without timings is a warning; a path that does not exist is still the flag's error (a typo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.executors.base import NullEvents
from farm.journal import JournalEvents
from farm.report.junit import write_junit
from farm.results import CaseResult, RunSummary
from farm.select import SelectOptions, read_timings, select_cases
from farm.suite.loader import load_suites
from tests.support.farm_cli import run_main

CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - sleep: 5\n"
NAMES = ("a", "b", "c", "d", "e", "f")
# the previous pipeline: job i ran two cases, its run starting a few seconds after job i-1's
JOBS = {1: {"a": 40.0, "b": 3.0}, 2: {"c": 30.0, "d": 4.0}, 3: {"e": 20.0, "f": 5.0}}


def _run(run_id: str, started: str, seconds: dict[str, float]) -> RunSummary:
    summary = RunSummary(run_id=run_id, started=started, cases=[
        CaseResult(run_id=run_id, case_id=f"s/{n}", name=n, file=f"s/{n}.yaml", platform="web",
                   device="browser-1", status="passed", duration=secs)
        for n, secs in seconds.items()])
    summary.recount()
    return summary


@pytest.fixture
def pipeline(tmp_path: Path) -> tuple[Path, list]:
    """The suite, and timings/junit-1.xml .. junit-3.xml as the three jobs' artifacts."""
    (tmp_path / "s").mkdir()
    for name in NAMES:
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE)
    cases = [c for suite in load_suites([tmp_path / "s"], dotenv=None) for c in suite.cases]
    (tmp_path / "timings").mkdir()
    for job, seconds in JOBS.items():
        write_junit(_run(f"r{job}", f"2020-12-06T14:43:{10 + job:02d}+00:00", seconds),
                    tmp_path / "timings" / f"junit-{job}.xml")
    return tmp_path, cases


def _shards(cases: list, timings) -> list[list[str]]:
    return [sorted(c.id for c in select_cases(cases, SelectOptions(
        shard=(i, 3), shard_timings=timings)).selected) for i in (1, 2, 3)]


def test_a_folder_of_the_shard_jobs_junit_files_times_every_case(pipeline):
    here, cases = pipeline
    files = sorted((here / "timings").iterdir())
    from_folder, named = read_timings(here / "timings"), read_timings(files)
    want = {f"s/{n}": secs for seconds in JOBS.values() for n, secs in seconds.items()}
    assert from_folder == named == pytest.approx(want)
    sel = select_cases(cases, SelectOptions(shard=(1, 3), shard_timings=from_folder))
    assert sel.notes == ["--shard 1/3: planned on the timings of 6 of 6 case(s), from 3 files "
                         "(each case's newest time)"]
    # every job, given the same files, computes the same plan: each case runs exactly once
    shards = _shards(cases, from_folder)
    assert sorted(sum(shards, [])) == sorted(want) and _shards(cases, named) == shards
    assert shards == [["s/a"], ["s/c"], ["s/b", "s/d", "s/e", "s/f"]]   # 40 | 30 | 32 s


def test_a_case_timed_in_two_runs_weighs_its_newest_time_whatever_the_order(pipeline):
    here, _ = pipeline
    rerun = here / "rerun.xml"          # a later pipeline's job that ran "a" in 9 s
    write_junit(_run("r9", "2020-12-07T09:00:00+01:00", {"a": 9.0}), rerun)
    older = here / "timings" / "junit-1.xml"
    assert read_timings([rerun, older])["s/a"] == read_timings([older, rerun])["s/a"] == 9.0


def test_a_killed_pipelines_leftovers_are_warnings_not_failed_jobs(pipeline):
    """The placeholder JUnit of a run that selected nothing, one of a run that never finished,
    and a run directory with only its journal: each said, none fails the job (exit 4)."""
    here, cases = pipeline
    left = here / "timings"
    write_junit(_run("r0", "2020-12-06T14:40:00+00:00", {}), left / "empty-7292.xml")
    (left / "notfinished.xml").write_text(
        '<testsuites name="farm run x" tests="1"><testsuite name="farm" tests="1"><testcase '
        'name="run" classname="farm" time="0.0"><error message="m" type="RunNotFinished">x'
        '</error></testcase></testsuite></testsuites>')
    (left / "killed").mkdir()
    journal = JournalEvents(NullEvents(), left / "killed", "r4", [
        ("s/a", "a", "s/a.yaml", "web"), ("s/b", "b", "s/b.yaml", "web")])
    journal.case_finished("browser-1", _run("r4", "", {"a": 7.0}).cases[0], final=True)
    timings = read_timings(left)        # (the journal's run is the newest: a's 7 s, not 40 s)
    assert timings == pytest.approx({**{f"s/{n}": s for j in JOBS.values() for n, s in j.items()},
                                     "s/a": 7.0})
    assert timings.notes == [
        f"warning: --shard-timings {left / 'empty-7292.xml'}: no case timings in it (no case "
        "of it ran to its end): planned without it",
        f"warning: --shard-timings {left / 'notfinished.xml'}: no case timings in it (no case "
        "of it ran to its end): planned without it",
        f"--shard-timings {left / 'killed'}: no results.json in it (a killed run?): its timings "
        "read from its journal (results.jsonl)"]
    sel = select_cases(cases, SelectOptions(shard=(2, 3), shard_timings=timings))
    assert sel.notes[:3] == timings.notes and sel.selected


def test_only_leftovers_plan_on_the_steps_and_say_so(tmp_path, pipeline):
    _, cases = pipeline
    placeholder = write_junit(_run("r0", "", {}), tmp_path / "empty.xml")
    (tmp_path / "nothing").mkdir()
    timings = read_timings([placeholder, tmp_path / "nothing"])
    sel = select_cases(cases, SelectOptions(shard=(1, 3), shard_timings=timings))
    assert sel.notes == [
        f"warning: --shard-timings {placeholder}: no case timings in it (no case of it ran to "
        "its end): planned without it",
        f"warning: --shard-timings {tmp_path / 'nothing'}: no results.json, run directory or "
        "JUnit XML (*.xml) in it: planned without it",
        "--shard 1/3: planned on the timings of 0 of 6 case(s) (no timings in what was given: "
        "planned on the steps)"]
    assert _shards(cases, timings) == _shards(cases, None)


def test_a_path_that_does_not_exist_is_still_the_flags_error(pipeline):
    here, _ = pipeline
    with pytest.raises(ConfigError, match=r"^--shard-timings .*timing/junit-1.xml: cannot read "
                                          r"it \(No such file or directory\)$"):
        read_timings([here / "timings" / "junit-2.xml", here / "timing" / "junit-1.xml"])


def test_farm_run_takes_the_flag_once_per_file(pipeline, monkeypatch, capsys):
    here, _ = pipeline
    monkeypatch.chdir(here)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only", "--shard",
                              "1/3", "--shard-timings", "timings/junit-1.xml",
                              "--shard-timings", "timings/junit-2.xml", "--shard-timings",
                              "timings/junit-3.xml")
    assert code == 0 and out.startswith("s/a  [web]"), out
    assert err.startswith("farm: --shard 1/3: planned on the timings of 6 of 6 case(s), from 3 "
                          "files (each case's newest time)\nfarm: 1 case(s) collected"), err


def test_a_shard_past_the_cases_says_so_instead_of_no_case_selected(pipeline, monkeypatch,
                                                                       capsys):
    """A CI matrix of 20 jobs over 6 cases: jobs 7..20 have nothing to do, and nothing is
    wrong; a -k that matched nothing is still "no case selected"."""
    here, cases = pipeline
    sel = select_cases(cases, SelectOptions(shard=(14, 20)))
    assert (sel.selected, sel.empty_shard) == ([], True)
    assert sel.notes == ["shard 14/20 has no case: 6 case(s) over 20 shards"]
    assert select_cases(cases, SelectOptions(shard=(6, 20))).selected   # one each up to 6
    none = select_cases(cases, SelectOptions(keyword="nosuch", shard=(14, 20)))
    assert not none.empty_shard
    assert none.notes == ["no case selected: 6 deselected by -k nosuch"]
    monkeypatch.chdir(here)
    _, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only", "--shard",
                           "14/20")
    assert out == "" and err.startswith(
        "farm: shard 14/20 has no case: 6 case(s) over 20 shards\n"), err


def test_a_results_json_and_its_journal_give_the_same_timings(tmp_path):
    """`farm report` rebuilds a killed run from its journal; --shard-timings reads the same."""
    (tmp_path / "run").mkdir()
    journal = JournalEvents(NullEvents(), tmp_path / "run", "r5", [
        ("s/a", "a", "s/a.yaml", "web"), ("s/b", "b", "s/b.yaml", "web")])
    for case in _run("r5", "", {"a": 2.5, "b": 6.0}).cases:
        journal.case_finished("browser-1", case, final=True)
    from_journal = read_timings(tmp_path / "run")
    (tmp_path / "run" / "results.json").write_text(json.dumps(
        {"started": "2026-12-06T10:00:00+00:00",
         "cases": [c.model_dump() for c in _run("r5", "", {"a": 2.5, "b": 6.0}).cases]}))
    assert from_journal == read_timings(tmp_path / "run") == {"s/a": 2.5, "s/b": 6.0}
