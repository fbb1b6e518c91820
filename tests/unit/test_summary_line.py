"""The run's last console line says what the model cost, every attempt counted, as the report
header does; a run without a model call says nothing of models."""

from __future__ import annotations

from farm.results import CaseResult, RunSummary
from farm.run_console import summary_line
from farm.usage import Usage


def _case(cid: str, status: str, usage: Usage | None, previous=()) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      status=status, usage=usage, previous=list(previous))


def test_the_summary_line_counts_the_model_spend_of_every_attempt():
    first = _case("s/ai", "failed", Usage(prompt_tokens=1000, completion_tokens=50,
                                          cost_usd=0.01, calls=2))
    cases = [_case("s/ai", "flaky", Usage(prompt_tokens=2000, completion_tokens=100,
                                          cost_usd=0.02, calls=4), previous=[first]),
             _case("s/plain", "passed", None)]
    summary = RunSummary(run_id="r1", started="", duration=12.0, cases=cases)
    summary.recount()
    assert summary_line(summary) == ("farm: 1 passed, 1 flaky in 12.0s; model: 6 call(s), 3,150 "
                                     "tokens, $0.0300 (run r1)")
    free = RunSummary(run_id="r2", started="", duration=1.0, cases=[_case("s/p", "passed", None)])
    free.recount()
    assert summary_line(free) == "farm: 1 passed in 1.0s (run r2)"


def test_a_long_error_on_the_console_is_cut_at_a_word_never_mid_word():
    """A hint ended "… or choose them with AN" (ANDROID_SERIAL cut at 200 characters). One
    longer than the end line's limit keeps its start and its end, each cut at a word."""
    from farm.results import CaseError
    from farm.run_console import FAILURE_CHARS, failure_lines
    message = ("the case is pinned to emulator-9999 (Midscene deviceId / wdaHost:wdaPort), "
               "which this run did not take: its android devices are android-sim-1, "
               "android-sim-2, android-sim-3, android-sim-4, android-sim-5, android-sim-6, "
               "android-sim-7, android-sim-8, android-sim-9, android-sim-10, android-sim-11, "
               "android-sim-12, android-sim-13, android-sim-14, android-sim-15; give "
               "--devices android:N for more, or choose them with ANDROID_SERIAL, or drop "
               "the deviceId of the case from its android: section to run it on any phone")
    case = _case("s/pin", "error", None)
    case.error = CaseError(kind="ConfigError", message=message)
    summary = RunSummary(run_id="r1", started="", cases=[case])
    [line] = failure_lines(summary)
    said = line.split(" — ", 1)[1]
    head, tail = said.split(" … ")
    assert len(said) <= FAILURE_CHARS + 1
    assert message.startswith(head) and message[len(head)] in " ,;"
    assert message.endswith(" " + tail)
    assert "with ANDROID_SERIAL" in said        # the hint a 200-character cut split
    short = _case("s/short", "failed", None)
    short.error = CaseError(kind="AssertionFailed", message="text 'Welcome' not found")
    assert failure_lines(RunSummary(run_id="r1", started="", cases=[short])) == [
        "FAILED s/short (s/short.yaml) — text 'Welcome' not found"]
