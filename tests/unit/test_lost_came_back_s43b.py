"""A device lost mid-run that came back and ran more cases (a cluster worker its supervisor
started again) read "lost: browser-1@vm" in the summary line, as if it had been gone since;
results.json said "it came back later in the run". The summary line now says so too. A device
that never came back (a local phone that could not restart) reads as before."""

from __future__ import annotations

from farm.results import CaseResult, RunSummary
from farm.run_console import summary_line

LOST = "its worker stopped answering mid-case (longweb/slow1 attempt 1, a new process took " \
       "the device over)"


def _summary(lost: dict[str, str]) -> RunSummary:
    cases = [CaseResult(run_id="r1", case_id=f"longweb/slow{i}", name=f"slow{i}",
                        file=f"longweb/slow{i}.yaml", platform="web", status="passed",
                        device="browser-1@vm" if i % 2 else "browser-2@vm")
             for i in range(1, 9)]
    summary = RunSummary(run_id="r1", started="", duration=47.1, cases=cases, lost=lost)
    summary.recount()
    return summary


def test_a_device_that_came_back_says_so_in_the_summary_line():
    line = summary_line(_summary({"browser-1@vm": f"{LOST}; it came back later in the run",
                                  "emulator-5554": "could not restart: emulator-5554 lost"}))
    assert line == ("farm: 8 passed in 47.1s; lost: browser-1@vm (came back), emulator-5554 "
                    "(run r1)")


def test_a_device_lost_again_after_it_came_back_is_lost():
    again = f"{LOST}; it came back later in the run; then its worker stopped answering mid-case"
    assert summary_line(_summary({"browser-1@vm": again})) == (
        "farm: 8 passed in 47.1s; lost: browser-1@vm (run r1)")
