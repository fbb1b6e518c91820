"""A web case that fails on a page whose server answered an HTTP error says so: "(the page
answered 404 Not Found: URL)" after the failure, in the terminal, results.json and the report,
without opening a screenshot. Only the main frame's current document counts: not a resource
of a page that answered 200, not an error page the case has left. Real Chromium, `farm run`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import FarmCli, results
from tests.support.http_site import QuietHandler, serving

LINK = "<a href='{href}' style='display:block;width:300px;height:40px'>{text}</a>"
# path -> (status, body); /moved redirects to /login
PAGES = {
    "/login": (404, "<h1>Page not found</h1>" + LINK.format(href="/fine", text="Home")),
    "/start": (200, "<h1>Start</h1>" + LINK.format(href="/boom", text="Open the dashboard")),
    "/boom": (500, "<h1>Something broke</h1>"),
    "/fine": (200, "<h1>Fine page</h1><img src='/missing.png' alt=''>"),
    "/private": (401, "<h1>Who are you?</h1>"),
    "/empty": (500, ""),
}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path == "/moved":
                self.send_response(302)
                self.send_header("Location", "/login")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, page = PAGES.get(path, (404, ""))
            self.send_page(page.encode(), status)

    with serving(Handler) as url:
        yield url


def case(url: str, *flow: str) -> str:
    steps = "".join(f"      - {step}\n" for step in flow)
    return f"web:\n  url: {url}\ntasks:\n  - name: t\n    flow:\n{steps}"


def test_a_failure_on_an_http_error_page_names_the_status(farm: FarmCli, tmp_path: Path,
                                                          site: str) -> None:
    suite = tmp_path / "status"
    suite.mkdir()
    host = site.removeprefix("http://")
    files = {
        "missing_login": case(f"{site}/login", "assertText: Sign in"),
        "broken_link": case(f"{site}/start", "aiTap: Open the dashboard",
                            "assertText: Dashboard"),
        "fine_page": case(f"{site}/fine", "assertText: Dashboard"),
        "left_the_error": case(f"{site}/login", "aiTap: Home", "assertText: Dashboard"),
        "moved": case(f"{site}/moved", "assertText: Sign in"),
        "private": case(f"http://admin:s3cret@{host}/private?token=abc123", "assertText: Hello"),
    }
    for name, text in files.items():
        (suite / f"{name}.yaml").write_text(text)
    done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "r")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"].removeprefix("status/"): c for c in results(tmp_path / "r")["cases"]}
    assert {c["status"] for c in cases.values()} == {"failed"}
    said = {name: c["error"]["message"] for name, c in cases.items()}
    not_found = f"(the page answered 404 Not Found: {site}/login)"
    assert said == {
        "missing_login": f'expected text "Sign in" is not on screen {not_found}',
        "broken_link": 'expected text "Dashboard" is not on screen '
                       f"(the page answered 500 Internal Server Error: {site}/boom)",
        "fine_page": 'expected text "Dashboard" is not on screen',     # its image's 404: no
        "left_the_error": 'expected text "Dashboard" is not on screen',
        "moved": f'expected text "Sign in" is not on screen {not_found}',
        "private": 'expected text "Hello" is not on screen (the page answered 401 '
                   f"Unauthorized: http://admin:***@{host}/private?token=***)",
    }
    assert cases["broken_link"]["error"]["step"] == 2
    # the failed step says it too, and so do the terminal and the report
    assert cases["missing_login"]["steps"][0]["error"] == said["missing_login"]
    assert (f"FAILED status/missing_login ({suite / 'missing_login.yaml'}:6) — step 1: "
            f"{said['missing_login']}") in done.stdout
    report = (tmp_path / "r" / "report.html").read_text()
    assert f"500 Internal Server Error: {site}/boom" in report
    for output in (done.stdout, done.stderr, report, (tmp_path / "r" / "results.json").read_text()):
        assert "s3cret" not in output and "abc123" not in output


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's full chromium")
def test_an_empty_error_page_at_the_start_url_fails_the_case_not_the_browser(
        farm: FarmCli, tmp_path: Path, site: str) -> None:
    """Full Chromium (FARM_CHROMIUM_PATH, a visible browser) refuses to load an HTTP error with
    an empty body (net::ERR_HTTP_RESPONSE_CODE_FAILURE): the site's failure, said with its
    status, once; not a device error retried on every browser."""
    suite = tmp_path / "empty"
    suite.mkdir()
    (suite / "empty.yaml").write_text(case(f"{site}/empty", "assertText: Dashboard"))
    done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "r",
                    FARM_CHROMIUM_PATH=shutil.which("chromium"))
    assert done.returncode == 1, done.stdout + done.stderr
    data = results(tmp_path / "r")
    empty = data["cases"][0]
    assert (empty["status"], empty["attempt"], data["quarantined"]) == ("failed", 1, [])
    assert empty["error"]["message"] == (
        f"cannot open {site}/empty: the server answered an HTTP error with an empty page "
        "(net::ERR_HTTP_RESPONSE_CODE_FAILURE) "
        f"(the page answered 500 Internal Server Error: {site}/empty)")


def test_a_target_missing_from_an_error_page_fails_rather_than_waiting_for_a_model(
        farm: FarmCli, tmp_path: Path, site: str) -> None:
    """No model configured: a target no zero-token tier finds is a step for a model, skipped.
    On a page the server answered with an HTTP error a model would find nothing either: the
    case was skipped, the run exited 0 and the 404 went unsaid. It fails, naming the answer;
    on a page that answered 200 the skip stands."""
    suite = tmp_path / "miss"
    suite.mkdir()
    (suite / "on_404.yaml").write_text(case(f"{site}/login", "aiTap: Sign in"))
    (suite / "on_200.yaml").write_text(case(f"{site}/fine", "aiTap: Sign in"))
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "r")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"].removeprefix("miss/"): c for c in results(tmp_path / "r")["cases"]}
    assert (cases["on_404"]["status"], cases["on_200"]["status"]) == ("failed", "skipped")
    assert cases["on_404"]["error"]["message"] == (
        f'no zero-token match for "Sign in" on screen (the page answered 404 Not Found: '
        f"{site}/login)")
    assert cases["on_404"]["error"]["kind"] == "LocateError"
