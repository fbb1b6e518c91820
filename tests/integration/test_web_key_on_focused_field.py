"""aiKeyboardPress on a text field: the key goes to the field the step names, with no click on
it, whether the page's last read found the focus already on that field (typed into just
before: nothing is asked of the page before the key) or on another one (the named field gets
the focus first). Real Chromium."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from farm.agent.actions import ActionContext, KeyboardPress, Locate
from farm.suite.model import WebTarget
from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

PAGE = b"""<!doctype html><title>Keys</title><body>
<label for="first">First</label><input id="first" autofocus>
<label for="second">Second</label><input id="second">
<script>window.__downs = 0; addEventListener('mousedown', () => window.__downs++, true);
</script></body>"""


class Pages(QuietHandler):
    def do_GET(self) -> None:
        self.send_page(PAGE)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving(Pages) as url:
        yield url


def press_on(device: Any, label: str, key: str) -> None:
    """aiKeyboardPress on the field ``label`` names, as a step runs it (a fresh read first)."""
    node = next(n for n in device.hierarchy().nodes if n.editable and n.label == label)
    loc = Locate(prompt=label, rect=node.rect, node=node.id)
    KeyboardPress(keyName=key, locate=loc).run(ActionContext(device, lambda t: t))


def values(device: Any) -> list[str]:
    return device.run_script("[first.value, second.value, document.activeElement.id, "
                             "window.__downs]", 5)


def test_a_key_goes_to_the_named_field_focused_or_not(browser: Any, site: str) -> None:
    browser.start_session(WebTarget(url=f"{site}/keys.html"))
    try:
        assert values(browser) == ["", "", "first", 0]
        press_on(browser, "First", "a")            # the focus is on it already
        press_on(browser, "First", "b")
        assert values(browser) == ["ab", "", "first", 0]
        press_on(browser, "Second", "c")           # the focus is on First: Second gets it
        assert values(browser) == ["ab", "c", "second", 0]
        press_on(browser, "First", "d")
        assert values(browser) == ["abd", "c", "first", 0]
    finally:
        browser.end_session()
