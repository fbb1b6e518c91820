"""A case cut short by a stop (Ctrl-C, CI's SIGTERM): junit.xml's <error> said only
"interrupted: the run was stopped", where a failure's names its step and line; CI shows that
text, so which step the case was in was only in the step log further down."""

from __future__ import annotations

from farm.report.junit import build_junit
from farm.results import CaseResult, RunSummary, StepRecord


def test_an_interrupted_case_s_error_names_the_step_it_was_in() -> None:
    steps = [StepRecord(task="pay", index=1, kind="aiTap", label='aiTap "Pay"', line=6,
                        status="passed"),
             StepRecord(task="pay", index=2, kind="sleep", label='sleep "20000"', line=7,
                        status="interrupted"),
             StepRecord(task="pay", index=3, kind="assertText", label='assertText "Paid"',
                        line=8, status="skipped")]
    case = CaseResult(run_id="r", case_id="demo/pay", name="Pay", file="demo/pay.yaml",
                      line=7, platform="web", device="browser-1", status="interrupted",
                      reason="interrupted: the run was stopped", steps=steps)
    summary = RunSummary(run_id="r", started="", cases=[case])
    summary.recount()
    xml = build_junit(summary)
    assert ('<error message="interrupted: the run was stopped" type="Interrupted">'
            'Interrupted at step 2, line 7 [pay]: sleep &quot;20000&quot;\n'
            'interrupted: the run was stopped</error>') in xml
