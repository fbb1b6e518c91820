"""Pages a QA team's app really has, run through `farm run` on browser:1 with zero-token suites,
checked as the user sees them (verdict, step error, exit code). Real Chromium.

- A case whose url (or a Navigate) the server answers with a file to download was an
  infrastructure error ("open URL failed on browser-1: Page.goto: Download is starting"),
  retried on the browser and exit 3: now the case fails saying a download came, not a page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.path == "/report.csv":        # a file to save, not a page to show
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Disposition", 'attachment; filename="report.csv"')
                self.send_header("Content-Length", "4")
                self.end_headers()
                self.wfile.write(b"a,b\n")
                return
            self.send_page(b"<h1>Reports</h1><a href='/report.csv'>Download report</a>")

    with serving(Handler) as url:
        yield url


def run(farm: FarmCli, folder: Path) -> tuple[int, dict]:
    done = farm.run("run", folder, "--devices", "browser:1", "--report-dir", folder / "run")
    return done.returncode, {c["name"]: c for c in results(folder / "run")["cases"]}


def test_a_case_opening_a_download_fails_saying_so_not_the_browser(tmp_path: Path,
                                                                  farm: FarmCli, site: str):
    (tmp_path / "download.yaml").write_text(
        f"name: download\nweb:\n  url: {site}/report.csv\ntasks:\n  - name: t\n    flow:\n"
        "      - assertText: a,b\n")
    (tmp_path / "link.yaml").write_text(
        f"name: link\nweb:\n  url: {site}/\ntasks:\n  - name: t\n    flow:\n"
        "      - aiTap: Download report\n      - assertText: Reports\n")
    code, cases = run(farm, tmp_path)
    assert code == 1, cases
    assert cases["link"]["status"] == "passed", cases["link"]
    download = cases["download"]
    assert (download["status"], download["attempt"]) == ("failed", 1), download
    assert download["error"]["message"] == (
        f"cannot open {site}/report.csv: the server sent a file to download there, not a page "
        "(a case's url, or a Navigate, opens pages; an aiTap on the page's download link "
        "downloads it)"), download["error"]
