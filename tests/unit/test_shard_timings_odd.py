"""--shard-timings from a file whose times are not numbers of seconds (NaN, inf: what
Python's json writes for them, or a JUnit time="NaN"): refused naming the file and the case.
They were taken, and every case of the run landed in shard 1 while the other jobs ran none."""

from __future__ import annotations

import json

import pytest

from farm.errors import ConfigError
from farm.select import read_timings


@pytest.mark.parametrize("duration", [float("nan"), float("inf")])
def test_a_results_json_with_a_non_finite_duration_is_refused(tmp_path, duration):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"cases": [{"case_id": "s/a", "duration": 3.0},
                                          {"case_id": "s/b", "duration": duration}]}))
    with pytest.raises(ConfigError, match=r"results.json: case s/b took (nan|inf) seconds"):
        read_timings(path)


def test_a_junit_time_of_nan_is_refused(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text('<testsuite><testcase classname="s" name="a" time="1.5"/>'
                    '<testcase classname="s" name="b" time="NaN"/></testsuite>')
    with pytest.raises(ConfigError, match=r"junit.xml: case s/b took nan seconds"):
        read_timings(path)


def test_ordinary_times_are_read(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text('<testsuite><testcase classname="s" name="a" time="1.5"/></testsuite>')
    assert read_timings(path) == {"s/a": 1.5}


def test_timings_of_another_suite_say_that_none_of_its_cases_is_in_the_run(tmp_path):
    """'planned on the timings of 0 of 2 case(s) (the rest by their steps)' did not say why
    a file given on purpose was of no use: its ids are another suite's."""
    from pathlib import Path

    from farm.select import SelectOptions, select_cases
    from farm.suite.loader import load_suites
    demo = Path(__file__).resolve().parents[2] / "suites" / "demo"
    cases = [c for s in load_suites([demo], env={}) for c in s.cases if c.platform == "web"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"cases": [{"case_id": "other/x", "duration": 9.0}]}))
    sel = select_cases(cases, SelectOptions(shard=(1, 2), shard_timings=read_timings(path)))
    assert sel.notes == [f"--shard 1/2: planned on the timings of 0 of {len(cases)} case(s) "
                         "(its 1 case id(s) are none of this run's: another suite's file? "
                         "planned on the steps)"]
