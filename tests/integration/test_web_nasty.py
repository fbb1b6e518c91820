"""The browser device on pages that misbehave the way real sites do: a request its server never
answers, a :hover menu, an element that moves by itself, a popup that closes its own tab.
Each is the page's doing: the step fails (or the case goes on), the browser is not blamed."""

from __future__ import annotations

import logging
import threading
from typing import Iterator

import pytest

from farm.devices import browser as browser_mod
from farm.devices.browser import BrowserDevice
from farm.devices.base import UITree
from farm.errors import StepFailed
from farm.suite.model import WebTarget
from tests.support.farm_cli import wait_for
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

PAGES = {
    "/held-image.html": "<h1>Held image page</h1><img src='/held'>",
    "/to-held.html": "<h1>Link page</h1><a href='/held' style='display:block;width:200px;"
                     "height:40px'>Go nowhere</a>",
    "/hover.html": "<style>.menu .sub{display:none} .menu:hover .sub{display:block}</style>"
                   "<div class=menu style='margin:300px 0 0 400px;width:200px'><p>Menu</p>"
                   "<div class=sub>"
                   "<button>Sub item</button></div></div>",
    "/moving.html": "<style>@keyframes slide{from{left:0}to{left:400px}}"
                    "#m{position:absolute;top:50px;animation:slide 1s linear infinite}</style>"
                    "<button id=m>Moving</button>",
    "/opener.html": "<h1>Opener page</h1><button style='width:200px;height:40px' "
                    "onclick=\"window.open('/popup.html')\">Open popup</button>",
    "/popup.html": "<h1>Popup page</h1>",
    "/confirm.html": "<button style='width:200px;height:40px' onclick=\"this.textContent = "
                     "confirm('Delete it?') ? 'yes' : 'no'\">Delete</button>",
}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The pages above; ``/held`` is a request the server never answers (until the end)."""
    release = threading.Event()

    class Handler(QuietHandler):
        def do_GET(self) -> None:
            if self.path == "/held":
                release.wait()
                return
            body = ("<!doctype html><html><body style='margin:0'>" + PAGES[self.path]
                    + "</body></html>").encode()
            self.send_page(body)

    with serving(Handler) as url:
        yield url
        release.set()


@pytest.fixture
def device(browser: BrowserDevice) -> Iterator[BrowserDevice]:
    """The module's browser with short waits for a page; a call that blocks for good (the
    failure these tests guard against) is ended by killing the browser, so it fails, not
    hangs the test run."""
    saved = browser._wait.timeout
    browser._wait.timeout = 3.0
    guard = threading.Timer(90, browser.kill)
    guard.start()
    yield browser
    guard.cancel()
    browser._wait.timeout = saved
    browser.end_session()
    if not browser.healthy():
        browser.close()
        browser.open()


def target(site: str, path: str) -> WebTarget:
    """A browser agent's page: new tabs open as tabs, and it works on in them."""
    return WebTarget(url=site + path, viewport_width=800, viewport_height=600,
                     follow_new_pages=True, same_tab=False)


def node(tree: UITree, text: str):
    hits = [n for n in tree.nodes if n.text == text]
    assert len(hits) == 1, (text, [n.text for n in tree.nodes])
    return hits[0]


def test_a_resource_that_never_comes_leaves_the_page_usable(
        device: BrowserDevice, site: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_mod, "LOAD_GRACE_S", 0.5)
    device.start_session(target(site, "/held-image.html"))   # its load event never comes
    assert "Held image page" in device.screen_text()
    assert device.screenshot().startswith(b"\x89PNG")


def test_a_server_that_never_answers_fails_the_case_not_the_browser(
        device: BrowserDevice, site: str) -> None:
    with pytest.raises(StepFailed, match="the server sent no answer within 3 s"):
        device.start_session(target(site, "/held"))
    assert device.healthy()


def test_a_navigation_its_server_never_answers_fails_the_step(
        device: BrowserDevice, site: str) -> None:
    device.start_session(target(site, "/to-held.html"))
    device.tap(*node(device.hierarchy(), "Go nowhere").rect.center)
    # the page answers no script until the document comes: farm sends none and gives up
    with pytest.raises(StepFailed, match="next document did not come within 3s"):
        device.screen_text()
    with pytest.raises(StepFailed, match="next document did not come"):
        device.hierarchy()             # at once: that navigation was waited for already
    assert device.capture_evidence()() is not None   # the report still gets its image
    assert device.healthy()


def test_a_hover_menu_is_in_the_next_read(device: BrowserDevice, site: str) -> None:
    device.start_session(target(site, "/hover.html"))
    menu = node(device.hierarchy(), "Menu")     # read once: the next read may reuse it
    assert "Sub item" not in [n.text for n in device.hierarchy().nodes]
    device.hover(*menu.rect.center)             # :hover shows the item, no DOM mutation
    assert node(device.hierarchy(), "Sub item")
    assert "Sub item" in device.screen_text()


def test_an_element_that_moves_by_itself_is_read_where_it_is(
        device: BrowserDevice, site: str) -> None:
    device.start_session(target(site, "/moving.html"))
    first = node(device.hierarchy(), "Moving").rect
    # a running animation moves it without any event: a read must not reuse the last one
    wait_for(lambda: node(device.hierarchy(), "Moving").rect != first, 30,
             "a read that sees the element move")


def test_a_popup_that_closes_itself_hands_back_its_opener(
        device: BrowserDevice, site: str) -> None:
    device.start_session(target(site, "/opener.html"))
    device.tap(*node(device.hierarchy(), "Open popup").rect.center)
    wait_for(lambda: "Popup page" in device.screen_text(), 30, "the popup followed")
    device.run_script("window.close()", 5)
    wait_for(lambda: "Opener page" in device.screen_text(), 30, "back on the opener")
    assert device.healthy()


def test_the_last_tab_closing_itself_fails_the_step_not_the_browser(
        device: BrowserDevice, site: str) -> None:
    device.start_session(target(site, "/opener.html"))
    device.tap(*node(device.hierarchy(), "Open popup").rect.center)
    wait_for(lambda: "Popup page" in device.screen_text(), 30, "the popup followed")
    device._context.pages[0].close()            # the opener goes first (a user closed it)
    device.run_script("window.close()", 5)

    def closed() -> bool:
        try:
            device.screen_text()
        except StepFailed as exc:
            assert "closed its tab" in str(exc)
            return True
        return False
    wait_for(closed, 30, "the step failed on the closed tab")
    assert device.healthy()


def test_a_browser_killed_under_a_case_is_lost_not_a_tab_the_page_closed(
        device: BrowserDevice, site: str) -> None:
    """Chromium killed (a crash, the OOM killer) while a case waits (a sleep step): its tabs
    are closed too, but by no page: the device is lost (the case retried elsewhere, the device
    counted), not a step failure saying the page closed its tab."""
    import os
    import signal

    from farm.errors import DeviceLost
    device.start_session(target(site, "/opener.html"))
    device.screen_text()
    os.kill(device.browser_pid, signal.SIGKILL)

    def closed() -> bool:       # Playwright hears of it (as during a sleep step's wait)
        try:
            device._page.wait_for_timeout(20)
        except Exception:       # noqa: BLE001 - the page went with its browser
            pass
        return device._page.is_closed()
    wait_for(closed, 30, "Playwright saw the page close with its browser")

    def lost() -> bool:
        try:
            device.screen_text()
        except DeviceLost:
            return True
        return False
    wait_for(lost, 30, "the read failed with the device lost")
    assert not device.healthy()


def test_a_confirm_the_page_opens_is_answered_and_logged(
        device: BrowserDevice, site: str, caplog: pytest.LogCaptureFixture) -> None:
    device.start_session(target(site, "/confirm.html"))
    with caplog.at_level(logging.WARNING, logger="farm.devices.browser"):
        device.tap(*node(device.hierarchy(), "Delete").rect.center)
        wait_for(lambda: "no" in device.screen_text().split(), 30, "the confirm answered")
    assert 'opened a confirm dialog "Delete it?" and farm answered Cancel' in caplog.text
