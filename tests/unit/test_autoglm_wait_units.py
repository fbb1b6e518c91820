"""AutoGLM's Wait in the unit the model wrote: `do(action="Wait", duration="1 hour")` was a
1 s wait (any unit but ms / minutes read as seconds), "2分钟" (AutoGLM's own Chinese) 2 s,
"1 minute 30 seconds" 60 s; a duration of 400 digits ended the step in an OverflowError."""

from __future__ import annotations

import pytest

from farm.llm.parse_autoglm import parse_autoglm
from farm.llm.reply import PlannedAction


def _waits(duration: str) -> int:
    plan = parse_autoglm(f'<think>the page loads</think><answer>do(action="Wait", '
                         f'duration="{duration}")</answer>')
    [action] = plan.actions
    assert action.type == "Sleep"
    return action.params["timeMs"]


@pytest.mark.parametrize("duration, ms", [
    ("2 seconds", 2_000), ("3", 3_000), ("0.5s", 500), ("500 ms", 500), ("30 sec", 30_000),
    ("1 minute", 60_000), ("2 Minutes", 120_000), ("1.5 minutes", 90_000), ("3 min", 180_000),
    ("1 hour", 3_600_000), ("2 hours", 7_200_000), ("1h", 3_600_000), ("1 hr", 3_600_000),
    ("1 minute 30 seconds", 90_000), ("1h30m", 5_400_000), ("2 mins 30 secs", 150_000),
    ("5秒", 5_000), ("2分钟", 120_000), ("2分钟后", 120_000), ("1小时", 3_600_000),
    ("1个小时", 3_600_000), ("1分30秒", 90_000),
    ("a minute", 60_000), ("an hour", 3_600_000), ("x seconds", 1_000), ("soon", 1_000),
    ("2 to 3 seconds", 2_000), ("2-3 minutes", 120_000), ("-5 seconds", 0),
])
def test_a_wait_lasts_what_the_model_said(duration, ms):
    assert _waits(duration) == ms


def test_a_wait_too_long_to_count_is_a_day_not_a_crash():
    assert _waits("9" * 400 + " seconds") == 86_400_000


def test_a_wait_without_duration_is_a_second():
    plan = parse_autoglm('<answer>do(action="Wait")</answer>')
    assert plan.actions == [PlannedAction(type="Sleep", params={"timeMs": 1000})]
