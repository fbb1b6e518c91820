"""The ai_act loop: screenshot → plan → TaskBuilder → TaskRunner → replan, until the model
says `<complete>` or the cap. Failures go back to the model as feedback text (secret values
masked); more than `max_errors` execution errors, an action repeated on an unchanged screen,
or the cap fail the act with a message that says which. A reply that cannot be read after one
retry is a model error (ModelUnavailable), not the app's failure; so are execution errors past
``max_errors`` that were all the model's own planning errors (an unknown action, bad params, a
box off the screenshot: nothing was ever tried on the app).

What the model planned is resolved with the agent's ``resolve_planned``: a ``${NAME}`` the
suite does not declare is typed as written and named in the act's ``notes``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Protocol

from farm.agent.actions import (Action, Locate, Scroll, Sleep, as_planned, describe_actions,
                                registry)
from farm.agent.history import ConversationHistory, with_text_first
from farm.agent.images import (alike, data_url, grey_frame, inline_image, padded,
                               png_size)
from farm.agent.limits import LoopLimits  # noqa: F401  (its home before farm.agent.limits)
from farm.agent.locator import LocateHit
from farm.agent.model_tiers import image_to_screen
from farm.agent.prompts import reference_parts, round_prompt, system_prompt
from farm.agent.tasks import PlanError, Task, TaskRunner, build_tasks
from farm.devices.base import Device
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import CaseTimeout, LocateError, ModelUnavailable, StepFailed
from farm.llm.client import cut_note
from farm.llm.families import FAMILIES, to_rect
from farm.llm.plan import Plan, ReplyParseError, echo_back, other_grammar, parse_plan

if TYPE_CHECKING:
    from PIL import Image

    from farm.llm.models import ModelSet

log = logging.getLogger("farm.agent")


class LoopHost(Protocol):
    """What the loop uses of its Agent (farm.agent.api imports this module, never the reverse)."""

    device: Device
    models: "ModelSet | None"       # None: the loop only replays a cached plan
    grabber: ScreenshotGrabber
    acted: list[dict[str, Any]]     # where actions touched the device, for marks

    def ask(self, purpose: str, messages: list[dict[str, Any]], client: Any = None) -> str: ...

    def check_time(self) -> None: ...

    def locate(self, loc: Locate, resolve: Callable[[str], str] | None = None,
               **hints: Any) -> LocateHit: ...

    def task_runner(self, locate: Callable[[Locate], LocateHit] | None = None,
                    resolve: Callable[[str], str] | None = None) -> TaskRunner: ...

    def resolve_planned(self, text: str, undeclared: list[str]) -> str: ...

    def mask(self, text: str) -> str: ...


@dataclass(frozen=True)
class Planning:
    """How deep the planner plans: farm's default, ``deepThink: true``, or Midscene's aiAct
    ``planningStrategy`` (fast | standard | max, as Midscene's agent defined them: how many
    screenshots the planner sees, whether its box is the locate answer)."""

    images: int | None = 1      # newest screenshots sent per request (None: all kept)
    rounds: int | None = 3      # earlier rounds sent back (None: every kept message)
    thought: bool = True        # the XML planner writes a <thought> before acting
    ask_boxes: bool = True      # the XML planner gives a box with each target ...
    trust_boxes: bool = True    # ... and that box is the locate answer (no locate call)
    sub_goals: bool = False     # the planner splits the task into sub-goals first
    show_goals: bool = False    # the sub-goals (and their state) go back in each prompt


PLANNING: dict[str, Planning] = {
    # current screenshot and round only, no thought: the cheapest request; boxes answer
    "fast": Planning(images=1, rounds=0, thought=False),
    # the last two screenshots; targets are described and located separately
    "standard": Planning(images=2, ask_boxes=False, trust_boxes=False),
    # every screenshot and round kept, sub-goals first, targets located separately
    "max": Planning(images=None, rounds=None, ask_boxes=False, trust_boxes=False,
                    sub_goals=True, show_goals=True),
}
DEEP_THINK = Planning(images=2, trust_boxes=False, show_goals=True)


def planning_for(strategy: str | None, deep_think: bool) -> Planning:
    """farm's default, deepThink's, or a planningStrategy's (which the loader checked)."""
    if strategy is not None:
        return PLANNING[strategy]
    return DEEP_THINK if deep_think else Planning()


class BadBox(LocateError):
    """The planner's box is no location (not numbers, or off the screenshot): fed back to the
    model like an unknown action, and like one it is the model's own planning error."""


@dataclass
class _Watch:
    """What one loop remembers between rounds, to notice a missed target or a stuck agent."""

    last_key: tuple | None = None
    repeats: int = 0
    since_change: list[tuple] = field(default_factory=list)   # actions since the screen changed
    pointed: str = ""                       # the last round's pointer action, if it had one
    waited: int = 0                         # rounds in a row that only slept ...
    waited_changed: bool = False            # ... and whether the screen changed meanwhile
    last_frame: Image.Image | None = None   # the last round's screen (farm.agent.images)


@dataclass
class ActResult:
    rounds: int = 0
    message: str = ""
    steps: list[str] = field(default_factory=list)
    tiers: list[str] = field(default_factory=list)
    undeclared: list[str] = field(default_factory=list)   # ${NAME}s the model used, not expanded
    actions: list[dict[str, Any]] = field(default_factory=list)   # as_planned, for the plan cache
    trail: list[str] = field(default_factory=list)   # every action tried, a failed one with why
    # what its locates said all the same (`LocateHit.notes`: a renamed label, a match by id)
    located: list[str] = field(default_factory=list)

    @property
    def notes(self) -> list[str]:
        return [*(f"not expanded: ${{{name}}} is not declared" for name in self.undeclared),
                *self.located]

    def as_output(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rounds": self.rounds, "message": self.message,
                               "steps": self.steps}
        if self.notes:
            out["notes"] = self.notes
        return out

    def failed_output(self) -> dict[str, Any] | None:
        """The account of an act that failed or errored: its rounds and every action it
        tried, a failed one with its error (None when it planned and did nothing)."""
        if not (self.rounds or self.steps):
            return None
        return {**self.as_output(), "steps": self.trail or self.steps}

    def tried(self, label: str, why: str) -> None:
        """An action that failed (or was not run) joins the trail with why."""
        self.trail.append(f"{label} — {why[:TRAIL_ERROR]}")


TRAIL_ERROR = 300       # characters of a failed action's error kept in the trail


_NUMBERED = re.compile(r"^\s*(\d+)[.)]\s+(.+?)\s*$")


def strict_steps(task: str) -> list[str]:
    """Numbered lines ("1. …", "2) …") make a task strict: one step at a time. [] otherwise."""
    lines = [l for l in task.splitlines() if l.strip()]
    found = [_NUMBERED.match(l) for l in lines]
    if len(lines) >= 2 and all(found):
        return [m.group(2) for m in found if m]
    return []


# where the cap is set (farm.runner: the case's, else the setting's, else the family's)
RAISE_CAP = ("; to allow more rounds set replanningCycleLimit in the case's agent: section, or "
             "FARM_REPLANNING_CYCLE_LIMIT (replanning_cycle_limit in farm.toml)")


def _waits(watch: _Watch) -> str:
    """What the last rounds did, when they only waited (Sleep): the end of the message of a
    loop that reached its round cap, or of the case's time."""
    if watch.waited < 2:
        return ""
    return (f": the model only waited (Sleep) in its last {watch.waited} rounds"
            + ("" if watch.waited_changed else ", on a screen that did not change"))


class ActLoop:
    """One ai_act. Holds its own ConversationHistory (a fresh one per call)."""

    def __init__(self, agent: LoopHost, limits: LoopLimits,
                 planning: Planning | None = None,
                 images: list[dict[str, str]] | None = None) -> None:
        self.agent = agent
        self.planning = planning or Planning()
        self.images = images or []          # reference images of a {prompt, images} task
        self._refs: list[dict[str, Any]] | None = None
        self.models = agent.models
        self.limits = limits
        self.history = ConversationHistory()
        self.platform = agent.device.platform
        self.registry = registry(self.platform)
        self.result = ActResult()
        if self.models is None:     # a cached plan replayed with no model: nothing to plan
            return
        self.family = self.models.plan_family
        self.cap = limits.cap or self.family.loop_cap
        p = self.planning
        self.system = system_prompt(self.family, self.platform, describe_actions(self.platform),
                                    thought=p.thought, boxes=p.ask_boxes, sub_goals=p.sub_goals)

    def _resolve(self, text: str) -> str:
        """A value or target the model planned: only what the suite declares expands."""
        known = len(self.result.undeclared)
        out = self.agent.resolve_planned(text, self.result.undeclared)
        for name in self.result.undeclared[known:]:
            log.warning("not expanded: ${%s} is not declared (the model wrote it)", name)
        return out

    def _feedback(self, text: str) -> None:
        """Feedback for the next round; it can quote the page or the device: masked."""
        self.history.feedback(self.agent.mask(text))

    def run(self, task: str, deep_locate: bool = False,
            context: str | None = None) -> ActResult:
        steps = strict_steps(task)
        if not steps:
            self._loop(task, deep_locate, context, None)
        for i, _ in enumerate(steps, 1):
            if i > 1:       # (step 1 keeps what a replayed plan did and why it stopped)
                self.history.reset()
            self._loop(task, deep_locate, context, (i, len(steps)))
        return self.result

    # ---- one loop ---------------------------------------------------------------------------
    def _loop(self, task: str, deep_locate: bool, context: str | None,
              strict: tuple[int, int] | None) -> None:
        """`_rounds`; a case that timed out while the model only waited says so."""
        watch = _Watch()
        try:
            self._rounds(task, deep_locate, context, strict, watch)
        except CaseTimeout as exc:
            if not _waits(watch):
                raise
            raise CaseTimeout(f"{exc}{_waits(watch)}") from exc

    def _rounds(self, task: str, deep_locate: bool, context: str | None,
                strict: tuple[int, int] | None, watch: _Watch) -> None:
        history = self.history
        errors: list[tuple[bool, str]] = []     # (the model's own planning error?, why)
        runner = self.agent.task_runner(lambda loc: self._locate(loc, deep_locate),
                                        resolve=self._resolve)
        for _ in range(self.cap):
            same_screen = self._look(task, context, strict, watch)
            if not same_screen:
                watch.since_change.clear()
                watch.waited_changed = watch.waited > 0
            plan = self._plan()
            self.result.rounds += 1
            history.remember(plan.memory)
            history.update_goals(plan.sub_goals, plan.done_goals)
            if plan.error and not plan.actions:   # beside <complete success="true"> too
                raise StepFailed(f"the model gave up: {plan.error}")
            watch.pointed = ""
            only_slept = plan.actions and all(a.type.strip().lower() == "sleep"
                                              for a in plan.actions)   # ("sleep" runs it too)
            watch.waited = watch.waited + 1 if only_slept else 0
            watch.waited_changed = watch.waited_changed and bool(only_slept)
            failed = self._act(plan, runner, watch, same_screen)
            if not (plan.actions or plan.complete):
                self._check_idle(plan, watch, same_screen)
            if failed is not None:
                errors.append(failed)
                if len(errors) > self.limits.max_errors:
                    self._too_many_errors(errors)
                continue
            if plan.complete and self._finished(plan):
                return
        raise StepFailed(f"replanning limit {self.cap} reached without {self._done_word()}"
                         + (f" (strict step {strict[0]})" if strict else "") + _waits(watch)
                         + RAISE_CAP)

    def _done_word(self) -> str:
        return {"autoglm": "finish(...)", "uitars": "finished(...)"}.get(self.family.grammar,
                                                                         "<complete>")

    def _finished(self, plan: Plan) -> bool:
        """Whether the plan's completion ends the act (StepFailed for a failure). One beside
        an action was written before the model saw what the action did (a reply is one action
        or, instead, the completion: REFERENCE.md §1; prose quoting the tag beside an action
        read as one): the action ran, the completion is set aside and the model looks again."""
        if plan.actions:
            log.info("the model's reply held an action and %s: the action ran, the "
                     "completion is not taken", self._done_word())
            self._feedback(f"Your reply held an action and {self._done_word()} together: the "
                           f"action was carried out, {self._done_word()} was not taken. Look "
                           f"at the screen now and answer {self._done_word()} alone if the "
                           "task is done.")
            return False
        if not plan.success:
            raise StepFailed(f"the model could not complete the task: "
                             f"{plan.message or plan.thought or 'no reason given'}")
        self.result.message = plan.message
        return True

    def _too_many_errors(self, errors: list[tuple[bool, str]]) -> NoReturn:
        """The error cap is spent. If every error was the model planning what farm cannot run,
        nothing was ever tried on the app: the model is not usable (an infrastructure error,
        not the app's failure). Otherwise the step failed."""
        if all(planning for planning, _ in errors):
            name = getattr(self.models.plan, "name", "?")
            raise ModelUnavailable(
                f"the model {name} kept planning actions farm cannot run ({len(errors)} times; "
                f"last: {self.agent.mask(errors[-1][1])[:300]})")
        raise StepFailed(f"more than {self.limits.max_errors} execution errors in "
                         f"one ai step; last: {self.history.pending_feedback[:300]}")

    def _look(self, task: str, context: str | None,
              strict: tuple[int, int] | None, watch: _Watch) -> bool:
        """A fresh screenshot into the next prompt; whether the screen is as it was in the
        last round (the last pointer action, if any, then probably missed)."""
        self.agent.check_time()
        png = self.agent.grabber.grab()
        self._shot = png
        frame = grey_frame(png)
        same_screen = alike(frame, watch.last_frame)
        watch.last_frame = frame
        if watch.pointed and same_screen:
            self._feedback(f"The screen did not change after {watch.pointed}: the target was "
                           "probably missed. Look again and correct the position.")
        self.history.add_user(round_prompt(task,
                                           self.history.state_text(self.planning.show_goals),
                                           self.history.take_feedback(), context, strict),
                              data_url(padded(png, self.family.pad)))
        return same_screen

    def _act(self, plan: Plan, runner: TaskRunner, watch: _Watch,
             same_screen: bool) -> tuple[bool, str] | None:
        """Run the plan's actions in order; None when all ran. At the first that fails:
        feedback, and (was it the model's own planning error — an unknown action, bad params,
        a box that is no location — rather than an action failing on the device?, why)."""
        earlier: list[str] = []
        for planned in plan.actions:
            try:
                tasks = build_tasks(planned, self.registry)
            except PlanError as exc:
                self._feedback(f"Your action was not executed: {exc}")
                self.result.tried(planned.type or "(no action type)", f"not run: {exc}")
                return True, str(exc)
            again = repr((planned.type, planned.params))
            if again in earlier:        # one reply repeats an action ("next" three times):
                same_screen = self._unchanged(watch)   # did the ones before it change the screen?
            earlier.append(again)
            acted = len(self.agent.acted)
            bad = runner.run(tasks)
            if bad is not None:
                self._feedback(f"{bad.label} failed: {bad.error}")
                self.result.tried(tasks[-1].label, f"failed: {bad.error}")
                return isinstance(bad.exception, BadBox), bad.error
            action, label = tasks[-1].action, tasks[-1].label
            for mark in self.agent.acted[acted:]:   # the annotated screenshot's caption
                mark["note"] = self.agent.mask(" · ".join(
                    x for x in (plan.thought, plan.log or label) if x))[:500]
            self.done(tasks, plan.log or label)
            said = tasks[-1].output if isinstance(action, Scroll) else None
            if isinstance(said, str):       # a scroll that moved nothing says so: no miss
                self._feedback(f"{label}: {said}")
            elif action.moves_pointer or any(t.kind == "locate" for t in tasks):
                watch.pointed = label
            if not isinstance(action, Sleep):   # waiting for the app repeats nothing: the
                self._check_stuck(action, label, watch, same_screen)   # cap ends endless waits
        return None

    def _unchanged(self, watch: _Watch) -> bool:
        """Whether the screen is as it was at the last look, looked at again now: a reply's
        earlier actions may have changed it since the round's screenshot."""
        frame = grey_frame(self.agent.grabber.grab())
        same = alike(frame, watch.last_frame)
        watch.last_frame = frame
        if not same:
            watch.since_change.clear()
        return same

    def done(self, tasks: list[Task], log_line: str) -> None:
        """A finished action (planned now or replayed from the plan cache) joins the result
        and the history ("Steps done so far")."""
        self.result.steps.append(tasks[-1].label)
        self.result.trail.append(tasks[-1].label)
        self.result.tiers += [t.hit.tier for t in tasks if t.hit is not None]
        for note in (note for t in tasks if t.hit is not None for note in t.hit.notes):
            if note not in self.result.located:   # (a replayed target found again: once)
                self.result.located.append(note)
        self.result.actions.append(as_planned(tasks[-1].action))
        self.history.log(log_line)

    def runner(self) -> TaskRunner:
        """A TaskRunner for actions replayed from the plan cache: the agent's locate (no
        planner box), values resolved as planned ones are."""
        if not self.images:
            return self.agent.task_runner(resolve=self._resolve)
        return self.agent.task_runner(lambda loc: self.agent.locate(loc, images=self.images),
                                      resolve=self._resolve)

    def feedback(self, text: str) -> None:
        """Tell the next round something (masked: it may quote the page)."""
        self._feedback(text)

    def _check_stuck(self, action: Action, label: str, watch: _Watch,
                     same_screen: bool) -> None:
        """Same action, same params and target, on a screen that did not change: nudge, then
        abort. An action on a target counts each time since the screen last changed, with
        other actions between (a Tap on A, a Tap on B, A again ...: a loop all the same)."""
        key = (action.name, action.model_dump_json(), action.target())
        watch.repeats = watch.repeats + 1 if key == watch.last_key and same_screen else 1
        watch.last_key = key
        watch.since_change.append(key)
        times = watch.repeats
        if action.target():
            times = max(times, watch.since_change.count(key))
        between = "" if times == watch.repeats else ", between other actions,"
        if times >= self.limits.stuck_abort:
            raise StepFailed(f"agent stuck: {action.name} repeated {times} times{between} on "
                             f"{action.target() or 'the same screen'} with no change")
        if times >= self.limits.stuck_nudge:
            self._feedback(f"You repeated {label} {times} times{between} and the screen did "
                           "not change. Do something different, or complete.")

    def _check_idle(self, plan: Plan, watch: _Watch, same_screen: bool) -> None:
        """A round that did nothing on the screen (AutoGLM's Interact, which no user answers;
        its Note or Call API, which only take notes) counts as an action: the same answer on
        an unchanged screen is nudged, then stuck, where it went on to the round cap (100
        calls for AutoGLM)."""
        said = plan.log or "no action"
        key = ("(nothing done)", said, plan.message)
        watch.repeats = watch.repeats + 1 if key == watch.last_key and same_screen else 1
        watch.last_key = key
        if watch.repeats >= self.limits.stuck_abort:
            raise StepFailed(f"agent stuck: the model answered {said} {watch.repeats} times "
                             f"on the same screen, doing nothing"
                             + (f" ({plan.message})" if plan.message else ""))
        if watch.repeats >= self.limits.stuck_nudge:
            self._feedback(f"You answered {said} {watch.repeats} times and nothing was done"
                           + (": no user will answer" if plan.message else "")
                           + ". Act on the screen yourself, or finish.")

    def _plan(self) -> Plan:
        """Ask for the next action; one retry with the parse error appended. A second
        unreadable reply is the model's fault (ModelUnavailable), not the app's. Reference
        images ride at the start of the first user message, in every request (a message of
        their own was a second user turn in a row: strict chat templates refuse it)."""
        if self._refs is None:           # fetched once per act (convertHttpImage2Base64)
            self._refs = reference_parts([inline_image(i) for i in self.images])
        turns = self.history.snapshot(self.planning.images, self.planning.rounds)
        if self._refs and turns:
            turns[0] = with_text_first(turns[0], *self._refs)
        messages = [{"role": "system", "content": self.system}, *turns]
        text = self.agent.ask("plan", messages, self.models.plan)
        try:
            plan = parse_plan(text, self.family.grammar)
        except ReplyParseError as first:
            retry = messages + [{"role": "assistant", "content": echo_back(text)},
                                {"role": "user", "content": f"Your reply could not be read: "
                                 f"{first}. Answer again in the required format."}]
            text = self.agent.ask("plan", retry, self.models.plan)
            try:
                plan = parse_plan(text, self.family.grammar)
            except ReplyParseError as second:
                raise ModelUnavailable(f"model {getattr(self.models.plan, 'name', '?')}: "
                                       f"{self._family_hint(text)}its reply could not be "
                                       f"parsed twice: {second}"
                                       f"{cut_note(self.agent.ask)}") from None
        self.history.add_assistant(text)
        return plan

    def _family_hint(self, reply: str) -> str:
        """What to fix, first (a console line shows the start of an error), when the
        unreadable reply is in another family's grammar: the family setting, or its guess
        from the model's name, is wrong; "" otherwise."""
        other = other_grammar(reply, self.family.grammar)
        if other is None:
            return ""
        names = " / ".join(f.name for f in FAMILIES.values()
                           if f.grammar == other and f.variant_of is None)
        setting = ("FARM_MODEL_FAMILY (--model-family)" if self.models.planner_locates
                   else "FARM_PLANNING_MODEL_FAMILY")
        return (f"it answers in the grammar of {names}, not of its family {self.family.name}: "
                f"set {setting}; ")

    def _locate(self, loc: Locate, deep_locate: bool) -> LocateHit:
        """The Locate task of a planned action: the planner's box (if any) becomes a hint.
        With reference images the locate sees them too (and skips the word-matching tiers:
        the planner's description may mean what an image shows)."""
        agent = self.agent
        plan_rect = None
        if loc.bbox:
            image = png_size(self._shot)
            try:
                rect = to_rect(loc.bbox, self.family, image)
            except ValueError as exc:    # OffImage too: a corner tap would be a lie
                raise BadBox(f"bad bbox for {loc.describe()}: {exc}") from None
            plan_rect = image_to_screen(rect, image, agent.device.size())
        extra = {"images": self.images} if self.images else {}
        return agent.locate(loc, resolve=self._resolve, plan_rect=plan_rect,
                            deep_locate=deep_locate or loc.deepLocate,
                            trust_plan=self.models.planner_locates
                            and self.planning.trust_boxes, **extra)
