"""A web target whose URL holds basic auth's credentials (`http://qa:p%40ss@host/app`): the page
opens signed in and its scripts' relative fetch / XMLHttpRequest calls reach the server. Before,
the page's document kept the credentials in its URL, and Chromium refuses to build a request
from such a base ("Request cannot be constructed from a URL that includes credentials"): every
API call of a single-page app failed. The credentials now go to the browser context, for that
origin alone. farm's BrowserDevice in real Chromium."""

from __future__ import annotations

import base64
from typing import Any, Iterator

import pytest

from farm.suite.model import WebTarget
from tests.support.http_site import QuietHandler, serving

GOOD = "Basic " + base64.b64encode(b"qa:p@ss word").decode()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.headers.get("Authorization") != GOOD:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="app"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_page(b"<h1>Signed in</h1>" if self.path == "/app" else b"api ok",
                           kind="text/html" if self.path == "/app" else "text/plain")

    with serving(Handler) as url:
        yield url


def test_a_page_opened_with_credentials_in_its_url_can_call_its_api(browser: Any,
                                                                     site: str) -> None:
    host = site.removeprefix("http://")
    browser.start_session(WebTarget(url=f"http://qa:p%40ss%20word@{host}/app"))
    try:
        assert "Signed in" in browser.screen_text()
        assert browser.run_script("return fetch('/api').then((r) => r.text())", 5) == "api ok"
        assert browser.run_script("location.href", 5) == f"{site}/app"
    finally:
        browser.end_session()
