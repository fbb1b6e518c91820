"""A simulated iPhone's pages' JavaScript dialogs (alert, confirm, prompt), held open as a
phone holds them: a web view shows them as the app's alert, in front until a button answers it,
and WebDriverAgent's ``/alert/*`` reads and answers it. Playwright dismisses a dialog nobody
listens for at once, so a suite written against the simulator never met one.

While a dialog is open its page is blocked: Chromium answers no script, capture or input for it
(each waits until the dialog is answered). What the screen was doing when one opened is left to
finish then (`PageDialogs.unless_opened`), and the screen is shown as it was last captured.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

log = logging.getLogger(__name__)
POLL_S = 0.05      # how often a call waiting on a page looks for a dialog it opened


class PageDialogs:
    """The dialogs one screen's pages opened and nobody answered yet, by page."""

    def __init__(self) -> None:
        self._open: dict[Any, Any] = {}

    def watch(self, page: Any) -> None:
        """Hold the dialogs ``page`` opens (a new page of the screen)."""
        page.on("dialog", lambda dialog: self._opened(page, dialog))
        page.on("close", lambda _: self._open.pop(page, None))

    def _opened(self, page: Any, dialog: Any) -> None:
        if dialog.type == "beforeunload":     # (a phone's web view asks nothing on leaving)
            asyncio.ensure_future(dialog.accept())
            return
        self._open[page] = dialog

    def on(self, page: Any) -> Any | None:
        """The dialog open on ``page`` (Playwright's Dialog: type, message), or None."""
        return self._open.get(page) if page is not None else None

    async def answer(self, page: Any, accept: bool) -> None:
        """Close ``page``'s dialog with its accepting button (OK) or the other (Cancel); a
        prompt's answer is its default text."""
        dialog = self._open.pop(page, None)
        if dialog is None:
            return
        await (dialog.accept(dialog.default_value) if accept and dialog.type == "prompt"
               else dialog.accept() if accept else dialog.dismiss())

    async def unless_opened(self, front: Callable[[], Any], work: Awaitable[Any]) -> Any:
        """``work``'s result, or None as soon as the page in front (``front()``) has a dialog
        open: what it waits for comes once the dialog is answered, and is left to finish
        then (its result unused)."""
        task = asyncio.ensure_future(work)
        while not task.done():
            if self.on(front()) is not None:
                task.add_done_callback(_unused)
                return None
            await asyncio.wait({task}, timeout=POLL_S)
        return task.result()


def _unused(task: "asyncio.Future[Any]") -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("sim screen: a call a dialog held ended: %s", task.exception())
