"""The Agent API: what a tester does on a device, one call per intent.

The zero-token part works with no model: targets go through the locator chain (XPath, UI-tree
text), checks read the screen's text. With a `ModelSet` the chain gains model tiers (plan bbox
first, AI locate / deepLocate last) and ai_act / ai_assert / ai_query work; without one they
raise NeedsModel (the case is skipped).

One action space: ``ai_tap`` & co. build the same action a model would plan (`Tap`, `Input`,
... in farm.agent.actions) and run it through the same TaskRunner (Locate tasks, then the
action), as ``call_action`` does for a suite step and the ai_act loop for a planned action.

Variables: what the model reads of a suite's text (a task, an assertion, a query, a target)
has the values of non-secret variables in it and secrets as their ``${NAME}`` placeholders
(`Agent.for_model`; the plan and locate caches are keyed by that text, so a plan made for one
value is not replayed for another). ``resolve`` turns a placeholder into its value only on the
device: when an action types it, and for the zero-token locate tiers (an XPath, a UI-tree
text match), whose answer never leaves it. Text a model wrote (the actions ai_act plans) goes
through ``resolve_planned`` instead, which `run_case` restricts to the names the suite
declares: a reply cannot get ``${ANY_ENV_VAR}`` typed. ``mask`` hides secret values in what
goes back to the model as feedback, and says which variables are secrets.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Collection

from farm.agent.actions import (Action, ActionContext, Hover, Input, KeyboardPress, Locate,
                                Scroll, Sleep, Tap, registry)
from farm.agent.locator import (LocateContext, LocateHit, LocatorChain, LocatorTier,
                                TextMatchTier, XPathTier, normalise)
from farm.agent.images import images_key, inline_image
from farm.agent.limits import LoopLimits
from farm.agent.tasks import PlanError, TaskRunner, make_action, tasks_for
from farm.devices.base import Device, UITree
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import (AssertionFailed, CaseTimeout, FarmError, Interrupted, LocateError,
                         ModelUnavailable, NeedsModel, StepFailed)
from farm.suite.vars import model_text
from farm.text import word_match
from farm.usage import Usage

# Imported where used, not here: the ai_act loop, the insight calls (aiAssert, aiQuery, ...),
# the plan cache and the model client are needed only by steps that call a model, and a run of
# zero-token steps (most of a suite) would pay for importing them at start.
if TYPE_CHECKING:
    from farm.agent.insight import Look
    from farm.cache.case import CaseCache
    from farm.config import Settings
    from farm.llm.models import ModelSet

log = logging.getLogger("farm.agent")
NO_REASON = "the model gave no reason"   # a verdict of false without a "thought"

# (the hit of its first Locate task, what the action returned)
ActionOutcome = tuple[LocateHit | None, Any]
# (text a model wrote, names left unexpanded are appended here) -> the text to use
PlannedResolver = Callable[[str, list[str]], str]


class Agent:
    """Drives one device. ``deadline`` (monotonic seconds) bounds every wait.

    ``Agent(device, settings)`` uses the models the settings configure (FARM_MODEL, ...);
    ``Agent(device)`` works with the zero-token tiers only. ``resolve`` expands ``${NAME}``
    in suite text; ``resolve_planned`` in text a model planned (default: ``resolve``);
    ``mask`` hides secret values (without one no variable is expanded for the model).
    ``on_spend`` is called after each model call's usage is added to ``usage`` (a worker sends
    the spend at once: a process killed right after a call had paid for it); its errors are
    logged, never the step's.
    """

    def __init__(self, device: Device, model: "ModelSet | Settings | None" = None,
                 chain: LocatorChain | None = None,
                 grabber: ScreenshotGrabber | None = None,
                 deadline: Callable[[], float] | None = None,
                 resolve: Callable[[str], str] | None = None,
                 limits: LoopLimits | None = None, context: str | None = None,
                 resolve_planned: PlannedResolver | None = None,
                 mask: Callable[[str], str] | None = None,
                 cache: "CaseCache | None" = None,
                 locate_off: Collection[str] = (), max_scrolls: int = 10,
                 cancel: "threading.Event | None" = None,
                 on_spend: Callable[[], None] | None = None) -> None:
        from farm.config import Settings
        if isinstance(model, Settings):   # Agent(device, settings): build the configured models
            from farm.llm.models import build_models
            locate_off = locate_off or model.locate_off
            max_scrolls = model.locate_max_scrolls
            model = build_models(model)
        self.device = device
        self.models = model
        self.grabber = grabber or ScreenshotGrabber(device)
        self.by_ocr = False          # the last text check read the screen by OCR
        self.screen_read = ""         # the text the last text check read (its hint)
        self.screen_tree: Any = None  # the UI tree it read it from (phones), if any
        self._deadline = deadline or (lambda: float("inf"))
        self.resolve = resolve or (lambda text: text)
        self.resolve_planned: PlannedResolver = resolve_planned or (
            lambda text, undeclared: self.resolve(text))
        self.mask = mask or (lambda text: text)
        self.cancel = cancel            # set when the run stops (Ctrl-C, SIGTERM): waits end
        self._knows_secrets = mask is not None
        self.cache = cache
        self.chain = chain or (
            zero_token_chain(self.resolve, cache, locate_off, max_scrolls, self.grabber.grab)
            if model is None else model_chain(self, locate_off, max_scrolls))
        self.limits = limits or LoopLimits()
        self.context = context
        self.usage = Usage()
        self.on_spend = on_spend
        self.last_tiers: list[str] = []
        self.last_cut = False        # the last model reply ended at its token limit
        self.last_rounds: int | None = None     # plan-act rounds of the last ai_act
        self.last_act: dict[str, Any] | None = None   # its account (as_output), failed or not
        self.last_notes: list[str] = []     # what the last step says all the same (a replan)
        self.acted: list[dict[str, Any]] = []   # where actions touched the device (marks)

    @property
    def model(self) -> "ModelSet | None":
        return self.models

    # ---- helpers -------------------------------------------------------------------------
    def remaining(self) -> float:
        return self._deadline() - time.monotonic()

    def _acted(self) -> None:
        self.grabber.invalidate()

    def for_model(self, text: str) -> str:
        """Suite text as the model reads it (Midscene substitutes variables before a script
        runs): non-secret variables expanded, a secret's ``${NAME}`` kept as written. A secret
        is a variable whose value ``mask`` hides (``secrets:``) or whose name marks a
        credential (``…_KEY``, ``_TOKEN``, ``_SECRET``, ``_PASSWORD``, as
        `farm.config.environment_secrets` says). ``resolve`` of the result is ``resolve`` of
        ``text``: the device still gets every value."""
        if not self._knows_secrets:
            return text
        return model_text(text, self._shown_value)

    def _shown_value(self, name: str, reference: str) -> str | None:
        from farm.config import environment_secrets
        try:
            value = self.resolve(reference)
        except FarmError:             # not defined here: the model reads it as written
            return None
        if self.mask(value) != value or environment_secrets({name: value}):
            return None
        return value

    # ---- the action space ------------------------------------------------------------------
    def locate(self, loc: Locate, resolve: Callable[[str], str] | None = None,
               **hints: Any) -> LocateHit:
        """What a Locate task runs: the chain, cheapest tier first. ``hints`` are for model
        tiers (plan_rect, trust_plan); the XPath and the text tier's target are resolved with
        ``resolve`` (default `resolve`; the ai_act loop passes its restricted one): neither
        answer leaves the device."""
        resolve = resolve or self.resolve
        xpath = resolve(loc.xpath) if loc.xpath else None
        hints.setdefault("deep_locate", loc.deepLocate)
        hints.setdefault("editable", loc.editable)     # it types: a text field wins a tie
        if loc.images and not hints.get("images"):
            hints["images"] = loc.images
        return self.chain.locate(loc.prompt, self.device, xpath=xpath, resolve=resolve, **hints)

    def task_runner(self, locate: Callable[[Locate], LocateHit] | None = None,
                    resolve: Callable[[str], str] | None = None) -> TaskRunner:
        """A TaskRunner on this device; ``locate`` replaces `locate` (the ai_act loop adds the
        planner's box as a hint) and ``resolve`` what actions resolve values with."""
        keeps_plans = self.cache is not None and self.cache.active and self.cache.writing
        return TaskRunner(locate=locate or self.locate,
                          ctx=ActionContext(self.device, resolve or self.resolve,
                                            self.remaining, acted=self.acted,
                                            cancel=self.cancel,
                                            idle=lambda: self.grabber.idle(),
                                            mask=self.mask),
                          on_acted=self._acted, remember_boxes=keeps_plans,
                          keep=self.cache.safe if self.cache is not None else lambda text: True)

    def perform(self, action: Action) -> ActionOutcome:
        """Run ``action`` (its Locate tasks first); a failure raises what the task raised.
        Its targets are suite text: the locate tiers get them as the model reads them
        (`for_model`; the on-device tiers resolve the secrets in them)."""
        tasks = tasks_for(action)
        for task in tasks[:-1]:
            loc: Locate = getattr(action, task.field or "")
            loc.prompt = self.for_model(loc.prompt)
        failed = self.task_runner().run(tasks)
        if failed is not None:
            raise failed.exception or StepFailed(failed.error)
        hit = next((t.hit for t in tasks if t.hit is not None), None)
        return hit, tasks[-1].output

    def call_action(self, name: str, params: dict[str, Any]) -> ActionOutcome:
        """Run the action ``name`` of this platform's action space with ``params`` (as a model
        would plan them: Midscene's callActionInActionSpace)."""
        try:
            action = make_action(name, params, registry(self.device.platform))
        except PlanError as exc:
            raise StepFailed(f"{exc} (on {self.device.platform})") from None
        return self.perform(action)

    # ---- locating and acting ---------------------------------------------------------------
    def ai_locate(self, prompt: str, xpath: str | None = None, deep_locate: bool = False,
                  images: list[dict[str, str]] | None = None) -> LocateHit:
        """Where ``prompt`` (or ``xpath``) is on screen; nothing is touched. ``images``: the
        prompt's reference images (farm.agent.locator.WORD_TIERS)."""
        return self.locate(Locate(prompt=self.for_model(prompt or ""), xpath=xpath,
                                  deepLocate=deep_locate, images=images or None))

    def ai_tap(self, prompt: str, xpath: str | None = None,
               deep_locate: bool = False) -> LocateHit:
        """Tap the element ``prompt`` describes: the `Tap` action a model would plan."""
        hit, _ = self.perform(Tap(locate=_target(prompt, xpath, deep_locate)))
        assert hit is not None
        return hit

    def ai_hover(self, prompt: str, xpath: str | None = None,
                 deep_locate: bool = False) -> LocateHit:
        """Move the pointer over the element (`Hover`; nothing to do on touch screens)."""
        hit, _ = self.perform(Hover(locate=_target(prompt, xpath, deep_locate)))
        assert hit is not None
        return hit

    def ai_input(self, prompt: str | None, value: str, mode: str = "replace",
                 xpath: str | None = None, deep_locate: bool = False) -> LocateHit | None:
        """Type ``value`` (``${NAME}`` resolved as it is typed) into the element, or into the
        focused one without a target (`Input`; mode replace | clear | typeOnly)."""
        action = Input(value=value, mode=mode, locate=_optional_target(prompt, xpath,
                                                                       deep_locate))
        return self.perform(action)[0]

    def ai_keyboard_press(self, key: str, prompt: str | None = None,
                          xpath: str | None = None,
                          deep_locate: bool = False) -> LocateHit | None:
        """Press ``key``, on the element first when one is given (`KeyboardPress`)."""
        action = KeyboardPress(keyName=key, locate=_optional_target(prompt, xpath, deep_locate))
        return self.perform(action)[0]

    def ai_scroll(self, prompt: str | None = None, direction: str = "down",
                  scroll_type: str = "singleAction", distance: int | None = None,
                  xpath: str | None = None, deep_locate: bool = False) -> LocateHit | None:
        """Scroll the page or the element (`Scroll`); a ``scrollTo…`` type scrolls to that
        end whatever ``direction`` says."""
        action = Scroll(direction=direction, scrollType=scroll_type, distance=distance,
                        locate=_optional_target(prompt, xpath, deep_locate))
        return self.perform(action)[0]

    # ---- deterministic checks ----------------------------------------------------------------
    def shows(self, text: str) -> bool:
        """Is ``text`` on the screen? The device's own reading where it has one (a browser's
        rendered text; where the page shows a canvas, what OCR reads too: `_drawn`), else its
        UI tree's visible text, and, where the tree cannot show everything (no text at all, or
        a canvas / WebView: `ocr.needs_pixels`), what OCR reads on a fresh screenshot. A
        screen farm cannot read at all fails the step: an empty reading would pass every
        assertNoText. ``text`` is found only where its ends are word ends ("Count 1" is not in
        "Count 10": `_has`, `ocr.read_has`). ``self.by_ocr`` says whether OCR read it."""
        self.by_ocr = False
        self.screen_read, self.screen_tree = "", None
        read = getattr(self.device, "screen_text", None)
        if read is not None:
            self.screen_read = read()
            return _has(text, self.screen_read) or self._drawn(text)
        tree = self.screen_tree = self.device.hierarchy()
        self.screen_read = tree.visible_text() if tree else ""
        if tree and _has(text, self.screen_read):
            return True
        from farm.agent.ocr import needs_pixels, read_has, read_lines
        if not needs_pixels(tree):
            return False
        png = self._ocr_screenshot(tree)
        if png is None:
            return False      # a canvas OCR cannot read: the tree's text is all there is
        self.by_ocr = True
        self.screen_read = "\n".join(line.text for line in read_lines(png))
        if not self.screen_read.strip() and getattr(self.device, "screenshot_black", False) \
                and not (tree and tree.visible_text().strip()):
            unreadable = StepFailed("cannot read the screen's text: the screenshot is black "
                                    "(the app keeps its screen out of screenshots: FLAG_SECURE) "
                                    "and the UI tree has no text")
            unreadable.for_now = True      # (a wait looks again: a black frame may pass)
            raise unreadable
        return read_has(text, self.screen_read) is not None

    def _ocr_screenshot(self, tree: UITree | None) -> bytes | None:
        """A fresh screenshot for a text check OCR is to read, taken while the OCR engine
        starts (`ocr.warm`: seconds, once a process); that fallback said in farm.log once a
        run (`ocr.say_fallback`). Without OCR, a screen whose tree has text is read by that
        text alone (None), one with none fails the step."""
        from farm.agent.ocr import engine, say_fallback, warm
        warm()
        self.grabber.invalidate()
        try:
            png = self.grabber.grab()
        except FarmError:
            if engine() is not None:
                raise
            png = b""               # (OCR's absence is what the step says)
        if engine() is None:
            if tree and tree.visible_text().strip():
                return None
            raise StepFailed("cannot read the screen's text: the UI tree has none and OCR is "
                             "unavailable (install rapidocr-onnxruntime)")
        empty = not (tree and tree.visible_text().strip())
        say_fallback(self.cancel, getattr(self.device, "name", "device"),
                     "the UI tree is empty" if empty else
                     "the screen shows a canvas or WebView its UI tree cannot read")
        return png

    def _drawn(self, text: str) -> bool:
        """Whether ``text``, not in a browser's rendered text, is what OCR reads on a fresh
        screenshot, when that read saw a canvas that can hold text in the viewport
        (`canvas_shown`: a chart's labels, a Flutter web app draw text no DOM text holds).
        Without such a canvas (no round trip more) or without OCR, the rendered text is all
        there is."""
        from farm.agent.ocr import engine, read_has, read_lines
        shown = getattr(self.device, "canvas_shown", None)
        if shown is None or not shown() or engine() is None:
            return False
        self.grabber.invalidate()
        self.by_ocr = True
        drawn = "\n".join(line.text for line in read_lines(self.grabber.grab()))
        self.screen_read += "\n" + drawn
        return read_has(text, drawn) is not None

    def _how_read(self) -> str:
        """How the last `shows` read the screen, where that may explain a surprise: OCR."""
        if not self.by_ocr:
            return ""
        why = ("the page shows a canvas, whose text is in no DOM text"
               if hasattr(self.device, "screen_text") else "the UI tree has too little text")
        return f" (read by OCR of a screenshot: {why}; OCR can misread)"

    def _missing(self, text: str) -> str:
        """What follows a failed check for ``text``: how the screen was read, then an alert it
        shows and its text closest to ``text`` (`screen_hint`)."""
        from farm.agent.screen_hint import hint
        tree = self.screen_tree
        if tree is None and (not self.by_ocr or hasattr(self.device, "screen_text")):
            try:
                tree = self.device.hierarchy()      # (a browser's text was read without it)
            except FarmError:
                tree = None
        return self._how_read() + hint(text, self.screen_read, tree, self.mask)

    def assert_text(self, text: str) -> None:
        if not self.shows(text):
            raise AssertionFailed(f'expected text "{text}" is not on screen{self._missing(text)}'
                                  + self._loading())

    def _loading(self) -> str:
        """For a check that does not wait (assertText): the page's requests still under way,
        which may have been bringing the text."""
        count = getattr(self.device, "requests_in_flight", None)
        n = count() if callable(count) else 0
        return (f"; the page still had {n} request(s) of its own in flight (fetch / XHR) when "
                "it was read: waitForText waits for a text to come") if n else ""

    def assert_no_text(self, text: str) -> None:
        if self.shows(text):
            from farm.agent.screen_hint import matched_line
            raise AssertionFailed(f'text "{text}" is on screen but should not be'
                                  f'{matched_line(text, self.screen_read, self.mask)}'
                                  f'{self._how_read()}')

    def wait_for_text(self, text: str, timeout_s: float = 10.0, interval_s: float = 0.2) -> None:
        limit = time.monotonic() + min(timeout_s, max(self.remaining(), 0))
        while True:
            unreadable = None
            try:
                if self.shows(text):
                    return
            except StepFailed as exc:    # a black frame may be a moment's (an app starting)
                if not getattr(exc, "for_now", False):
                    raise
                unreadable = exc
            if time.monotonic() >= limit:
                if self.remaining() <= 0:
                    raise CaseTimeout(f'case timed out waiting for text "{text}"')
                if unreadable is not None:
                    raise unreadable
                raise AssertionFailed(f'text "{text}" did not appear within {timeout_s:g}s'
                                      f'{self._missing(text)}')
            self._pause(interval_s, f'text "{text}"')

    def _pause(self, seconds: float, what: str) -> None:
        """The pause between two looks of a wait; Interrupted as soon as the run stops."""
        self.grabber.idle()       # the report's images that are in: to disk, while it waits
        if self.cancel is None:
            time.sleep(seconds)
        elif self.cancel.wait(seconds):
            raise Interrupted(f"interrupted waiting for {what}")

    def sleep(self, ms: int) -> None:
        """Wait ``ms`` milliseconds (`Sleep`); CaseTimeout when the deadline comes first."""
        self.perform(Sleep(timeMs=ms))

    def javascript(self, code: str, timeout_s: float | None = None) -> Any:
        """Run ``code`` in the page: at most ``timeout_s`` (the step's `timeout`: past it the
        step fails) and never past the case's deadline (past it the case timed out)."""
        if self.device.platform != "web":
            raise StepFailed("javascript steps only run on web targets")
        left = max(self.remaining(), 0.1)
        try:
            out = self.device.run_script(code, timeout_s=min(left, timeout_s or left))
        except StepFailed:
            if self.remaining() <= 0:
                raise CaseTimeout("case timed out running javascript") from None
            raise
        self._acted()
        return out

    # ---- model-backed ------------------------------------------------------------------------
    def ask(self, purpose: str, messages: list[dict[str, Any]], client: Any = None,
            until: float | None = None) -> str:
        """One model call, given only the time left of the case (CaseTimeout naming the model
        when that runs out) and the run's stop event (a stopped run stops waiting for the
        model at once: Interrupted); its usage is added to ``self.usage``. A wait the model
        asks for that the case has no time for (a Retry-After past its end) is the model's
        error, as the client words it, not a timeout: the case still had time. ``until``
        (monotonic seconds): a step's own end (aiWaitFor's timeout); when it comes before the
        case's, the call is given only the time to it and its DeadlineReached is raised as is,
        for the step to word."""
        from farm.llm.client import DeadlineReached
        self.check_time()
        client = client or self.models.plan
        case_end = self._deadline()
        step_first = until is not None and until < case_end
        end = until if step_first else case_end
        left = end - time.monotonic()
        try:
            reply = client.complete(messages, timeout=None if left == float("inf") else
                                    max(left, 0.0), cancel=self.cancel)
        except FarmError as exc:     # a failed call's usage counts too (calls, retries)
            spent = getattr(exc, "usage", None)
            if spent is not None:
                self._spent(spent)
            if isinstance(exc, DeadlineReached) and not step_first:
                raise CaseTimeout(f"waiting for the model {_endpoint(client)}") from exc
            raise
        self._spent(reply.usage)
        self.last_cut = getattr(reply, "cut", False)     # (`farm.llm.client.cut_note`)
        log.debug("model %s (%s): %d+%d tokens", purpose, getattr(client, "name", "?"),
                  reply.usage.prompt_tokens, reply.usage.completion_tokens)
        return reply.text

    def _spent(self, usage: Usage) -> None:
        """``usage`` added to the agent's, then told to ``on_spend``."""
        self.usage.add(usage)
        if self.on_spend is not None:
            try:
                self.on_spend()
            except Exception as exc:      # a spend not sent now goes with the step
                log.debug("on_spend failed: %s", exc)

    def check_time(self) -> None:
        if self.remaining() <= 0:
            raise CaseTimeout("case timed out during an ai step")

    def _models(self, what: str) -> "ModelSet":
        if self.models is None:
            raise NeedsModel(what)
        return self.models

    def ai_act(self, task: str, deep_think: bool = False, deep_locate: bool = False,
               context: str | None = None, planning_strategy: str | None = None,
               images: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """Carry out ``task`` with the plan-act-replan loop. Numbered lines = strict mode.
        ``planning_strategy`` (fast | standard | max) or ``deep_think`` set how deep the
        planner plans (farm.agent.loop.Planning); ``images`` are the task's reference images,
        shown to the planner and to the locates of its actions.
        With a cache, a plan remembered for this step is replayed first (no model call); the
        loop plans only when there is none or a replayed action fails. The model reads
        ``task`` and ``context`` through `for_model`, and the plan is cached under both."""
        from farm.agent.loop import ActLoop, planning_for
        from farm.cache.plan import PlanCache
        if self.models is None and not self.plan_cached(task, context, images):
            raise NeedsModel(f'ai "{task}"')
        said = task
        task, context = self.for_model(task), self.for_model(context or self.context or "")
        loop = ActLoop(self, self.limits, planning_for(planning_strategy, deep_think), images)
        plan = (PlanCache(self.cache, plan_prompt(task, context, images))
                if self.cache is not None else None)
        try:
            if plan is not None and plan.replay(loop, loop.runner()):
                result = loop.result
            elif self.models is None:       # the cached plan did not fit: only a model can
                raise PlanMisfit(_misfit(said, plan.misfit if plan is not None else None))
            else:
                if plan is not None and plan.replanned:    # (a step note: farm.runner)
                    self.last_notes.append(plan.replanned)
                result = loop.run(task, deep_locate=deep_locate, context=context or None)
                if plan is not None:
                    plan.save(result)
        except StepFailed as exc:
            if not loop.result.notes:
                raise
            raise StepFailed(f"{exc} ({'; '.join(loop.result.notes)})") from exc
        finally:    # (what its locates said: step notes, as an aiTap's are)
            self.last_notes.extend(loop.result.located)
            self.last_tiers = list(loop.result.tiers)
            self.last_rounds = loop.result.rounds
            self.last_act = loop.result.failed_output()
        return result.as_output()

    def plan_cached(self, task: str, context: str | None = None,
                    images: list[dict[str, str]] | None = None) -> bool:
        """Whether the plan cache holds a plan for the case's first ``ai`` step of ``task``
        (read only: nothing counted, no model needed), which a run with no model replays."""
        if self.cache is None or not self.cache.reading:
            return False
        prompt = plan_prompt(self.for_model(task), self.for_model(context or self.context or ""),
                             images)
        key = self.cache.ns.key("plan", prompt, self.cache.uses("plan", prompt))
        from farm.cache.plan import replayable
        return replayable(self.cache.lookup(key))

    def _look(self, shown: dict[str, Any] | None = None) -> Look:
        """The screen as it is now (not a cached frame), as the step's options show it:
        ``screenshotIncluded`` (default true), ``domIncluded`` (true / "visible-only"),
        ``images`` (reference images)."""
        from farm.agent.insight import Look
        shown = shown or {}
        png = None
        if shown.get("screenshotIncluded", True):
            self.grabber.invalidate()
            png = self.grabber.grab()
        dom = None
        if shown.get("domIncluded"):
            dom = _elements_text(self.device.hierarchy(), self.mask,
                                 visible_only=shown["domIncluded"] == "visible-only")
        return Look(png, dom, [inline_image(i) for i in shown.get("images") or []])

    def ai_assert(self, assertion: str, error_message: str | None = None,
                  shown: dict[str, Any] | None = None) -> dict[str, Any]:
        """Judge ``assertion``; the verdict ({pass, thought}) is returned or, when false,
        raised as AssertionFailed."""
        from farm.agent.insight import judge
        models = self._models(f'aiAssert "{assertion}"')
        assertion = self.for_model(assertion)
        passed, why = judge(self.ask, models.judge, assertion, self._look(shown))
        if passed is None:          # {"pass": null}: a failure, never a verdict asked again
            why = _could_not_tell(why)
            failed = AssertionFailed(_worded(error_message, why) if error_message
                                     else f'aiAssert "{assertion}": {why}')
            failed.thought = why
            raise failed
        if not passed:
            failed = AssertionFailed(_worded(error_message, why) if error_message else
                                     f'aiAssert "{assertion}" failed: {why or NO_REASON}')
            failed.thought = why      # the model's reasoning, kept with the verdict
            raise failed
        return {"pass": True, "thought": why}

    def ai_wait_for(self, assertion: str, timeout_s: float = 30.0,
                    interval_s: float = 1.0, shown: dict[str, Any] | None = None) -> None:
        """Judge ``assertion`` every ``interval_s`` (and once more as late as a check fits in
        ``timeout_s``) until it holds; past ``timeout_s`` the step fails (AssertionFailed with
        the model's last reason). Every wait for the model ends with the step's time too: a
        model too slow to give a verdict within it is the model's error (ModelUnavailable),
        not the app's."""
        from farm.agent.insight import judge
        from farm.llm.client import DeadlineReached
        models = self._models(f'aiWaitFor "{assertion}"')
        assertion = self.for_model(assertion)
        limit = min(time.monotonic() + timeout_s, self._deadline())   # (the case's end, exactly)
        ask = lambda purpose, messages, client: self.ask(  # noqa: E731
            purpose, messages, client, until=limit)
        why: str | None = None
        last = False        # the check being made is the one last check (`_next_look`)
        while True:
            started = time.monotonic()
            try:
                passed, why = judge(ask, models.judge, assertion, self._look(shown))
                if passed is None:      # not true yet as far as the model can tell
                    why = _could_not_tell(why)
            except DeadlineReached as late:
                if self.remaining() <= 0:     # the case's time ran out with the step's
                    raise CaseTimeout(f"waiting for the model {_endpoint(models.judge)}") \
                        from None
                raise _no_verdict_in_time(assertion, timeout_s, why, models.judge,
                                          late) from None
            if passed:
                return
            pause, last = (None, True) if last else self._next_look(limit, interval_s,
                                                                     started)
            if pause is None:
                if limit >= self._deadline():
                    raise CaseTimeout(f'case timed out waiting for "{assertion}"')
                raise AssertionFailed(f'aiWaitFor "{assertion}" not true within '
                                      f"{timeout_s:g}s: {why or NO_REASON}")
            self._pause(pause, f'"{assertion}"')

    def _next_look(self, limit: float, interval_s: float,
                   started: float) -> tuple[float | None, bool]:
        """How long aiWaitFor waits before its next check (the last began at ``started``),
        None when none fits before ``limit``, and whether that check is the last one (a pause
        cut short to fit it in: no check comes after it; a check faster than the one before
        fitted another last one, and a 4 s wait asked the model at 0, 3, 3.9 and 3.99 s). ``interval_s`` is the least time between the
        starts of two checks, as Midscene's checkIntervalMs: a judge that took 2 s of a 3 s
        interval is asked again 1 s later, one slower than it at once. The step's own timeout
        gets a last check as late as one fits (taking what the last one took): "timeout:
        8000, checkIntervalMs: 3000" looked at 0, 3 and 6 s and failed there, and a condition
        true from 7 s on was never seen. No check is started into the case's last moments: it
        ends there whatever the model says."""
        now = time.monotonic()
        wait = max(started + interval_s - now, 0.0)
        if limit >= self._deadline():
            return (wait if now + wait <= limit else None), False
        fits = limit - now - (now - started)
        return (min(wait, fits), fits < wait) if fits > 0 else (None, True)

    def ai_query(self, query: str, kind: str = "aiQuery",
                 shown: dict[str, Any] | None = None) -> Any:
        from farm.agent.insight import query as extract
        models = self._models(f'{kind} "{query}"')
        return extract(self.ask, models.plan, self.for_model(query), kind, self._look(shown))

    def ai_boolean(self, query: str) -> bool:
        return self.ai_query(query, "aiBoolean")

    def ai_number(self, query: str) -> float:
        return self.ai_query(query, "aiNumber")

    def ai_string(self, query: str) -> str:
        return self.ai_query(query, "aiString")


def _worded(error_message: str, why: str | None) -> str:
    """A failed aiAssert's message when the step gives ``errorMessage``, worded as Midscene
    words it: the suite's words, then the model's reason (which a custom message hid)."""
    return f"Assertion failed: {error_message}\nReason: {why or NO_REASON}"


def _could_not_tell(why: str) -> str:
    """An aiAssert / aiWaitFor answered {"pass": null}, with the model's reason if any."""
    return ("the model could not tell whether it holds (it answered null): "
            f"{why or 'it gave no reason'}")


def _no_verdict_in_time(assertion: str, timeout_s: float, why: str | None,
                        client: Any, late: BaseException | None = None) -> FarmError:
    """aiWaitFor's time ran out waiting for the model: the model's error when it gave no
    verdict at all in the step's time, the app's when it had said "not true" before. ``late``
    (the DeadlineReached): the aside that the time ran out while the model judged again only
    when a request was out then (its ``.usage`` counts a call), saying how long it had been
    out; a check that had no time left to ask the model is none (every earlier answer may
    have come in milliseconds)."""
    model = _endpoint(client)
    if why is None:
        return ModelUnavailable(f'aiWaitFor "{assertion}": timed out after {timeout_s:g}s '
                                f"waiting for the model {model} (no verdict within the step's "
                                "timeout)")
    spent = getattr(late, "usage", None)
    aside = ""
    if spent is not None and spent.calls:
        took = spent.latency_s
        took_text = f"{took:.1f}s" if took >= 0.1 else f"{took * 1000:.0f} ms"
        aside = (f" (the time ran out while the model {model} judged again, {took_text} "
                 "after it was asked)")
    return AssertionFailed(f'aiWaitFor "{assertion}" not true within {timeout_s:g}s: '
                           f"{why or NO_REASON}{aside}")


class PlanMisfit(NeedsModel):
    """An ``ai`` step replayed its cached plan with no model, and the plan did not fit the
    screen where a model would plan again: skipped, saying so (never a pass)."""


def plan_prompt(task: str, context: str, images: list[dict[str, str]] | None) -> str:
    """What an ``ai`` step's plan entry is keyed by: its task and context as the model reads
    them (`Agent.for_model`), and its reference images."""
    from farm.cache.keys import context_key
    return task + images_key(images) + context_key(context)


def _misfit(task: str, misfit: tuple[int, str] | None) -> str:
    """Why a cached plan replayed with no model did not finish its step (NeedsModel's what)."""
    if misfit is None:
        return f'ai "{task}"'
    at, why = misfit
    return f'the cached plan for "{task}" did not fit the screen at step {at} ({why})'


def _endpoint(client: Any) -> str:
    """``openai/x at http://host/v1`` (credentials in the URL masked) for messages."""
    from farm.config import mask_url
    name = getattr(client, "name", "?")
    base = getattr(client, "base_url", None)
    return f"{name} at {mask_url(base)}" if base else name


def _has(text: str, screen: str) -> bool:
    """Whether ``text`` is in ``screen`` (a UI tree's or a page's text) as a text check
    compares: `normalise`d, its ends at word ends (`farm.text.word_match`: "Count 1" is not
    in "Count 10", "Saved" is in "Saved."; none for Chinese, Japanese or Korean text)."""
    return word_match(normalise(text), normalise(screen)) is not None


def _target(prompt: str | None, xpath: str | None, deep_locate: bool) -> Locate:
    return Locate(prompt=prompt or "", xpath=xpath, deepLocate=deep_locate)


def _optional_target(prompt: str | None, xpath: str | None, deep_locate: bool) -> Locate | None:
    return _target(prompt, xpath, deep_locate) if prompt or xpath else None


class OnDeviceTier:
    """A zero-token tier that sees ``${NAME}`` resolved: it matches on the device and its answer
    never leaves it. Model tiers get the prompt with secrets as placeholders (`Agent.for_model`).
    The ``resolve`` hint of a locate (a model-planned target's) wins over the tier's own."""

    def __init__(self, tier: LocatorTier, resolve: Callable[[str], str]) -> None:
        self.tier, self.resolve, self.name = tier, resolve, tier.name

    def locate(self, prompt: str, ctx: LocateContext) -> LocateHit | None:
        resolve = ctx.hints.get("resolve") or self.resolve
        try:
            value = resolve(prompt)
        except FarmError:          # a placeholder with no value: match the text as written
            value = prompt
        if value == prompt:
            return self.tier.locate(prompt, ctx)
        try:
            return self.tier.locate(value, ctx)
        except LocateError as exc:   # messages may reach the model as feedback: as written
            raise LocateError(str(exc).replace(value, prompt), exc.candidates) from None


def _with_cache(tiers: list[LocatorTier], cache: "CaseCache | None",
                **chain: Any) -> LocatorChain:
    """The chain with the locate cache right after the XPath tier; every hit is offered to the
    cache to store (farm.cache.locate)."""
    if cache is None:
        return LocatorChain(tiers, **chain)
    from farm.cache.locate import LocateCacheTier
    tier = LocateCacheTier(cache)
    at = next(i + 1 for i, t in enumerate(tiers) if t.name == "xpath")
    return LocatorChain(tiers[:at] + [tier] + tiers[at:], on_hit=tier.remember, **chain)


def zero_token_chain(resolve: Callable[[str], str], cache: "CaseCache | None" = None,
                     off: Collection[str] = (), max_scrolls: int = 10,
                     screenshot: Callable[[], bytes] | None = None) -> LocatorChain:
    """XPath (resolved by `Agent.locate`) → locate cache → UI-tree text → OCR (``${NAME}``
    resolved); ``screenshot`` is the agent's grabber (default: the device's)."""
    from farm.agent.ocr import OcrTier
    return _with_cache([XPathTier(), OnDeviceTier(TextMatchTier(max_scrolls), resolve),
                        OnDeviceTier(OcrTier(screenshot), resolve)], cache, off=off)


def model_chain(agent: Agent, off: Collection[str] = (), max_scrolls: int = 10) -> LocatorChain:
    """Plan bbox → XPath → locate cache → UI-tree text → OCR → AI locate → deepLocate."""
    from farm.agent.model_tiers import AILocateTier, PlanBboxTier
    from farm.agent.ocr import OcrTier
    models = agent.models
    assert models is not None
    ask = lambda purpose, messages: agent.ask(purpose, messages, models.locate)  # noqa: E731
    name = getattr(models.locate, "name", "?")
    return _with_cache([PlanBboxTier(), XPathTier(),
                        OnDeviceTier(TextMatchTier(max_scrolls), agent.resolve),
                        OnDeviceTier(OcrTier(agent.grabber.grab), agent.resolve),
                        AILocateTier(ask, models.locate_family, agent.grabber.grab,
                                     model=name),
                        AILocateTier(ask, models.locate_family, agent.grabber.grab, deep=True,
                                     model=name)],
                       agent.cache, has_model_tier=True, off=off)


def _elements_text(tree: Any, mask: Callable[[str], str], visible_only: bool = False,
                   limit: int = 400) -> str:
    """The UI tree as short lines for domIncluded (the model sees attributes the pixels may
    not show: hidden text, names, placeholders); each line's text masked (``mask``: the page
    can show a secret) before it is cut short, so no start of a secret is left."""
    if tree is None:
        return "(no UI tree on this screen)"
    lines = []
    for n in tree.nodes:
        if visible_only and not n.visible:
            continue
        words = mask(" | ".join(w for w in (n.text, n.name, n.placeholder, n.resource_id) if w))
        if not words:
            continue
        r = n.rect
        lines.append(f"{n.role} \"{words[:200]}\" [{r.x},{r.y},{r.width},{r.height}]"
                     + ("" if n.visible else " (hidden)"))
        if len(lines) >= limit:
            lines.append("...")
            break
    return "\n".join(lines)
