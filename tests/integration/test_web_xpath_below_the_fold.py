"""An aiTap by `xpath:` on an element below the fold clicked at its rect's point, outside the
viewport: the click reached nothing and the step passed (the next check failed, far from the
cause). The browser now scrolls such a point into the viewport first, as Playwright scrolls
its target in, and a point no scroll brings in fails the step. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<header style="position:sticky;top:0;height:100px;background:#ddd">Shop</header>
<div style="height:3000px"></div>
<button id="buy" onclick="document.getElementById('out').textContent = 'bought'">Buy</button>
<button id="gone" style="position:absolute;left:-400px;top:10px">Off the left</button>
<p id="out" style="position:fixed;bottom:0;right:0"></p>
<div style="height:3000px"></div></body></html>
"""


def _run(tmp_path: Path, farm: FarmCli, flow: str) -> dict:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "buy.yaml").write_text(
        "name: buy\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        + flow)
    done = farm.run("run", tmp_path / "buy.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert done.returncode == (0 if case["status"] == "passed" else 1), done.stderr
    return case


def test_an_xpath_target_below_the_fold_is_scrolled_in_and_clicked(
        tmp_path: Path, farm: FarmCli) -> None:
    case = _run(tmp_path, farm, "      - aiTap: the buy button\n        xpath: //*[@id='buy']\n"
                                "      - assertText: bought\n")
    assert case["status"] == "passed", case["error"]


def test_an_xpath_target_no_scroll_brings_in_fails_the_tap(
        tmp_path: Path, farm: FarmCli) -> None:
    case = _run(tmp_path, farm, "      - aiTap: the hidden one\n        xpath: //*[@id='gone']\n")
    assert case["status"] == "failed"
    assert case["error"]["step"] == 1, case["error"]
    assert "is outside the page's 1280x800 viewport, and scrolling the page does not bring " \
           "it in where a tap reaches it" in case["error"]["message"], case["error"]


def test_an_xpath_file_button_below_the_fold_opens_its_chooser(tmp_path: Path,
                                                               farm: FarmCli) -> None:
    (tmp_path / "photo.png").write_bytes(b"not really")
    page = PAGE.replace('<p id="out"', '<input type="file" id="file" onchange="document.'
                        'getElementById(\'out\').textContent = this.files[0].name"><p id="out"')
    (tmp_path / "page.html").write_text(page)
    (tmp_path / "up.yaml").write_text(
        "name: up\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiTap: the file button\n        xpath: //*[@id='file']\n"
        f"        fileChooserAccept: {tmp_path / 'photo.png'}\n"
        "      - assertText: photo.png\n")
    done = farm.run("run", tmp_path / "up.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert done.returncode == 0, case["error"]
