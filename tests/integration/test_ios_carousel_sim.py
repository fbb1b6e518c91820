"""A carousel on an iPhone (ios-sim): a card that peeks in at the screen's edge is tapped on the
part that shows (WDA gives its whole frame, whose middle was beside the glass: the tap did
nothing and the step passed), and one further along is brought in by a sideways swipe along the
row (a swipe across the middle of the screen missed a row near its top)."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.session import run

pytestmark = pytest.mark.integration

PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Row</title></head>
<body><h1>Cards</h1><p id="out">none</p>
<div style="display:flex; overflow-x:auto; gap:20px">
<button style="flex:0 0 300px" onclick="out.textContent='One tapped'">One</button>
<button style="flex:0 0 300px" onclick="out.textContent='Two tapped'">Two</button>
<button style="flex:0 0 300px" onclick="out.textContent='Three tapped'">Three</button>
<button style="flex:0 0 300px" onclick="out.textContent='Four tapped'">Four</button>
</div></body></html>
"""

CASE = """name: carousel
ios:
  launch: com.qa.cards
tasks:
  - name: peeking card
    flow:
      - aiTap: Two
      - assertText: Two tapped
  - name: card further along
    flow:
      - aiTap: Four
      - assertText: Four tapped
"""


def test_carousel_cards_are_tapped_where_they_show(tmp_path):
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  cards:\n    serve: app\n"
                                     "    ios: com.qa.cards\n")
    (suite / "carousel.yaml").write_text(CASE)
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "ios-sim:1", settings, progress=False, out=out)
    case = json.loads((tmp_path / "run" / "results.json").read_text())["cases"][0]
    assert code == 0, out.getvalue()
    assert [s["status"] for s in case["steps"]] == ["passed"] * 4
    taps = [s for s in case["steps"] if s["kind"] == "aiTap"]
    width, height = taps[0]["screen"]
    for tap in taps:                                  # on the glass, on the card
        (x, y), = tap["marks"][0]["points"]
        left, top, w, h = tap["rect"]
        assert 0 <= x < width and 0 <= y < height
        assert left <= x < left + w and top <= y < top + h
