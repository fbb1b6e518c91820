"""The Agent API: what a tester does on a device, one call per intent.

The zero-token part works with no model: targets go through the locator chain (XPath, UI-tree
text), checks read the screen's text. Calls that need a model raise NeedsModel until a model
client is configured (the planning loop plugs in here).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from farm.agent.locator import LocateHit, LocatorChain, default_chain, normalise
from farm.devices.base import Device
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import AssertionFailed, CaseTimeout, NeedsModel, StepFailed

SCROLL_DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
SCROLL_TO = {"scrollToBottom": "down", "scrollToTop": "up", "scrollToLeft": "left",
             "scrollToRight": "right"}


class Agent:
    """Drives one device. ``deadline`` (monotonic seconds) bounds every wait."""

    def __init__(self, device: Device, model: Any = None, chain: LocatorChain | None = None,
                 grabber: ScreenshotGrabber | None = None,
                 deadline: Callable[[], float] | None = None) -> None:
        self.device = device
        self.model = model
        self.chain = chain or default_chain()
        self.grabber = grabber or ScreenshotGrabber(device)
        self._deadline = deadline or (lambda: float("inf"))

    # ---- helpers -------------------------------------------------------------------------
    def remaining(self) -> float:
        return self._deadline() - time.monotonic()

    def _acted(self) -> None:
        self.grabber.invalidate()

    def _need_model(self, what: str) -> None:
        if self.model is None:
            raise NeedsModel(what)
        raise NeedsModel(what + " (the planning loop is not available yet)")

    # ---- locating and acting ---------------------------------------------------------------
    def ai_locate(self, prompt: str, xpath: str | None = None) -> LocateHit:
        return self.chain.locate(prompt or "", self.device, xpath=xpath)

    def ai_tap(self, prompt: str, xpath: str | None = None) -> LocateHit:
        hit = self.ai_locate(prompt, xpath)
        self.device.tap(*hit.rect.center)
        self._acted()
        return hit

    def ai_hover(self, prompt: str, xpath: str | None = None) -> LocateHit:
        hit = self.ai_locate(prompt, xpath)
        self.device.hover(*hit.rect.center)
        self._acted()
        return hit

    def ai_input(self, prompt: str | None, value: str, mode: str = "replace",
                 xpath: str | None = None) -> LocateHit | None:
        hit = None
        if prompt or xpath:
            hit = self.ai_locate(prompt or "", xpath)
            self.device.tap(*hit.rect.center)
        if mode in ("replace", "clear"):
            self.device.clear_text()
        if mode != "clear" and value:
            self.device.type_text(value)
        self._acted()
        return hit

    def ai_keyboard_press(self, key: str, prompt: str | None = None,
                          xpath: str | None = None) -> LocateHit | None:
        hit = None
        if prompt or xpath:
            hit = self.ai_locate(prompt or "", xpath)
            self.device.tap(*hit.rect.center)
        self.device.press(key)
        self._acted()
        return hit

    def ai_scroll(self, prompt: str | None = None, direction: str = "down",
                  scroll_type: str = "singleAction", distance: int | None = None,
                  xpath: str | None = None) -> LocateHit | None:
        width, height = self.device.size()
        hit = None
        x, y = width // 2, height // 2
        if prompt or xpath:
            hit = self.ai_locate(prompt or "", xpath)
            x, y = hit.rect.center
        direction = SCROLL_TO.get(scroll_type, direction)
        dx, dy = SCROLL_DIRECTIONS.get(direction, (0, 1))
        if scroll_type in SCROLL_TO:
            for _ in range(10):   # far enough to reach an end on any sane page
                self.device.scroll(x, y, dx * 10 * height, dy * 10 * height)
        else:
            step = distance or int((height if dy else width) * 0.7)
            self.device.scroll(x, y, dx * step, dy * step)
        self._acted()
        return hit

    # ---- deterministic checks ----------------------------------------------------------------
    def screen_text(self) -> str:
        tree = self.device.hierarchy()
        return tree.visible_text() if tree else ""

    def assert_text(self, text: str) -> None:
        if normalise(text) not in normalise(self.screen_text()):
            raise AssertionFailed(f'expected text "{text}" is not on screen')

    def assert_no_text(self, text: str) -> None:
        if normalise(text) in normalise(self.screen_text()):
            raise AssertionFailed(f'text "{text}" is on screen but should not be')

    def wait_for_text(self, text: str, timeout_s: float = 10.0, interval_s: float = 0.2) -> None:
        limit = time.monotonic() + min(timeout_s, max(self.remaining(), 0))
        want = normalise(text)
        while True:
            if want in normalise(self.screen_text()):
                return
            if time.monotonic() >= limit:
                if self.remaining() <= 0:
                    raise CaseTimeout(f'case timed out waiting for text "{text}"')
                raise AssertionFailed(f'text "{text}" did not appear within {timeout_s:g}s')
            time.sleep(interval_s)

    def sleep(self, ms: int) -> None:
        seconds = ms / 1000
        if seconds > self.remaining():
            time.sleep(max(self.remaining(), 0))
            raise CaseTimeout(f"case timed out during sleep {ms} ms")
        time.sleep(seconds)

    def javascript(self, code: str) -> Any:
        if self.device.platform != "web":
            raise StepFailed("javascript steps only run on web targets")
        out = self.device.run_script(code, timeout_s=max(self.remaining(), 0.1))
        self._acted()
        return out

    # ---- model-backed (planning arrives with the agent issue) ---------------------------------
    def ai_act(self, task: str, deep_think: bool = False, **_: Any) -> None:
        self._need_model(f'ai "{task}"')

    def ai_assert(self, assertion: str, error_message: str | None = None) -> None:
        self._need_model(f'aiAssert "{assertion}"')

    def ai_wait_for(self, assertion: str, timeout_s: float = 30.0) -> None:
        self._need_model(f'aiWaitFor "{assertion}"')

    def ai_query(self, query: str, kind: str = "aiQuery") -> Any:
        self._need_model(f'{kind} "{query}"')
