"""farm.log tells a run's story after the fact (its console, a CI log or a closed terminal,
is often gone): each case's start and end with its device, attempt, failing step (file:line)
and error, secrets masked; a queued case a stop left unrun is not listed."""

from __future__ import annotations

from farm.executors.base import NullEvents
from farm.results import CaseError, CaseResult, StepRecord
from farm.run_log import CaseLog, drop_handler, setup_logging


def _result(cid: str, status: str, duration: float, **kw) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status=status, duration=duration, **kw)


def test_farm_log_has_each_case_start_and_end_with_its_step_and_error_masked(tmp_path):
    handler = setup_logging(tmp_path, lambda text: text.replace("hunter2", "${TOKEN}"))
    try:
        events = CaseLog(NullEvents())
        events.case_started("browser-2", "shop/pay", "Pay", 1)
        step = StepRecord(task="t", index=4, kind="assertText", label='assertText "${TOKEN}"',
                          line=12, status="failed")
        events.case_finished("browser-2", _result(
            "shop/pay", "failed", 3.25, steps=[step], screenshot="artifacts/pay/4.jpg",
            error=CaseError(kind="AssertionFailed", step=4,
                            message='expected text "hunter2" is not on screen')), final=False)
        events.case_finished("-", _result("shop/later", "skipped", 0.0,
                                          reason="not run: the run was interrupted"), True)
    finally:
        drop_handler(handler)
    logged = (tmp_path / "farm.log").read_text()
    assert "INFO farm.cases: [browser-2] start shop/pay (attempt 1)" in logged
    assert ('WARNING farm.cases: [browser-2] RETRY (failed) shop/pay (attempt 1) in 3.2s '
            'at step 4 assertText "${TOKEN}" (shop/pay.yaml:12): AssertionFailed: expected text '
            '"${TOKEN}" is not on screen; screenshot artifacts/pay/4.jpg') in logged
    assert "hunter2" not in logged and "shop/later" not in logged


def test_a_passed_case_s_end_names_no_step_and_an_interrupted_one_the_step_it_was_in():
    """A passed case's line said "PASSED s/ok ... at step 10 assertText ...", which reads as
    where it failed; an interrupted case's line names the step it was in."""
    from farm.run_log import ended_line
    done = StepRecord(task="t", index=10, kind="assertText", label='assertText "Cart (1)"',
                      line=30, status="passed")
    passed = ended_line("iphone-1", _result("s/ok", "passed", 4.5, steps=[done]), True)
    assert passed == "[iphone-1] PASSED s/ok (attempt 1) in 4.5s (s/ok.yaml)"
    held = StepRecord(task="t", index=3, kind="sleep", label="sleep 60000", line=9,
                      status="interrupted")
    cut = ended_line("browser-1", _result("s/cut", "interrupted", 2.0, steps=[done, held]), True)
    assert cut.startswith("[browser-1] INTERRUPTED s/cut (attempt 1) in 2.0s at step 3 sleep "
                          "60000 (s/cut.yaml:9)"), cut
