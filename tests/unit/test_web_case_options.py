"""Two ways of writing a web case users reach for: `aiDragAndDrop: <what to drag>` with `to:`
beside it (the target as the step's value, as aiTap's is; before, "expected `from:` and `to:`
targets" twice at one place), and `dialogs: accept` in the web section (what the page's
confirm and prompt dialogs are answered with; dismiss, as Playwright does, by default)."""

from __future__ import annotations

from pathlib import Path

from farm.suite.loader import load_suites

CASE = """web:
  url: https://example.com
{dialogs}tasks:
  - name: drag
    flow:
      - aiDragAndDrop: Card 1
        to: Done column
      - aiDragAndDrop:
          from: Card 2
          to: Todo column
"""


def _case(tmp_path: Path, dialogs: str = ""):
    (tmp_path / "case.yaml").write_text(CASE.format(dialogs=dialogs))
    [suite] = load_suites([tmp_path / "case.yaml"])
    [case] = suite.cases
    return case


def test_a_drag_s_value_is_what_it_drags(tmp_path: Path) -> None:
    steps = _case(tmp_path).tasks[0].steps
    assert [(s.options["from"], s.options["to"]) for s in steps] == [
        ("Card 1", "Done column"), ("Card 2", "Todo column")]


def test_dialogs_are_dismissed_unless_the_case_accepts_them(tmp_path: Path) -> None:
    assert _case(tmp_path).web.dialogs == "dismiss"
    assert _case(tmp_path, "  dialogs: accept\n").web.dialogs == "accept"
