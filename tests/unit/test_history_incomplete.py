"""An attempt its device, the model or farm cut short (device lost, model down, an internal
error) says nothing about how long the case takes: the next run must not schedule the case
by those seconds (Marathon's "incomplete" tests). A case that timed out did hold its device
for its whole timeout: that still counts."""

from __future__ import annotations

from farm.history import DurationHistory
from farm.results import CaseError, CaseResult, final_result
from farm.schedule import Job, expected_duration, order_jobs

DEFAULT = 30.0


def _result(case_id: str, status: str, seconds: float, kind: str | None = None,
            attempt: int = 1) -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=case_id, file="x", platform="web",
                      status=status, duration=seconds, attempt=attempt,
                      error=CaseError(kind=kind, message="...") if kind else None)


def _next_order(history: DurationHistory, ids: list[str]) -> list[str]:
    remembered = history.load()
    return [j.case_id for j in order_jobs(
        Job(cid, "web", expected_duration(remembered, cid, "web", DEFAULT)) for cid in ids)]


def test_a_case_cut_short_by_its_device_or_the_model_keeps_its_unknown_time(tmp_path):
    history = DurationHistory(tmp_path / "state")
    history.record([_result("s/known", "passed", 10.0),
                    _result("s/lost", "error", 2.0, "DeviceLost"),
                    _result("s/model", "error", 1.0, "ModelUnavailable"),
                    _result("s/bug", "error", 1.5, "InternalError")])
    assert history.load() == {"web:s/known": [10.0]}
    # never seen run to an end: expected to take the default, so started before the known
    # 10 s case, not last as a 2 s one
    assert _next_order(history, ["s/known", "s/lost", "s/model", "s/bug"])[-1] == "s/known"


def test_a_timeout_and_an_earlier_attempt_that_ran_to_its_end_still_count(tmp_path):
    history = DurationHistory(tmp_path / "state")
    failed = _result("s/retried", "failed", 50.0)
    lost = _result("s/retried", "error", 2.0, "DeviceLost", attempt=2)
    history.record([_result("s/slow", "error", 90.0, "CaseTimeout"),
                    final_result([failed, lost]),
                    final_result([_result("s/flaky", "failed", 20.0),
                                  _result("s/flaky", "passed", 25.0, attempt=2)])])
    assert history.load() == {"web:s/slow": [90.0], "web:s/retried": [50.0],
                              "web:s/flaky": [25.0]}

