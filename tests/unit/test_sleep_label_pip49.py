"""A sleep step was shown `sleep "1500"` (quoted, no unit) in progress and farm.log while its
timeout said `during sleep 140000 ms`: its label is `sleep 1500 ms` now."""

from __future__ import annotations

from farm.suite.model import Step


def test_a_sleep_step_says_its_unit_pip49():
    assert Step(kind="sleep", value="1500", line=3).label == "sleep 1500 ms"
    assert Step(kind="aiTap", target="Pay", line=4).label == 'aiTap "Pay"'
