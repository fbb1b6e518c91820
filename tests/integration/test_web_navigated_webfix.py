"""A check that fails after the page navigated on its own (a timer's redirect) says so: "the
page navigated from …/start.html to …/target.html". Before, it said only that the text is
not on screen, and the tester looked for it on the page they thought was shown. Real
`farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

START = """<!doctype html><html><body><p>Welcome to the start page</p>
<script>setTimeout(() => { location.href = 'target.html'; }, 200);</script></body></html>"""
TARGET = "<!doctype html><html><body><p>Target page</p></body></html>"


def test_a_check_after_a_redirect_says_the_page_navigated(tmp_path: Path,
                                                         farm: FarmCli) -> None:
    (tmp_path / "start.html").write_text(START)
    (tmp_path / "target.html").write_text(TARGET)
    # (the redirect comes in the case's opening or in its first step: either is named by
    # the first step's failure)
    (tmp_path / "c.yaml").write_text(
        "name: c\nweb:\n  serve: .\n  url: start.html\ntasks:\n  - name: t\n    flow:\n"
        "      - waitForText: Welcome back\n        timeout: 3000\n")
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    (waited,) = case["steps"]
    error = waited["error"] or ""
    assert 'text "Welcome back" did not appear' in error, case
    assert "the page navigated from http://" in error and "/start.html to http://" in error \
        and error.rstrip(")").endswith("/target.html"), error
