"""A CI run (--no-progress, no model configured) as its log reads afterwards. A mistyped target
is a skip by design ("needs a model"); the log's only line was "farm: 2 skipped in 7.7s", so a
typo looked green: now the end says why each case was skipped, one line per reason. A retried
failure says how many attempts it had, on the console as in the report's case header. And the
cases skipped on their device are remembered with their time: --collect-only no longer calls
them new ("never ran here, 30s each assumed")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.suites import write_case

pytestmark = pytest.mark.integration

PAGE = "<title>s43</title><button>Log in</button><p>Apple</p>"
TYPO = 'needs a model (set FARM_MODEL): no zero-token match for "Frobnicate widget" on screen'


def _suite(tmp: Path) -> Path:
    folder = tmp / "s43"
    (folder / "app").mkdir(parents=True)
    (folder / "app" / "index.html").write_text(PAGE)
    (folder / "farm.yaml").write_text("timeout: 300\napps:\n  site:\n    serve: app\n"
                                      "    env: S43_URL\n")
    url = "${S43_URL}/index.html"
    for stem in ("typo1", "typo2"):     # skipped on the device, once the page is there
        write_case(folder, stem, ["aiTap: Frobnicate widget"], url=url)
    write_case(folder, "plan", ["ai: log in and buy a mug"], url=url)   # skipped up front
    write_case(folder, "bad", ["assertText: Apple", "assertText: Bananas split"], url=url)
    return folder


def test_a_ci_log_says_why_cases_were_skipped_and_that_a_failure_was_retried(tmp_path, farm):
    suite = _suite(tmp_path)
    run_dir = tmp_path / "run"
    proc = farm.run("run", suite, "--no-progress", "--retries", "1", "--report-dir", run_dir)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert f"SKIPPED 2 cases (s43/typo1, s43/typo2) — {TYPO}" in lines, proc.stdout
    [plan] = [x for x in lines if x.startswith("SKIPPED s43/plan (")]
    assert plan.endswith("plan.yaml:7) — needs a model (set FARM_MODEL): ai at line 7"), plan
    [bad] = [x for x in lines if x.startswith("FAILED ")]
    assert re.fullmatch(r'FAILED s43/bad \(.*bad\.yaml:8\) after 2 attempts — step 2: '
                        r'expected text "Bananas split" is not on screen', bad), bad
    assert lines[-2].startswith("farm: 1 failed, 3 skipped in "), proc.stdout   # (a first run)
    assert lines.index(bad) == len(lines) - 3     # the failure nearest the tally
    # the report's case header says the same: the attempt shown, and how many there were
    page = (run_dir / "report.html").read_text()
    header = page[page.index('id="case=s43/bad"'):]
    header = header[:header.index("</summary>")]
    assert "<span>attempt 2</span>" in header and " (2 attempts)</span>" in header

    collected = farm.run("run", suite, "--collect-only")
    assert collected.returncode == 0, collected.stdout + collected.stderr
    # typo1 and typo2 held a device (the page, the locate tiers): their time is known now;
    # plan never opened one
    assert "; 1 never ran here, 30s each assumed), 0 deselected" in collected.stderr, \
        collected.stderr
