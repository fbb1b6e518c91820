"""A step failing beside a new tab the case did not follow named that tab's URL as it was:
`?token=…` in plain text in the step's error (results, report, farm.log). Masked, as every
other URL farm shows. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_web_follow_new_tab import HELP, STAYS
from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

HOME = """<!doctype html><html><body><h1>Home</h1>
<a href="help.html?token=Tok3nValue99&page=2" target="_blank">Open help</a></body></html>"""


def test_the_new_tab_a_failure_names_has_its_credentials_masked(tmp_path: Path, farm: FarmCli):
    (tmp_path / "home.html").write_text(HOME)
    (tmp_path / "help.html").write_text(HELP)
    (tmp_path / "browser.yaml").write_text(STAYS.format(name="browser", section="browser",
                                                        option=""))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    [case] = results(tmp_path / "run")["cases"]
    error = case["steps"][1]["error"]
    assert "/help.html?token=***&page=2, and farm goes on in the tab" in error, error
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / "run").rglob("*")
                      if p.is_file() and p.suffix in (".json", ".jsonl", ".log", ".html", ".xml"))
    assert "Tok3nValue99" not in written + done.stdout + done.stderr
