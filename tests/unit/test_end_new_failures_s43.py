"""The console's end of a run told a new failure from one that failed the night before only in
the report: four FAILED lines alike, "4 failed". A lead reading the CI log wants the new one
first and marked, and the tally to say how many are new (the results history's verdict)."""

from __future__ import annotations

from pathlib import Path

from farm.results import CaseError
from tests.unit.test_end_skips_s43 import _case, _end


def _failed(cid: str, since: str | None) -> object:
    case = _case(cid, "failed", error=CaseError(kind="StepFailed", message="boom", step=1))
    case.since_last = since
    return case


def test_a_new_failure_comes_first_marked_and_counted(tmp_path: Path):
    lines = _end(_failed("old1", "still failing"), _failed("old2", "still failing"),
                 _failed("fresh", "new failure"), _case("ok", "passed"), tmp_path=tmp_path)
    assert lines == ["FAILED s/fresh (s/fresh.yaml:3) — step 1: boom [new failure]",
                     "FAILED s/old1 (s/old1.yaml:3) — step 1: boom [still failing]",
                     "FAILED s/old2 (s/old2.yaml:3) — step 1: boom [still failing]",
                     "farm: 1 passed, 3 failed (1 new) in 7.7s (run r1)"]


def test_without_history_nothing_is_called_new(tmp_path: Path):
    lines = _end(_failed("a", None), tmp_path=tmp_path)
    assert lines[-1] == "farm: 1 failed in 7.7s (run r1)"
    assert "new" not in lines[0]
