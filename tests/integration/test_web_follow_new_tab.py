"""A browser agent with autoFollowNewPage works on in the tab a link (target=_blank) or
window.open opened, from the very next step: the step's wait for its target watched the old
tab, which never changes again, for the whole of its 5 s, and the step failed "no element
matches "Get help"; the closest on screen is "Open help"" (a waitForText with a timeout only
passed when a second look came in time). A case that does not follow new tabs (a browser
agent without autoFollowNewPage, a page agent with forceSameTabNavigation: false) goes on in
its tab, and a step that then fails says the page opened one and how to work in it: it said
only that the target was not there. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

HOME = """<!doctype html><html><body><h1>Home</h1>
<a href="help.html" target="_blank">Open help</a>
<button onclick="window.open('help.html')">Show help window</button></body></html>"""
HELP = """<!doctype html><html><body><h1>Help page</h1>
<button onclick="this.textContent='Helped'">Get help</button></body></html>"""

CASE = """name: {name}
web:
  mode: browser
  autoFollowNewPage: true
  serve: .
  url: home.html
tasks:
  - name: t
    flow:
      - aiTap: {opener}
      - {look}
      - assertText: Helped
"""


def test_the_step_after_a_new_tab_opened_acts_in_the_new_tab(tmp_path: Path, farm: FarmCli):
    (tmp_path / "home.html").write_text(HOME)
    (tmp_path / "help.html").write_text(HELP)
    cases = {"link": ("Open help", "aiTap: Get help"),
             "window": ("Show help window", "aiTap: Get help"),
             "wait": ("Open help", "waitForText: Help page\n        timeout: 3000\n"
                                   "      - aiTap: Get help")}
    for name, (opener, look) in cases.items():
        (tmp_path / f"{name}.yaml").write_text(CASE.format(name=name, opener=opener, look=look))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    by_name = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    for name in cases:
        case = by_name[name]
        assert case["status"] == "passed", (name, [s.get("error") for s in case["steps"]])
    assert done.returncode == 0, done.stdout + done.stderr


STAYS = """name: {name}
{section}:
  url: home.html
  serve: .
{option}tasks:
  - name: t
    flow:
      - aiTap: Open help
      - aiTap: Get help
"""


def test_a_step_failing_beside_a_new_tab_not_followed_says_so(tmp_path: Path, farm: FarmCli):
    (tmp_path / "home.html").write_text(HOME)
    (tmp_path / "help.html").write_text(HELP)
    (tmp_path / "browser.yaml").write_text(STAYS.format(name="browser", section="browser",
                                                        option=""))
    (tmp_path / "page.yaml").write_text(STAYS.format(
        name="page", section="web", option="  forceSameTabNavigation: false\n"))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    by_name = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    hints = {"browser": "`autoFollowNewPage: true` works on in it",
             "page": "`forceSameTabNavigation: true` (the default) opens it in this tab"}
    for name, hint in hints.items():
        error = by_name[name]["steps"][1]["error"]
        assert error.startswith('no element matches "Get help"'), error
        assert "(the page opened a new tab, http://127.0.0.1:" in error, error
        assert f"/help.html, and farm goes on in the tab it was in; {hint})" in error, error
