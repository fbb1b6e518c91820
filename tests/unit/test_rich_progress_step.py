"""The terminal's live view names the step a device has finished as such ("after step 8: …"):
while step 9 runs (a 30 s wait, a model call) it read "step 8: …", and a user watching a
stuck case looked at the wrong step."""

from __future__ import annotations

import io

from rich.console import Console

from farm.progress import RichProgress
from farm.results import StepRecord


def test_the_live_view_says_which_step_has_finished():
    view = RichProgress(0, 1)
    view.run_started(["browser-1"], 1)
    view.case_started("browser-1", "demo/logout", "Log out", 1)
    view.step_finished("browser-1", StepRecord(task="t", index=8, kind="javascript",
                                               label="javascript \"location.href = '/'\"",
                                               status="passed"))
    out = io.StringIO()
    Console(file=out, width=160, color_system=None).print(view)
    row = next(line for line in out.getvalue().splitlines() if "browser-1" in line)
    assert "demo/logout" in row and "after step 8: javascript \"location.href = '/'\"" in row


def test_a_multi_line_script_shows_as_its_first_line():
    """A `javascript: |` step's whole script in the row pushed the device's line apart."""
    view = RichProgress(0, 1)
    view.run_started(["browser-1"], 1)
    view.case_started("browser-1", "demo/state", "State", 1)
    view.step_finished("browser-1", StepRecord(task="t", index=3, kind="javascript",
                                               label="javascript \"const n = 3;\nreturn n;\"",
                                               status="passed"))
    out = io.StringIO()
    Console(file=out, width=160, color_system=None).print(view)
    rows = [line for line in out.getvalue().splitlines() if "browser-1" in line]
    assert len(rows) == 1 and "after step 3: javascript \"const n = 3; …" in rows[0], rows
    assert "return n" not in out.getvalue()
