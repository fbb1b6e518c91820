"""A `concurrent: 1` batch of web and android files runs one file at a time, in its order: the
android file started on the phone while the web file before it was still running in the
browser (each platform's device saw no earlier file of the sequence *queued*). `pick_job` now
also holds a sequence back while one of its jobs is ``running``."""

from __future__ import annotations

from farm.schedule import Job, pick_job

WEB = Job(case_id="b/a_web", platform="web", expected_seconds=2, sequence="b/index.yaml",
          place=0)
PHONE = Job(case_id="b/b_phone", platform="android", expected_seconds=1,
            sequence="b/index.yaml", place=1)
OTHER = Job(case_id="b/alone", platform="android", expected_seconds=1)


def test_the_next_file_waits_while_the_one_before_runs_on_another_platform():
    assert pick_job([PHONE], "android-1", "android", 0, running=[WEB]) is None
    assert pick_job([PHONE, OTHER], "android-1", "android", 0, running=[WEB]) == 1
    assert pick_job([PHONE], "android-1", "android", 0, running=[]) == 0
    assert pick_job([PHONE], "android-1", "android", 0, running=[OTHER]) == 0
