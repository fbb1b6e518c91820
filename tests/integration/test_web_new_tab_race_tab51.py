"""A browser agent with autoFollowNewPage: a check right after a tap that opened a tab (a link's
target=_blank, window.open) reads that tab. Chromium has the tab before the tap returns, but
Playwright tells of it a moment later, and the check read the old tab: 'expected text "Help
page" is not on screen' in 7 cases of 8. The wait for the tab is only for a tab Chromium has
and Playwright has not told of yet: a window Chromium blocked (a sandboxed frame), a tab the
page closed and opened again, a link whose tab became a download cost no wait: farm.log,
which says each wait for a tab that did not come, says none (a first fix waited 5 s for each,
and 30 s for the download's tab). Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

HOME = """<!doctype html><html><body><h1>Home</h1>
<p><a href="help.html" target="_blank">Open help</a></p>
<p><button onclick="window.open('help.html')">Show help window</button></p>
<p><a href="report.bin" target="_blank">Get the report</a></p>
<iframe sandbox="allow-scripts" srcdoc="<button onclick=window.open('about:blank')>Blocked
window</button>"></iframe></body></html>"""
HELP = """<!doctype html><html><body><h1>Help page</h1>
<button onclick="window.close()">Close help</button></body></html>"""

CASE = """name: {name}
timeout: {timeout}
web:
  mode: browser
  autoFollowNewPage: true
  serve: .
  url: home.html
tasks:
  - name: t
    flow:
{steps}"""


def _steps(*steps: str) -> str:
    return "".join(f"      - {step}\n" for step in steps)


def _run(tmp_path: Path, farm: FarmCli, cases: dict[str, tuple[float, str]]) -> dict:
    (tmp_path / "home.html").write_text(HOME)
    (tmp_path / "help.html").write_text(HELP)
    (tmp_path / "report.bin").write_bytes(b"\0" * 64)     # (served as a download: no type)
    for name, (timeout, steps) in cases.items():
        (tmp_path / f"{name}.yaml").write_text(CASE.format(name=name, timeout=timeout,
                                                           steps=steps))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    by_name = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    assert set(by_name) == set(cases), done.stdout + done.stderr
    return by_name


def _errors(case: dict) -> list:
    return [s.get("error") for s in case["steps"] if s.get("error")] or [case.get("error")]


def test_a_check_right_after_a_tap_that_opened_a_tab_reads_that_tab_tab51(
        tmp_path: Path, farm: FarmCli) -> None:
    cases = {f"{opener.split()[0].lower()}{i}": (120, _steps(
        f"aiTap: {opener}", "assertText: Help page"))
        for i in range(4) for opener in ("Open help", "Show help window")}
    by_name = _run(tmp_path, farm, cases)
    for name, case in by_name.items():      # (the race lost 7 times in 8: each of 8 lost it)
        assert case["status"] == "passed", (name, _errors(case))


def test_tabs_that_never_come_or_come_again_cost_no_wait_tab51(
        tmp_path: Path, farm: FarmCli) -> None:
    # each case taps six times; a wait for a tab that never comes says so in farm.log (a first
    # fix waited 5 s a tap, and 30 s for the download's tab); the case timeouts are only a
    # bound (the blocked window's button, in a frame of no origin, is found by OCR: its engine
    # loads first)
    again = ["aiTap: Open help", "assertText: Help page", "aiTap: Close help",
             "assertText: Home"] * 6
    cases = {"blocked": (120, _steps(*["aiTap: Blocked window"] * 6, "assertText: Home")),
             "again": (120, _steps(*again)),
             "download": (120, _steps(*["aiTap: Get the report"] * 6, "assertText: Home"))}
    by_name = _run(tmp_path, farm, cases)
    for name, case in by_name.items():
        assert case["status"] == "passed", (name, _errors(case))
    log = (tmp_path / "run" / "farm.log").read_text()
    assert "was not set up within" not in log, log[-3000:]
    assert "the new tab's address was a download" in log, log[-3000:]
    notes = [n for s in by_name["download"]["steps"] for n in s.get("notes", [])]
    assert any('started a download of "report.bin"' in n for n in notes), by_name["download"]
