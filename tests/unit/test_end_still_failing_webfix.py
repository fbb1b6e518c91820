"""An --lf rerun's end of run marks a case red the run before too "[still failing]", as the
report and results.json say it: before, only "[new failure]" was marked, and a still
failing case's line read as if the console knew nothing of it."""

from __future__ import annotations

from pathlib import Path

from farm.results import CaseError
from tests.unit.test_end_skips_s43 import _case, _end


def _failed(cid: str, since: str | None) -> object:
    case = _case(cid, "failed", error=CaseError(kind="StepFailed", message="boom", step=1))
    case.since_last = since
    return case


def test_each_failed_line_says_the_histories_verdict(tmp_path: Path) -> None:
    lines = _end(_failed("old", "still failing"), _failed("fresh", "new failure"),
                 _failed("wobbly", "flaky"), _failed("unknown", None), tmp_path=tmp_path)
    assert lines[:4] == ["FAILED s/fresh (s/fresh.yaml:3) — step 1: boom [new failure]",
                         "FAILED s/old (s/old.yaml:3) — step 1: boom [still failing]",
                         "FAILED s/wobbly (s/wobbly.yaml:3) — step 1: boom [unstable across runs]",
                         "FAILED s/unknown (s/unknown.yaml:3) — step 1: boom"]
