"""A case that times out every other night is flaky on the history page: its run's report and
the page's newest-run table called it flaky, and the flaky ranking left it out (it counted only
failed runs as red). Its device's errors still say nothing of it."""

from __future__ import annotations

import re
from pathlib import Path

from farm.report.history_page import render_history
from farm.report.trends import analyse
from farm.results_history import CaseRecord, RunRecord

TIMEOUT = "CaseTimeout: case timed out after 3s during waitForText Welcome back"
LOST = "DeviceLost: adb: device offline"


def night(day: int, **cases: tuple[str, str | None]) -> RunRecord:
    return RunRecord(run_id=f"r{day}", started=f"2026-01-{day:02d}T02:00:00+00:00",
                     at=float(day), cases=[
                         CaseRecord(case_id=f"nightly/{name}", status=status, duration=3.0,
                                    device="browser-1", error=error)
                         for name, (status, error) in cases.items()])


PASS, HANG, BROKE = ("passed", None), ("error", TIMEOUT), ("error", LOST)


def test_a_case_that_times_out_every_other_night_is_in_the_flaky_ranking(tmp_path: Path):
    runs = [night(1, hang=PASS, phone=PASS), night(2, hang=HANG, phone=BROKE),
            night(3, hang=PASS, phone=PASS), night(4, hang=HANG, phone=BROKE),
            night(5, hang=PASS, phone=PASS), night(6, hang=HANG, phone=PASS)]
    t = analyse(runs)
    assert [(c.case_id, c.verdict) for c in t.latest] == [("nightly/hang", "unstable")]
    ranked = {f.case_id: f for f in t.flaky}
    assert list(ranked) == ["nightly/hang"]         # not the case whose device broke
    hang = ranked["nightly/hang"]
    assert (hang.runs, hang.fails, hang.flaky, hang.flips) == (6, 3, 0, 5)
    assert (hang.last_fail_run, hang.last_error) == ("r6", TIMEOUT)
    html = render_history(runs, tmp_path)
    flaky = html[html.index('id="flaky"'):]
    assert re.findall(r'<tr data-case="([^"]+)">', flaky.split("</table>")[0]) == [
        "nightly/hang"]
