"""`farm report` of a killed run: the case farm was killed in ran at least until the last thing
the journal saw; its duration was 0 ("0 ms" in the report, no bar for its device on the
timeline, as if the device had been idle)."""

from __future__ import annotations

import json

from farm.journal import CUT_SHORT, JOURNAL, recover
from farm.report.timeline import render_timeline
from farm.results import CaseResult

RUN = "20261204-100000-ab12"


def test_the_case_cut_short_lasts_until_the_last_moment_the_journal_saw(tmp_path):
    planned = [{"case_id": f"s/{c}", "name": c, "file": f"s/{c}.yaml", "platform": "web"}
               for c in ("long", "quick")]
    quick = CaseResult(run_id=RUN, case_id="s/quick", name="quick", file="s/quick.yaml",
                       platform="web", device="browser-2", status="passed",
                       started="2026-12-04T10:00:02+00:00", duration=6.5)
    lines = [{"journal": "run", "run_id": RUN, "started": "2026-12-04T10:00:00+00:00",
              "planned": planned},
             {"journal": "start", "case_id": "s/long", "attempt": 1, "device": "browser-1",
              "started": "2026-12-04T10:00:01+00:00"},
             quick.model_dump(mode="json")]
    (tmp_path / JOURNAL).write_text("".join(json.dumps(x) + "\n" for x in lines))
    summary = recover(tmp_path)
    cut = next(c for c in summary.cases if c.case_id == "s/long")
    assert (cut.status, cut.reason, cut.duration) == ("interrupted", CUT_SHORT, 7.5)
    assert summary.duration == 8.5
    assert "s/long: interrupted (attempt 1), 7.5 s" in render_timeline(summary)
