"""A legacy page built of a <frameset> (a menu frame beside a main frame): text checks read its
frames, fields and buttons in them are found, and a link that loads the other frame is
followed. Before, its text was not on screen at all (the text read entered <iframe>s only):
`assertText: Main start` failed on a page showing it. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGES = {
    "index.html": '<html><frameset cols="30%,70%"><frame src="menu.html" name="menu">'
                  '<frame src="main.html" name="main"></frameset></html>',
    "menu.html": '<html><body><a href="two.html" target="main">Open page two</a></body></html>',
    "main.html": "<html><body><h1>Main start</h1><label>Search <input id='s'></label>"
                 "<button onclick=\"document.getElementById('o').textContent = 'found ' + "
                 "document.getElementById('s').value\">Go</button><p id='o'></p></body></html>",
    "two.html": "<html><body><h1>Page two here</h1></body></html>",
}


def test_a_frameset_page_is_read_filled_and_followed(tmp_path: Path, farm: FarmCli) -> None:
    for name, text in PAGES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "frames.yaml").write_text(
        "name: frames\nweb:\n  serve: .\n  url: index.html\ntasks:\n  - name: t\n    flow:\n"
        "      - assertText: Main start\n"
        "      - aiInput: Search\n        value: abc\n"
        "      - aiTap: Go\n"
        "      - assertText: found abc\n"
        "      - aiTap: Open page two\n"
        "      - waitForText: Page two here\n        timeout: 5000\n"
        "      - assertNoText: Main start\n")
    done = farm.run("run", tmp_path / "frames.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert done.returncode == 0, case.get("error")
