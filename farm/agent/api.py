"""The Agent API: what a tester does on a device, one call per intent.

The zero-token part works with no model: targets go through the locator chain (XPath, UI-tree
text), checks read the screen's text. With a `ModelSet` the chain gains model tiers (plan bbox
first, AI locate / deepLocate last) and ai_act / ai_assert / ai_query work; without one they
raise NeedsModel (the case is skipped).

Secrets: prompts carry task text as written (``${NAME}`` placeholders); ``resolve`` turns a
placeholder into its value only when an action types it on the device.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Callable

from farm.agent.locator import LocateHit, LocatorChain, default_chain, normalise
from farm.devices.base import Device
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import AssertionFailed, CaseTimeout, NeedsModel, StepFailed
from farm.llm.client import Usage

if TYPE_CHECKING:
    from farm.agent.loop import LoopLimits
    from farm.config import Settings
    from farm.llm.models import ModelSet

log = logging.getLogger("farm.agent")

SCROLL_DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
SCROLL_TO = {"scrollToBottom": "down", "scrollToTop": "up", "scrollToLeft": "left",
             "scrollToRight": "right"}


class Agent:
    """Drives one device. ``deadline`` (monotonic seconds) bounds every wait.

    ``Agent(device, settings)`` uses the models the settings configure (FARM_MODEL, ...);
    ``Agent(device)`` works with the zero-token tiers only.
    """

    def __init__(self, device: Device, model: "ModelSet | Settings | None" = None,
                 chain: LocatorChain | None = None,
                 grabber: ScreenshotGrabber | None = None,
                 deadline: Callable[[], float] | None = None,
                 resolve: Callable[[str], str] | None = None,
                 limits: "LoopLimits | None" = None, context: str | None = None) -> None:
        from farm.agent.loop import LoopLimits
        from farm.config import Settings
        if isinstance(model, Settings):   # Agent(device, settings): build the configured models
            from farm.llm.models import build_models
            model = build_models(model)
        self.device = device
        self.models = model
        self.grabber = grabber or ScreenshotGrabber(device)
        self.chain = chain or (default_chain() if model is None else model_chain(self))
        self._deadline = deadline or (lambda: float("inf"))
        self.resolve = resolve or (lambda text: text)
        self.limits = limits or LoopLimits()
        self.context = context
        self.usage = Usage()
        self.last_tiers: list[str] = []

    @property
    def model(self) -> "ModelSet | None":
        return self.models

    # ---- helpers -------------------------------------------------------------------------
    def remaining(self) -> float:
        return self._deadline() - time.monotonic()

    def _acted(self) -> None:
        self.grabber.invalidate()

    # ---- locating and acting ---------------------------------------------------------------
    def ai_locate(self, prompt: str, xpath: str | None = None,
                  deep_locate: bool = False) -> LocateHit:
        return self.chain.locate(prompt or "", self.device, xpath=xpath,
                                 deep_locate=deep_locate)

    def ai_tap(self, prompt: str, xpath: str | None = None,
               deep_locate: bool = False) -> LocateHit:
        hit = self.ai_locate(prompt, xpath, deep_locate)
        self.device.tap(*hit.rect.center)
        self._acted()
        return hit

    def ai_hover(self, prompt: str, xpath: str | None = None,
                 deep_locate: bool = False) -> LocateHit:
        hit = self.ai_locate(prompt, xpath, deep_locate)
        self.device.hover(*hit.rect.center)
        self._acted()
        return hit

    def ai_input(self, prompt: str | None, value: str, mode: str = "replace",
                 xpath: str | None = None, deep_locate: bool = False) -> LocateHit | None:
        hit = None
        if prompt or xpath:
            hit = self.ai_locate(prompt or "", xpath, deep_locate)
            self.device.tap(*hit.rect.center)
        if mode in ("replace", "clear"):
            self.device.clear_text()
        if mode != "clear" and value:
            self.device.type_text(value)
        self._acted()
        return hit

    def ai_keyboard_press(self, key: str, prompt: str | None = None,
                          xpath: str | None = None,
                          deep_locate: bool = False) -> LocateHit | None:
        hit = None
        if prompt or xpath:
            hit = self.ai_locate(prompt or "", xpath, deep_locate)
            self.device.tap(*hit.rect.center)
        self.device.press(key)
        self._acted()
        return hit

    def ai_scroll(self, prompt: str | None = None, direction: str = "down",
                  scroll_type: str = "singleAction", distance: int | None = None,
                  xpath: str | None = None, deep_locate: bool = False) -> LocateHit | None:
        width, height = self.device.size()
        hit = None
        x, y = width // 2, height // 2
        if prompt or xpath:
            hit = self.ai_locate(prompt or "", xpath, deep_locate)
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

    # ---- model-backed ------------------------------------------------------------------------
    def ask(self, purpose: str, messages: list[dict[str, Any]], client: Any = None) -> str:
        """One model call; its usage is added to ``self.usage``."""
        self.check_time()
        reply = (client or self.models.plan).complete(messages)
        self.usage.add(reply.usage)
        log.debug("model %s (%s): %d+%d tokens", purpose, getattr(client, "name", "?"),
                  reply.usage.prompt_tokens, reply.usage.completion_tokens)
        return reply.text

    def check_time(self) -> None:
        if self.remaining() <= 0:
            raise CaseTimeout("case timed out during an ai step")

    def _models(self, what: str) -> ModelSet:
        if self.models is None:
            raise NeedsModel(what)
        return self.models

    def ai_act(self, task: str, deep_think: bool = False, deep_locate: bool = False,
               context: str | None = None) -> dict[str, Any]:
        """Carry out ``task`` with the plan-act-replan loop. Numbered lines = strict mode."""
        from farm.agent.loop import ActLoop
        self._models(f'ai "{task}"')
        loop = ActLoop(self, self.limits)
        try:
            result = loop.run(task, deep_think=deep_think, deep_locate=deep_locate,
                              context=context or self.context)
        finally:
            self.last_tiers = list(loop.result.tiers)
        return result.as_output()

    def _look(self) -> bytes:
        self.grabber.invalidate()   # judge the screen as it is now, not a cached frame
        return self.grabber.grab()

    def ai_assert(self, assertion: str, error_message: str | None = None) -> None:
        from farm.agent.insight import judge
        models = self._models(f'aiAssert "{assertion}"')
        passed, why = judge(self.ask, models.judge, assertion, self._look())
        if not passed:
            raise AssertionFailed(error_message or f'aiAssert "{assertion}" failed: {why}')

    def ai_wait_for(self, assertion: str, timeout_s: float = 30.0,
                    interval_s: float = 1.0) -> None:
        from farm.agent.insight import judge
        models = self._models(f'aiWaitFor "{assertion}"')
        limit = time.monotonic() + min(timeout_s, max(self.remaining(), 0))
        why = ""
        while True:
            passed, why = judge(self.ask, models.judge, assertion, self._look())
            if passed:
                return
            if time.monotonic() + interval_s > limit:
                if self.remaining() <= interval_s:
                    raise CaseTimeout(f'case timed out waiting for "{assertion}"')
                raise AssertionFailed(f'aiWaitFor "{assertion}" not true within '
                                      f"{timeout_s:g}s: {why}")
            time.sleep(interval_s)

    def ai_query(self, query: str, kind: str = "aiQuery") -> Any:
        from farm.agent.insight import query as extract
        models = self._models(f'{kind} "{query}"')
        return extract(self.ask, models.plan, query, kind, self._look())

    def ai_boolean(self, query: str) -> bool:
        return self.ai_query(query, "aiBoolean")

    def ai_number(self, query: str) -> float:
        return self.ai_query(query, "aiNumber")

    def ai_string(self, query: str) -> str:
        return self.ai_query(query, "aiString")


def model_chain(agent: Agent) -> LocatorChain:
    """Plan bbox → XPath → UI-tree text → AI locate (deepLocate when asked)."""
    from farm.agent.locator import TextMatchTier, XPathTier
    from farm.agent.model_tiers import AILocateTier, PlanBboxTier
    models = agent.models
    assert models is not None
    ai = AILocateTier(lambda purpose, messages: agent.ask(purpose, messages, models.locate),
                      models.locate_family, agent.grabber.grab)
    return LocatorChain([PlanBboxTier(), XPathTier(), TextMatchTier(), ai], has_model_tier=True)
