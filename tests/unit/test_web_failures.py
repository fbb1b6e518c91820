"""Which browser errors are a page read racing a navigation (read again on the new document)
and which mean the browser is gone (farm.devices.web.failures)."""

import pytest

from farm.devices.web.failures import lost, raced_navigation


@pytest.mark.parametrize("message", [
    # page.evaluate while the document goes away
    "Page.evaluate: Execution context was destroyed, most likely because of a navigation",
    # Runtime.evaluate over the page's DevTools session (farm's own page reads)
    "CDPSession.send: Protocol error (Runtime.evaluate): Inspected target navigated or closed",
    "CDPSession.send: Protocol error (Runtime.evaluate): Cannot find default execution context",
    "CDPSession.send: Protocol error (Runtime.evaluate): Execution context was destroyed.",
])
def test_a_read_that_lost_its_document_is_a_race(message):
    assert raced_navigation(Exception(message)) and not lost(Exception(message))


@pytest.mark.parametrize("message", [
    "CDPSession.send: Target page, context or browser has been closed",
    "Page.evaluate: Target crashed",
    "page script failed: TypeError: boom",
])
def test_a_gone_browser_or_a_failing_script_is_not_a_race(message):
    assert not raced_navigation(Exception(message))
