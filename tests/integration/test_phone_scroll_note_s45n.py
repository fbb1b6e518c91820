"""On a phone too, a scroll that moved nothing (the list at its end) passes with a note of its
step (results.json, the report), not only its output; one that moved has none. Real
`farm run` on the simulated phones."""

from __future__ import annotations

import pytest

from tests.integration.test_phone_gestures_s41 import LIST, SCROLLS, _case, _suite
from tests.support.farm_cli import by_name, results

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_phone_scroll_at_the_end_passes_with_a_note(farm, platform):
    cases = {name: _case(platform, SCROLLS[name]) for name in ("at-the-end", "once")}
    suite = _suite(farm, LIST, cases)
    farm.run("run", suite, "--devices", f"{platform}-sim:1", "--report-dir", farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    assert got["at-the-end"]["status"] == "passed", got["at-the-end"]
    to_end, last = got["at-the-end"]["steps"]
    assert not to_end.get("notes"), to_end
    [note] = last["notes"]
    assert note.startswith("nothing scrolled: nothing at (") and "cannot scroll" in note, last
    assert not got["once"]["steps"][0].get("notes"), got["once"]
    assert "cannot scroll" in (farm.tmp / "run" / "report.html").read_text()
