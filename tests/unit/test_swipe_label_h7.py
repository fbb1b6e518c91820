"""A phone's swipe step is named by where it goes in the console, the report and
results.json (direction, distance, repeat, its ends), as a scroll step is by its direction:
three swipes of a case no longer all read just `aiSwipe`."""

from __future__ import annotations

from pathlib import Path

from farm.suite.loader import load_case_file

CASE = """\
ios:
  launch: com.example.app
tasks:
  - name: swipes
    flow:
      - aiSwipe: the list
        direction: up
        distance: 400
      - aiSwipe:
        start: the card
        end: the bin
      - aiSwipe:
        direction: left
        repeat: 3
      - aiSwipe:
        end: the bin
      - aiSwipe:
"""


def test_swipe_steps_say_direction_distance_and_ends(tmp_path: Path):
    (tmp_path / "swipes.yaml").write_text(CASE, encoding="utf-8")
    case = load_case_file(tmp_path / "swipes.yaml")
    assert [s.label for s in case.tasks[0].steps] == [
        'aiSwipe up, distance 400 from "the list"',
        'aiSwipe from "the card" to "the bin"',
        "aiSwipe left, 3 times",
        'aiSwipe to "the bin"',
        "aiSwipe up"]          # no direction: the swipe goes up, as it runs
