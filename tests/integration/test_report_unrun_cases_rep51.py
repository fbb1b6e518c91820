"""A run whose only device is lost early: the cases it ran end errors, those no device was
left for never run. `farm run` with the tests' ``fake`` device plugin (every session start
fails, so the device is quarantined after three cases), then its report.html read as text.

What a user sees: the report's header says the cases no device was left for apart ("0 passed
of 6 (3 not run: no device left, counted as errors)"; the pass rate counts them as errors, as
the history page and Grafana do), not "0 passed of 6 finished", and so does the console's last line ("3 errors, 3
case(s) not run (counted as errors)", not "6 errors"); a case that never ran says so and why
("not run: no usable web device left"), not "attempt 1 0 ms" as if an attempt had run and
taken no time.
"""

from __future__ import annotations

import html
import re
from xml.etree import ElementTree

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n"


def text_of(markup: str) -> str:
    """Markup as a reader sees it: tags gone, entities read, spaces folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[str, str, str]:
    """(report.html, the run's console output, junit.xml) of six cases on one failing fake
    device."""
    tmp = tmp_path_factory.mktemp("unrun")
    (tmp / "s").mkdir()
    for name in "abcdef":
        (tmp / "s" / f"{name}.yaml").write_text(CASE)
    farm = FarmCli(tmp, FARM_DEVICE_PLUGINS="tests.support.devices", FARM_TEST_FAKE_FAIL="1")
    done = farm.run("run", "s", "--devices", "fake:1", cwd=tmp)
    assert done.returncode == 3, done.stdout + done.stderr
    where = tmp / [ln for ln in done.stdout.splitlines() if ln.endswith("report.html")][-1]
    junit = (where.parent / "junit.xml").read_text(encoding="utf-8")
    return where.read_text(encoding="utf-8"), done.stdout + done.stderr, junit


def summaries(page: str) -> dict[str, str]:
    """Each case's closed line (its <summary>) by the case's file."""
    out = {}
    for found in re.finditer(r"<summary>(.*?)</summary>", page, re.S):
        line = text_of(found.group(1))
        name = re.search(r"s/(\w)\.yaml", line)
        if name:
            out[name.group(1)] = line
    return out


def test_header_says_the_cases_that_never_ran_apart(report):
    page, console, _ = report
    assert "not run: no usable web device left" in console     # (the run went as staged)
    rate = text_of(re.search(r'<div class="rate".*?</div>', page, re.S).group(0))
    assert "0 passed of 6 (3 not run: no device left, counted as errors)" in rate, rate
    assert "of 6 finished" not in rate
    # the console's tally counts them alike (it said "6 errors", as if all six had run)
    assert "farm: 3 errors, 3 case(s) not run (counted as errors) in " in console, console


def test_an_unrun_case_says_it_was_not_run_and_why(report):
    page, _, _ = report
    lines = summaries(page)
    unrun = [line for line in lines.values() if "not run" in line]
    ran = [line for line in lines.values() if "not run" not in line]
    assert len(unrun) == 3 and len(ran) == 3, lines
    for line in unrun:
        assert "not run: no usable web device left" in line, line
        assert "attempt 1" not in line and "0 ms" not in line, line
    for line in ran:            # a case that ran keeps its attempt and time
        assert "attempt 1" in line, line
    bodies = [text_of(m) for m in re.findall(r'<pre class="error">.*?</pre>', page, re.S)]
    assert sum(b.startswith("not run — DeviceLost: no usable web device left (fake-1 is "
                            "quarantined") for b in bodies) == 3, bodies


def test_junit_counts_them_as_errors_that_never_had_an_attempt(report):
    _, _, junit = report
    root = ElementTree.fromstring(junit)
    assert root.get("tests") == "6" and root.get("errors") == "6"   # as results.json counts
    outs = [case.findtext("system-out") or "" for case in root.iter("testcase")]
    unrun = [out for out in outs if "attempt: none (not run)" in out]
    assert len(unrun) == 3, outs
    assert sum("attempt: 1" in out for out in outs) == 3, outs
