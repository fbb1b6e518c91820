import re
from hypothesis import given, strategies as st
import pytest

from farm.devices.specs import parse_device_specs
from farm.errors import ConfigError
from farm.schedule import Job, enqueue, expected_duration, order_jobs, pick_job


def test_parse_device_specs():
    specs = parse_device_specs("browser:2, android")
    assert [(s.kind, s.count, s.platform) for s in specs] == [
        ("browser", 2, "web"), ("android", 1, "android")]


@pytest.mark.parametrize("bad, phrase", [
    ("browsr:2", "unknown device kind 'browsr' (did you mean 'browser'?)"),
    ("browsers:2", "unknown device kind 'browsers' (did you mean 'browser'?)"),
    ("toaster:1", "unknown device kind 'toaster': expected one of"),
    ("browser:x", "expected KIND[:COUNT]"),
    ("browser:0", "at least 1"),
    ("", "no devices given"),
])
def test_parse_device_specs_errors(bad, phrase):
    with pytest.raises(ConfigError, match=re.escape(phrase)):
        parse_device_specs(bad)


@given(st.lists(st.tuples(st.text(min_size=1, max_size=5), st.floats(0, 1e4)), max_size=30))
def test_order_is_longest_first(items):
    jobs = [Job(cid, "web", secs) for cid, secs in items]
    ordered = order_jobs(jobs)
    assert [j.expected_seconds for j in ordered] == sorted((j.expected_seconds for j in jobs),
                                                           reverse=True)


def test_expected_duration_uses_recent_median_and_default():
    history = {"web:demo/a": [100, 1, 2, 3]}
    assert expected_duration(history, "demo/a", "web", 30) == 2.5
    assert expected_duration(history, "demo/b", "web", 30) == 30
    assert expected_duration(history, "demo/a", "android", 30) == 30


def test_pick_job_avoids_the_device_that_failed_unless_it_is_the_last():
    queue = [Job("retry", "web", 50, attempt=2, avoid_devices=frozenset({"b1"})),
             Job("other", "web", 10), Job("phone", "android", 99)]
    assert pick_job(queue, "b1", "web", other_live_devices=1) == 1
    assert pick_job(queue, "b2", "web", other_live_devices=1) == 0
    assert pick_job(queue[:1], "b1", "web", other_live_devices=1) is None
    assert pick_job(queue[:1], "b1", "web", other_live_devices=0) == 0
    assert pick_job(queue[2:], "b1", "web", other_live_devices=0) is None


@given(st.lists(st.tuples(st.integers(0, 50), st.floats(0, 100)), max_size=30),
       st.tuples(st.integers(0, 50), st.floats(0, 100)))
def test_a_retry_joins_the_queue_where_a_full_sort_would_put_it(queued, retry):
    jobs = [Job(f"c{i}", "web", s) for i, s in queued]
    job = Job(f"c{retry[0]}", "web", retry[1], attempt=2)
    assert enqueue(order_jobs(jobs), job) == order_jobs(jobs + [job])
