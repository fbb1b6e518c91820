"""`farm report --history` after a night with red cases, a `-k` run, then a run stopped with
Ctrl-C before any case finished: "what changed" keeps each case the stopped run did not finish
at the state of the newest run that ran THAT case to its end. It lost the night's red cases
(the `-k logout` run in between was taken as the last complete run for every case), and it
listed a case the `-k` run had and the stopped run never had (deleted since)."""

from __future__ import annotations

import re
import signal
from html import unescape
from pathlib import Path

import pytest

from tests.support.farm_cli import ROOT, FarmCli
from tests.support.gate import Gate
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

FAULTS = ROOT / "tests" / "integration" / "suites" / "faults"
PRESENT, ABSENT = "Farm Shop", "Text that is not on the page"
CASES = ("cart", "checkout", "gone", "logout", "search")    # each: ${<NAME>} must be shown


def _suite(folder: Path) -> Path:
    """Cases that each wait at ``${GATE}`` (open in the first runs, held in the last), then
    look for the text in their own variable (absent: red)."""
    page = "${FARM_DEMO_URL}/index.html"
    for stem in CASES:
        write_case(folder, stem, ["javascript: \"return fetch('${GATE}').then(r => r.status)\"",
                                  f"assertText: ${{{stem.upper()}}}"], url=page, timeout=180)
    (folder / "farm.yaml").write_text((FAULTS / "farm.yaml").read_text().replace(
        "../../../../suites/demo/app", str(ROOT / "suites" / "demo" / "app")))
    return folder


def _latest(page: Path) -> tuple[str, dict[str, str]]:
    """The "what changed" section's note on the interruption and its rows: case id → its
    verdict cell's text."""
    html = page.read_text(encoding="utf-8")
    section = html[html.index('<section id="latest">'):html.index('<section id="flaky">')]
    note = re.search(r'<p class="err" id="latest-interrupted">(.*?)</p>', section, re.S)
    rows = re.findall(r'<tr data-case="([^"]+)">.*?<td class="verdict[^"]*">(.*?)<td', section,
                      re.S)
    def text(html: str) -> list[str]:       # a link is its words; a block, a space
        inline = re.sub(r"</?(?:a|span|code|b)\b[^>]*>", "", html)
        return unescape(re.sub(r"<[^>]+>", " ", inline)).split()
    return " ".join(text(note.group(1))) if note else "", \
        {case: " ".join(text(cell)) for case, cell in rows}


def test_a_stopped_run_after_a_k_run_keeps_the_nights_red_cases(tmp_path: Path, farm: FarmCli):
    suite = _suite(tmp_path / "night")
    with Gate() as open_gate, Gate() as held:
        open_gate.open()
        texts = {name.upper(): PRESENT for name in CASES}
        night = farm.run("run", suite, "--devices", "browser:2", "--report-dir",
                         tmp_path / "r1", GATE=open_gate.url,
                         **{**texts, "CART": ABSENT, "CHECKOUT": ABSENT, "LOGOUT": ABSENT})
        assert night.returncode == 1, night.stdout + night.stderr
        partial = farm.run("run", suite, "-k", "logout or gone", "--devices", "browser:2",
                           "--report-dir", tmp_path / "r2", GATE=open_gate.url,
                           **{**texts, "GONE": ABSENT})
        assert partial.returncode == 1, partial.stdout + partial.stderr
        (suite / "gone.yaml").unlink()          # deleted: the stopped run never has it
        stopped = farm.start("run", suite, "--devices", "browser:1", "--report-dir",
                             tmp_path / "r3", GATE=held.url, **texts)
        held.wait_for_arrivals(1)       # its first case is in flight, held at the gate
        stopped.send_signal(signal.SIGINT)
        out = stopped.finish(120)
        assert stopped.returncode == 2, out
        held.open()

    page = farm.run("report", "--history", "--out", tmp_path / "history.html")
    assert page.returncode == 0, page.stdout + page.stderr
    runs = {p.name: _run_id(p) for p in (tmp_path / "r1", tmp_path / "r2")}
    note, rows = _latest(tmp_path / "history.html")
    assert rows == {
        "night/cart": f"new failure as of {runs['r1']}: not finished in the newest run",
        "night/checkout": f"new failure as of {runs['r1']}: not finished in the newest run",
        "night/logout": f"fixed as of {runs['r2']}: not finished in the newest run"}
    assert note == (f"It was interrupted: 0 case(s) finished in it; for the 3 case(s) below "
                    f"that it did not finish, their state in the newest run that ran each to "
                    f"its end ({runs['r2']}, {runs['r1']}), marked “as of”.")


def _run_id(run_dir: Path) -> str:
    import json
    return json.loads((run_dir / "results.json").read_text())["run_id"]
