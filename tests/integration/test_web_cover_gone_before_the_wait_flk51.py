"""A tap on a target a loading spinner covers, real Chromium: farm checks what the tap would
hit, then waits for the page to change before it checks again. On a loaded machine the
spinner's own timer may fire between those two round trips; the wait counts from the check,
so the spinner already gone is a change and the tap goes through (it used to wait out the
5 s a covered target gets from "now", then fail the step: covered by the spinner that was
no longer there)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from farm.agent.action_base import Locate
from farm.devices.browser import BrowserDevice
from farm.suite.model import WebTarget

pytestmark = pytest.mark.integration

# A spinner over the button that the page takes away itself (window.done(): its timer, fired
# when the test says); nothing scrolls (the page fits the viewport, the button at its middle)
SPINNER = """<!doctype html><html><body style="margin:0;overflow:hidden">
<button id="pay" style="position:absolute;left:340px;top:280px;width:120px;height:40px"
  onclick="document.getElementById('o').textContent='Pay clicked'">Pay now</button>
<div id="spin" style="position:absolute;left:0;top:0;width:800px;height:600px;
  background:rgba(255,255,255,.9)">Loading…</div>
<p id="o" style="position:absolute;left:0;top:0">unpaid</p>
<script>window.done = () => document.getElementById('spin').remove();</script>
</body></html>"""


@pytest.fixture
def page_target(tmp_path: Path) -> WebTarget:
    (tmp_path / "spinner.html").write_text(SPINNER)
    return WebTarget(url=(tmp_path / "spinner.html").as_uri(), viewport_width=800,
                     viewport_height=600)


class _TimerBetween:
    """The device, with the page's timer firing right after the check before the tap found
    the button covered, before farm's next round trip (as on a slow machine)."""

    def __init__(self, device: BrowserDevice) -> None:
        self._device, self.fired = device, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        nx, ny, cover = self._device.tap_point(node, x, y)
        if cover and not self.fired:
            self.fired += 1
            self._device.run_script("window.done()", 5)
        return nx, ny, cover


def test_a_spinner_gone_between_the_check_and_the_wait_lets_the_tap_through_flk51(
        page: BrowserDevice) -> None:
    button = next(n for n in page.hierarchy().nodes if n.text == "Pay now")
    target = Locate(prompt="Pay now", rect=button.rect, node=button.id)
    device = _TimerBetween(page)
    x, y = target.reachable(device, "a tap")
    assert device.fired == 1      # (the check did find the spinner over it)
    page.tap(x, y)
    assert page.run_script("document.getElementById('o').textContent", 5) == "Pay clicked"
