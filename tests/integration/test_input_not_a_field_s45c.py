"""aiInput at a <p> (not a field) said "nothing has the focus where it tapped (a page that
reads keys itself takes them with mode: typeOnly)": it says what it tapped, and offers
typeOnly first only where the element may read keys itself. Real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body>
<p>Welcome text</p>
<canvas width="200" height="60"></canvas>
</body></html>"""

CASE = """name: input into text
web:
  serve: .
  url: page.html
tasks:
  - name: a paragraph
    continueOnError: true
    flow:
      - aiInput: Welcome text
        value: hi
  - name: a board
    continueOnError: true
    flow:
      - aiInput: the board
        xpath: //canvas
        value: hi
"""


def test_input_into_a_paragraph_says_what_it_tapped(tmp_path: Path, farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "input.yaml").write_text(CASE)
    done = farm.run("run", tmp_path / "input.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    [case] = results(tmp_path / "run")["cases"]
    steps = {s["label"].split(" = ")[0]: s for s in case["steps"]}
    assert steps['aiInput "Welcome text"']["error"] == (
        'no text field took the text: the target is a <p> "Welcome text", not a text field: '
        "name the field to type into (a page that reads keys itself takes them with mode: "
        "typeOnly)")
    assert steps['aiInput "the board"']["error"] == (
        "no text field took the text: the target is a <canvas>, which takes no text as a "
        "field does (if it reads keys itself, mode: typeOnly types them)")
