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
