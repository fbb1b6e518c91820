"""An aiTap by `xpath:` never checked what a tap at the element's point would hit: a button
under an overlay passed (the click went to the overlay), and one that a scroll container
clips was tapped where the container's other content is (the click went there, the step
passed). The XPath's element is now checked as the text tier's find is: scrolled in where a
tap reaches it, and a covered one fails the step with what covers it. Real `farm run`, real
Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<div style="position:relative"><button id="under">Under</button>
<div id="veil" style="position:absolute;inset:0;background:white"></div></div>
<div id="box" style="height:150px;overflow:auto"><div style="height:1000px"></div>
<button id="inner" onclick="out.textContent='inner clicked'">Inner</button></div>
<p id="out" style="position:fixed;bottom:0;right:0"></p>
</body></html>
"""


def _run(tmp_path: Path, farm: FarmCli, flow: str) -> dict:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "reach.yaml").write_text(
        "name: reach\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        + flow)
    done = farm.run("run", tmp_path / "reach.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert done.returncode == (0 if case["status"] == "passed" else 1), done.stderr
    return case


def test_an_xpath_target_under_an_overlay_fails_the_tap_naming_the_cover(
        tmp_path: Path, farm: FarmCli) -> None:
    case = _run(tmp_path, farm, "      - aiTap: ''\n        xpath: //*[@id='under']\n")
    assert case["status"] == "failed"
    assert case["error"]["step"] == 1, case["error"]
    assert "XPath //*[@id='under'] is covered by <div id=\"veil\">: a tap there would hit " \
           "that" in case["error"]["message"], case["error"]


def test_an_xpath_target_a_scroll_container_clips_is_scrolled_in_and_clicked(
        tmp_path: Path, farm: FarmCli) -> None:
    case = _run(tmp_path, farm, "      - aiTap: the inner button\n"
                                "        xpath: //*[@id='inner']\n"
                                "      - assertText: inner clicked\n")
    assert case["status"] == "passed", case["error"]
