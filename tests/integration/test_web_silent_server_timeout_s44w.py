"""A site whose server takes the request and never answers, with the case's timeout shorter
than farm's own wait for a page (30 s): the case ends at its timeout, saying what the page was
waiting for, and its browser is not killed. Before, the url's open waited 30 s, past the case's
end, until the watchdog killed the browser ("case timed out after 3s opening URL (device
stopped answering: browser … crashed or was closed: …)"); a link to such a page held the
step's report image until the case's end ("case timed out after 4s: waiting for the device's
screenshot (screenshot) after the step"). `farm run` in real Chromium; the watchdog's grace is
short, so a case that did not end at its timeout is killed, and farm.log says so."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """A page with a link to ``/held``, a request the server never answers (until the end),
    and one to ``/half.html``, whose server sends its start and no more."""
    release = threading.Event()

    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/held"):
                release.wait()
                return
            if self.path == "/half.html":     # its start, then nothing: still loading
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<!doctype html><h1>Half a page</h1>" + b" " * 4096)
                self.wfile.flush()
                release.wait()
                return
            self.send_page(b"<!doctype html><h1>Night App</h1>"
                           b"<a href='/held/next.html'>Next page</a><br>"
                           b"<a href='/half.html'>Half page</a>")

    with serving(Handler) as url:
        yield url
        release.set()


def _run(tmp_path: Path, site: str, case: str) -> tuple[str, dict, str]:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "case.yaml").write_text(case.replace("SITE", site))
    cli = FarmCli(tmp_path)
    try:
        done = cli.run("run", suite, "--report-dir", tmp_path / "out",
                       FARM_WATCHDOG_GRACE_SECONDS="3")
    finally:
        cli.close()
    log = (tmp_path / "out" / "farm.log").read_text()
    return done.stdout + done.stderr, results(tmp_path / "out")["cases"][0], log


def test_opening_a_url_whose_server_never_answers_ends_at_the_case_timeout(
        tmp_path: Path, site: str) -> None:
    out, case, log = _run(tmp_path, site, (
        "name: Open hangs\ntimeout: 3\nweb:\n  url: SITE/held/index.html\n"
        "tasks:\n  - name: open\n    flow:\n      - assertText: Night App\n"))
    said = f"case timed out after 3s opening {site}/held/index.html: the server sent no answer"
    assert case["status"] == "error"
    assert case["error"] == {"kind": "CaseTimeout", "message": said, "step": None}
    assert said in out
    assert "overstayed its timeout" not in log        # the browser was not killed
    assert "crashed" not in out


def test_a_link_to_a_page_whose_server_never_answers_says_so_at_the_case_timeout(
        tmp_path: Path, site: str) -> None:
    out, case, log = _run(tmp_path, site, (
        "name: Server stops answering\ntimeout: 12\nweb:\n  url: SITE/index.html\n"
        "tasks:\n  - name: navigate\n    flow:\n      - aiTap: Next page\n"
        "      - assertText: Welcome to next\n"))
    step = case["steps"][0]
    said = re.compile(rf"case timed out after 12s: the page's navigation to "
                      rf"{re.escape(site)}/held/next\.html got no answer from its server in "
                      r"\d+s")
    assert case["status"] == "error" and case["error"]["kind"] == "CaseTimeout"
    assert said.fullmatch(case["error"]["message"]), case["error"]
    assert step["status"] == "error" and said.fullmatch(step["error"])
    assert case["steps"][1]["status"] == "skipped"
    assert said.search(out)
    assert case["screenshot"]                  # the timeout's image: the page shown meanwhile
    assert "overstayed its timeout" not in log
    assert "secret" not in log                 # the run has none: none looked for


def test_a_link_to_a_page_whose_server_stops_halfway_says_so_at_the_case_timeout(
        tmp_path: Path, site: str) -> None:
    out, case, log = _run(tmp_path, site, (
        "name: Half a page\ntimeout: 12\nweb:\n  url: SITE/index.html\n"
        "tasks:\n  - name: navigate\n    flow:\n      - aiTap: Half page\n"
        "      - assertText: Welcome to next\n"))
    said = (f"case timed out after 12s: the page at {site}/half.html was still loading (its "
            "server has not sent all of it, or a script in it has not come)")
    assert case["error"] == {"kind": "CaseTimeout", "message": said, "step": 1}, case["steps"]
    assert case["steps"][0]["error"] == said
    assert said in out
    assert "overstayed its timeout" not in log
