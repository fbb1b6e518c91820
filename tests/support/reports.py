"""A run of 500 cases (12 steps of two screenshots each, every status, a 300-character error
on each failed case) as report-size tests build it."""

from __future__ import annotations

from farm.results import CaseError, CaseResult, RunSummary, StepRecord


def five_hundred_cases() -> RunSummary:
    cases = []
    for i in range(500):
        status = ["passed", "failed", "error", "flaky", "skipped"][i % 5]
        folder = f"artifacts/suite-case-{i:03d}/attempt-1"
        steps = [StepRecord(task=f"task {t}", index=t * 4 + k + 1, kind="aiTap",
                            label=f'aiTap "button number {k} of case {i}"', line=20 + k,
                            duration=0.4, tier="xpath",
                            before=f"{folder}/step-{t}-{k}-before.jpg",
                            after=f"{folder}/step-{t}-{k}-after.jpg")
                 for t in range(3) for k in range(4)]
        error = CaseError(kind="AssertionFailed", message="x" * 300) if status == "failed" \
            else None
        cases.append(CaseResult(run_id="big", case_id=f"suite/case-{i:03d}", name=f"Case {i}",
                                file=f"suites/suite/case-{i:03d}.yaml", platform="web",
                                device=f"browser-{i % 8}", status=status, steps=steps,
                                error=error, screenshot="artifacts/x.jpg" if error else None))
    return RunSummary(run_id="big", started="", cases=cases)
