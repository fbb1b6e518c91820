"""On android-sim, a scroll that starts on a located button showing only a strip at the screen's
bottom edge (2 px above the fold, where a phone's home-gesture bar takes a swipe) starts on the
button swiped in, as a tap does: it started on the strip."""

from __future__ import annotations

import io
import json

import pytest

from farm.config import load_settings
from farm.session import run
from tests.integration.test_edge_strip_sim import PAGE

pytestmark = pytest.mark.integration

CASE = """name: android scroll
android:
  launch: com.qa.pay
tasks:
  - name: scroll from the button
    flow:
      - aiScroll: Pay now
        direction: down
        distance: 100
"""


def test_a_scroll_from_a_button_below_the_fold_starts_on_it_swiped_in(tmp_path):
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  pay:\n    serve: app\n"
                                     "    android: com.qa.pay\n")
    (suite / "android_scroll.yaml").write_text(CASE)
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1", settings, progress=False, out=out)
    [case] = json.loads((tmp_path / "run" / "results.json").read_text())["cases"]
    assert code == 0, out.getvalue()
    scroll = case["steps"][0]
    width, height = scroll["screen"]
    (x, y), _ = scroll["marks"][0]["points"]
    assert scroll["marks"][0]["kind"] == "scroll", scroll
    assert y < height * 0.9, scroll          # off the strip at the bottom edge
