"""Tabs the page opened that Chromium has and Playwright has not told of yet.

A tap on a link with target=_blank (or a button calling window.open) has its new tab in
Chromium before the tap returns, but Playwright announces it (its context's ``page`` event)
only a moment later, once it has set the tab up: a check right after the tap read the old tab.
So, when the page farm acts on asked for a window (``Page.windowOpen`` on one of its DevTools
sessions, however many), the next read or action first compares Chromium's tabs whose opener
is that page (``Target.getTargets``: one round trip) with the open tabs Playwright has of it,
and waits for Playwright while Chromium has more. A window Chromium blocked (a sandboxed
frame) has no tab, a tab that closed (one that became a download) is in neither list, a tab
Playwright told of already is in both: none of them is waited for."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from farm.devices.web.page_wait import loop_future, wait_on

log = logging.getLogger(__name__)

# At most this long for Playwright to tell of a tab Chromium has (it takes milliseconds)
NEW_TAB_WAIT_S = 5.0
# Chromium is asked again this often meanwhile (a tab it closed before Playwright told of it)
LOOK_AGAIN_S = 0.2


class TabsOpening:
    """The windows the page farm acts on asked to open, and the wait for their tabs."""

    def __init__(self, name: str):
        self.name = name
        self._asked: Any = None       # the page that asked for a window since the last look
        self._ids: tuple[Any, str] = (None, "")          # a page and its DevTools target id
        self._browser: tuple[Any, Any] = (None, None)    # a browser and its DevTools session
        self._wake: Any = None

    def asked(self, page: Any) -> None:
        """``page`` asked for a window (Page.windowOpen on a DevTools session of it)."""
        self._asked = page

    def came(self) -> None:
        """Playwright told of a new tab (its context's ``page`` event)."""
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def reset(self) -> None:
        self._asked, self._ids = None, (None, "")

    def pending(self, page: Any) -> bool:
        """Whether ``page``, the one farm acts on, asked for a window since the last look."""
        return self._asked is not None and self._asked is page

    def await_tabs(self, page: Any, browser: Any, context: Any,
                   devtools: Callable[[], Any]) -> None:
        """Wait, up to NEW_TAB_WAIT_S, until Playwright has told of each open tab Chromium has
        whose opener is ``page`` (``devtools()``: its DevTools session). Best effort: an error
        (the page or browser going away) ends the wait, and the next call says what is wrong."""
        self._asked = None
        try:
            mine = self._target_id(page, devtools)
            until = time.monotonic() + NEW_TAB_WAIT_S
            while self._unannounced(browser, context, page, mine) > 0:
                left = until - time.monotonic()
                if left <= 0:
                    log.info("%s: a tab the page opened was not set up within %g s; going "
                             "on", self.name, NEW_TAB_WAIT_S)
                    return
                self._wake = loop_future(page)
                if self._wake is None:
                    return
                wait_on(page, self._wake, min(left, LOOK_AGAIN_S))
        except Exception as exc:
            log.debug("%s: no look for new tabs: %s", self.name, exc)
        finally:
            self._wake = None

    def _target_id(self, page: Any, devtools: Callable[[], Any]) -> str:
        if self._ids[0] is not page:
            self._ids = (page, devtools().send("Target.getTargetInfo")["targetInfo"]["targetId"])
        return self._ids[1]

    def _unannounced(self, browser: Any, context: Any, page: Any, mine: str) -> int:
        """How many more open tabs opened by ``page`` Chromium has than Playwright."""
        if self._browser[0] is not browser:
            self._browser = (browser, browser.new_browser_cdp_session())
        targets = self._browser[1].send("Target.getTargets")["targetInfos"]
        chromium = sum(1 for t in targets if t.get("type") == "page"
                       and t.get("openerId") == mine)
        known = sum(1 for p in context.pages if not p.is_closed() and p.opener() is page)
        return chromium - known
